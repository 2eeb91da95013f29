"""Ideal and nadir points of bbob-biobj problem instances, from the suite definitions in
coco-experiment (`cocoex`, an optional dependency: `pip install 'cocopipe[biobj]'`).

As COCO's `coco_problem_stacked_allocate`: the ideal point is the pair of optimal values of the two
single-objective instances, (f_alpha(x*_alpha), f_beta(x*_beta)); the nadir point the pair of
values of each objective at the other's optimum, (f_alpha(x*_beta), f_beta(x*_alpha)), which cocoex
exposes as `largest_fvalues_of_interest`.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
from contextlib import contextmanager
from functools import cache

import numpy as np
import polars as pl

_SINGLE = re.compile(r"(bbob[\w-]*?)_f(\d+)_i(\d+)_d(\d+)")
_CWD_LOCK = threading.Lock()

POINT_COLUMNS = ("ideal1", "ideal2", "nadir1", "nadir2")


class BiobjError(ValueError):
    """The biobjective indicator cannot be recomputed (missing package, unknown problem, bad file)."""


def cocoex():
    """The cocoex module, or a clear error saying how to install it."""
    try:
        import cocoex as cx
    except ImportError as exc:
        raise BiobjError("recomputing the biobjective indicator needs coco-experiment: "
                         "pip install 'cocopipe[biobj]' (or pip install coco-experiment)") from exc
    return cx


@contextmanager
def _scratch_dir():
    """Run in a temporary working folder (cocoex writes x* to a file in the working folder)."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None  # in memory
    with _CWD_LOCK, tempfile.TemporaryDirectory(dir=shm) as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(here)


def _optimum(problem) -> np.ndarray:
    """x* of a single-objective cocoex problem (call inside `_scratch_dir`)."""
    problem._best_parameter("print")
    with open("._bbob_problem_best_parameter.txt") as fh:
        return np.array(fh.read().split(), dtype=float)


@cache
def _suite(name: str, instances: str, options: str):
    return cocoex().Suite(name, instances, options)


def problem_points(problems: pl.DataFrame) -> pl.DataFrame:
    """Ideal and nadir points of problem instances.

    `problems` has `suite`, `function`, `dimension`, `instance`; returns them with `ideal1`,
    `ideal2`, `nadir1`, `nadir2` and `problem` (cocoex's name of the instance, which names the
    two single-objective problems, as in the .adat and .dat headers)."""
    cocoex()  # missing coco-experiment: one error before any work
    rows = []
    keys = problems.select("suite", "function", "dimension", "instance").unique().sort(pl.all())
    for suite, group in keys.group_by("suite", maintain_order=True):
        suite = suite[0]
        insts = ",".join(str(i) for i in sorted(group["instance"].unique()))
        dims = ",".join(str(d) for d in sorted(group["dimension"].unique()))
        try:
            biobj = _suite(suite, f"instances: {insts}", f"dimensions: {dims}")
        except Exception as exc:  # cocoex raises plain exceptions for unknown suites/options
            raise BiobjError(f"cocoex cannot build suite {suite!r} (instances {insts}, dimensions {dims}): {exc}") from exc
        for f, d, i in group.select("function", "dimension", "instance").rows():
            try:
                p = biobj.get_problem_by_function_dimension_instance(f, d, i)
            except Exception as exc:
                raise BiobjError(f"cocoex has no problem f{f} {d}-D instance {i} in suite {suite!r}") from exc
            nadir = np.asarray(p.largest_fvalues_of_interest, dtype=float)
            name = p.name
            p.free()
            singles = _SINGLE.findall(name)
            if len(singles) != 2 or nadir.shape != (2,):
                raise BiobjError(f"{suite} f{f} {d}-D instance {i}: cannot read the single-objective problems "
                                 f"from cocoex's name {name!r}")
            rows.append((suite, f, d, i, singles, *nadir.tolist(), name))
    optimum = _optimal_values({s for r in rows for s in r[4]})
    rows = [(*r[:4], *(optimum[s] for s in r[4]), *r[5:]) for r in rows]
    schema = {"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32,
              "ideal1": pl.Float64, "ideal2": pl.Float64, "nadir1": pl.Float64, "nadir2": pl.Float64,
              "problem": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _optimal_values(singles: set[tuple[str, str, str, str]]) -> dict[tuple, float]:
    """f(x*) of single-objective instances (suite, function, instance, dimension as in their names):
    their optimal values (COCO's best_value), one cocoex suite per single-objective suite."""
    out = {}
    by_suite: dict[str, list] = {}
    for key in singles:
        by_suite.setdefault(key[0], []).append(key)
    for name, keys in by_suite.items():
        opts = lambda col: ",".join(sorted({str(int(k[col])) for k in keys}, key=int))  # noqa: E731
        s = _suite(name, f"instances: {opts(2)}", f"function_indices: {opts(1)} dimensions: {opts(3)}")
        with _scratch_dir():
            for key in keys:
                p = s.get_problem_by_function_dimension_instance(int(key[1]), int(key[3]), int(key[2]))
                try:
                    out[key] = float(p(_optimum(p)))
                finally:
                    p.free()
    return out
