"""Make the IOHprofiler sample shipped in data/ioh/ with IOHexperimenter (PyPI `ioh`, not a project
dependency: run it in a scratch virtualenv with `pip install ioh`).

usage: python data/make_ioh_sample.py [OUT]   (default OUT: data/ioh beside this script)

Writes three archives, each an `ioh.logger.Analyzer` folder per algorithm:
- bbob.tgz: random search (RandomSearch) and a (1+1)-ES with the 1/5th success rule (OnePlusOneES, its
  step size `sigma` tracked) on bbob f1-f3, dimensions 2 and 5, instances 1-3, 3 runs each, budget 200 x dimension;
  logged on improvements (ioh's default trigger).
- pbo.tgz: RandomSearch and a (1+1)-EA (OnePlusOneEA) on PBO OneMax (f1) and LeadingOnes (f2), maximisation, dimension 16,
  instance 1, 5 runs each, budget 300; every evaluation logged (`trigger.ALWAYS`).
- modes.tgz: the ES (as OnePlusOneES-budgets) on bbob f1 in dimension 2, logged at fixed budgets (`trigger.Each(10)` and
  `trigger.At`) with the positions stored (`store_positions=True`).
Seeded: the same ioh version writes the same files.
"""
from __future__ import annotations

import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

import ioh
import numpy as np


class RandomSearch:
    """Uniform random search in the problem's bounds."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def __call__(self, problem, budget: int) -> None:
        lb, ub = problem.bounds.lb, problem.bounds.ub
        binary = isinstance(problem, ioh.iohcpp.problem.PBO)
        for _ in range(budget):
            problem(self.rng.integers(0, 2, len(lb)) if binary else self.rng.uniform(lb, ub))


class OnePlusOneES:
    """(1+1)-ES with the 1/5th success rule; `sigma` is its step size (tracked by the logger)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.sigma = 1.0

    def __call__(self, problem, budget: int) -> None:
        lb, ub = problem.bounds.lb, problem.bounds.ub
        self.sigma = 1.0
        x = self.rng.uniform(lb, ub)
        fx = problem(x)
        for _ in range(budget - 1):
            y = np.clip(x + self.sigma * self.rng.standard_normal(len(x)), lb, ub)
            fy = problem(y)
            if fy <= fx:
                x, fx = y, fy
                self.sigma *= 1.5
            else:
                self.sigma *= 1.5 ** -0.25


class OnePlusOneEA:
    """(1+1)-EA with standard bit mutation (rate 1/n), maximising."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def __call__(self, problem, budget: int) -> None:
        n = problem.meta_data.n_variables
        x = self.rng.integers(0, 2, n)
        fx = problem(x)
        for _ in range(budget - 1):
            flip = self.rng.random(n) < 1.0 / n
            y = np.where(flip, 1 - x, x)
            fy = problem(y)
            if fy >= fx:
                x, fx = y, fy


def _run(folder: Path, name: str, info: str, algorithm, problems, runs: int, budget, triggers=None,
         watch: str | None = None, positions: bool = False) -> None:
    """Run `algorithm` `runs` times on each problem, logged by one Analyzer under folder/name."""
    kw = {"triggers": triggers} if triggers is not None else {}
    logger = ioh.logger.Analyzer(root=str(folder), folder_name=name, algorithm_name=name, algorithm_info=info,
                                 store_positions=positions, **kw)
    if watch:
        logger.watch(algorithm, watch)
    problems.attach_logger(logger)
    for problem in problems:
        for _ in range(runs):
            algorithm(problem, budget(problem))
            problem.reset()
    logger.close()


def _pack(folder: Path, out: Path) -> None:
    """A .tgz of the folder's content, entries sorted, with fixed times and owners."""
    def clean(ti: tarfile.TarInfo) -> tarfile.TarInfo:
        ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
        return ti

    with tarfile.open(out, "w:gz") as tf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                tf.add(p, arcname=p.relative_to(folder).as_posix(), filter=clean)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    def bbob():
        return ioh.suite.BBOB([1, 2, 3], [1, 2, 3], [2, 5])

    def pbo():
        return ioh.suite.PBO([1, 2], [1], [16])

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sets = {
            "bbob": [("RandomSearch", "uniform random search", RandomSearch(1), bbob(), {}),
                     ("OnePlusOneES", "(1+1)-ES, 1/5th success rule", OnePlusOneES(2), bbob(), {"watch": "sigma"})],
            "pbo": [("RandomSearch", "uniform random bit strings", RandomSearch(3), pbo(),
                     {"triggers": [ioh.logger.trigger.ALWAYS]}),
                    ("OnePlusOneEA", "(1+1)-EA, rate 1/n", OnePlusOneEA(4), pbo(), {"triggers": [ioh.logger.trigger.ALWAYS]})],
            "modes": [("OnePlusOneES-budgets", "(1+1)-ES, fixed budgets", OnePlusOneES(5), ioh.suite.BBOB([1], [1], [2]),
                       {"watch": "sigma", "positions": True,
                        "triggers": [ioh.logger.trigger.Each(10), ioh.logger.trigger.At({1, 5, 25})]})],
        }
        budgets = {"bbob": lambda p: 200 * p.meta_data.n_variables, "pbo": lambda p: 300, "modes": lambda p: 100}
        for set_name, algs in sets.items():
            folder = root / set_name
            for name, info, alg, problems, kw in algs:
                _run(folder, name, info, alg, problems, 3 if set_name != "pbo" else 5, budgets[set_name], **kw)
            _pack(folder, out / f"{set_name}.tgz")
            shutil.rmtree(folder)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "ioh")
