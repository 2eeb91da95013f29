"""Target sets as data: the precisions added to each problem's reference value (seed 000, 002)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ..conventions import is_biobjective

#: 51 targets 10^(k/5), k = 10..-40 (1e2 .. 1e-8): the ECDF targets (seed 000)
BBOB = tuple(10 ** (k / 5) for k in range(10, -41, -1))
#: 58 bbob-biobj precisions (seed 002): six negative ones, 0, then 10^(k/10), k = -50..0
BIOBJ = (-1e-4, -(10 ** -4.2), -(10 ** -4.4), -(10 ** -4.6), -(10 ** -4.8), -1e-5, 0.0) + tuple(
    10 ** (k / 10) for k in range(-50, 1)
)
#: targets of cocopp's aRT tables (pptable) and of the scaling figures (ppfigdim)
TABLE = (1e1, 1e0, 1e-1, 1e-2, 1e-3, 1e-5, 1e-7)
TABLE_BIOBJ = (1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5)
SCALING = (1e1, 1e-1, 1e-3, 1e-5, 1e-8)

NAMED = {"bbob": BBOB, "biobj": BIOBJ, "table": TABLE, "table-biobj": TABLE_BIOBJ, "scaling": SCALING}


def default(suite: str) -> tuple[float, ...]:
    """The standard (ECDF) target set of a suite."""
    return BIOBJ if is_biobjective(suite) else BBOB


def standard(suite: str) -> bool:
    """Whether a suite has a standard target set (COCO's suites: bbob and bbob-*); other suites (PBO, ...) have none,
    bbob's 51 targets fit them only by chance."""
    return suite == "bbob" or suite.startswith("bbob-")


def whole(worst: float, most: int = 51) -> tuple[float, ...]:
    """Targets of whole-number precisions (PBO's OneMax, LeadingOnes: the optimum less the value), from the data:
    every integer below `worst` (the largest precision logged, reached by every trial at its first evaluation)
    down to 0, the optimum; `most` of them, evenly spread, when there are more.

    >>> whole(16)[:3], whole(16)[-1], len(whole(16)), whole(0.0), len(whole(1000))
    ((15.0, 14.0, 13.0), 0.0, 16, (0.0,), 51)
    """
    top = max(math.ceil(worst) - 1, 0)
    if top + 1 <= most:
        return tuple(float(t) for t in range(top, -1, -1))
    return tuple(sorted({float(round(t)) for t in np.linspace(top, 0, most)}, reverse=True))


def parse(spec: str | Sequence[float] | None, suite: str | None = None) -> tuple[float, ...] | None:
    """Targets from a name (bbob, biobj, table, scaling) or a comma-separated list; None: per-suite default."""
    if spec is None or spec == "default":
        return None if suite is None else default(suite)
    if isinstance(spec, str) and spec in NAMED:
        return NAMED[spec]
    try:
        return numbers(spec)
    except ValueError as exc:
        raise ValueError(str(exc).replace("expected finite", f"expected one of {', '.join(NAMED)}, or finite")) from None


def numbers(spec: str | Sequence[float]) -> tuple[float, ...]:
    """Target numbers from a list or "v1,v2,...": at least one, each a finite number (a ValueError naming
    the value otherwise: NaN would be reached by no trial and count as reached by every one)."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    try:
        values = tuple(float(t) for t in items if not isinstance(t, str) or t.strip())
    except (TypeError, ValueError):
        raise ValueError(f"targets {spec!r}: expected finite numbers separated by commas") from None
    if not values:
        raise ValueError(f"targets {spec!r}: no target given; expected finite numbers separated by commas")
    if bad := [v for v in values if not math.isfinite(v)]:
        raise ValueError(f"targets {spec!r}: {bad[0]} is no target; expected finite numbers separated by commas")
    return values


def frame(targets: Sequence[float] | None = None, suites: Sequence[str] = ()) -> pl.LazyFrame:
    """Target table: columns `target` (and `suite` when per-suite defaults are used)."""
    if targets is not None:
        return pl.LazyFrame({"target": [float(t) for t in targets]}, schema={"target": pl.Float64})
    rows = [(s, float(t)) for s in suites for t in default(s)]
    return pl.LazyFrame(rows, schema={"suite": pl.String, "target": pl.Float64}, orient="row")
