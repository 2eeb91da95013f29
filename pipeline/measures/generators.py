"""The random generators of the measures that draw (simulated restarts, bootstrap resamples).

Every (suite, algorithm, dimension) draws from a generator of its own, seeded by the seed and by its
names, so that a result does not depend on what else is selected nor on how a selection is grouped
for computing (one algorithm at a time, or all at once).

Examples
--------
>>> from pipeline.measures.generators import block_rng
>>> a = block_rng(1, ("bbob", "DIRECT", 2)).random()
>>> a == block_rng(1, ("bbob", "DIRECT", 2)).random() != block_rng(1, ("bbob", "DIRECT", 3)).random()
True
"""
from __future__ import annotations

import zlib

import numpy as np
import numpy.random  # noqa: F401 (loaded with the measures, not at the first draw)

#: the columns that key a generator
BLOCK = ["suite", "algorithm", "dimension"]


def block_rng(seed: int, key: tuple) -> np.random.Generator:
    """The generator of one (suite, algorithm, dimension).

    Parameters
    ----------
    seed : int
        The seed of the measure.
    key : tuple
        The block's (suite, algorithm, dimension), as Python values.

    Returns
    -------
    numpy.random.Generator
        A generator seeded by `seed` and the CRC-32 of the key's text.
    """
    return np.random.default_rng([seed, zlib.crc32(repr(key).encode())])
