"""The declarations of the measures of this package (`registry.Measure`), each in terms of its module's
functions: the same calls, with the same arguments, as the facade made before the registry (no number
changes). A measure added later declares itself in its own module (`median.py`).

Declaring loads no library: the command line reads these declarations to build its commands, and
`cocopipe --help` imports no polars (`tests/test_cli.py`); each specification imports its measure's
module when it runs. The constants copied here (the key columns, modes, transforms) are held equal to
their modules' by `tests/test_measure_contract.py`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import facade_docs as docs
from .checked import (ALPHA, BAND_LEVEL, CORRECTION, CORRECTIONS, GROUP_PARAM, LEVEL, MAX_X, MODE, MODES,  # noqa: F401
                      POSITIVE, REPLICATES, SAMPLES_ART, SAMPLES_ECDF, SEED)
from .registry import (BOOL, FRAME, NAMES, NONE, Check, Inputs, Interval, InvalidSetting, Items, Measure, Memory,
                       NumberText, Options, Param, register, settings_class)

if TYPE_CHECKING:
    import polars as pl

#: `pipeline.hits.spec.PROBLEM`, `ecdf.MODES`, `profiles.TRANSFORMS`, `profiles.STEP_KEYS`, `vocabulary.TABLE_CELL`
from ..vocabulary import PROBLEM  # noqa: E402 - the one definition of the key
TRANSFORMS = ("log10", "linear")
PROFILE_STEP_KEYS = ("suite", "algorithm", "dimension", "group")
TEST_KEY = ("suite", "dimension", "function")
ECDF_SUMMARY = ("suite", "algorithm", "dimension", "group", "final_fraction", "solvable_fraction", "max_x",
                "median_max_evaluations", "instance_targets", "functions", "trials")


def _module(name: str):
    """The module `name` of `pipeline.measures`, imported when a specification runs."""
    import importlib

    return importlib.import_module(f"{__package__}.{name}")


ECDF_KEY = ("suite", "algorithm", "dimension")
STEPS = (*ECDF_KEY, "group", "x", "fraction")
ART_KEYS = (*PROBLEM, "target")
ART_ORDER = (False, False, False, False, True)
ART_COLUMNS = (*ART_KEYS, "art", "successes", "runs", "success_rate", "trials", "mean_success_runtime",
               "median_success_runtime", "median_unsuccessful_evaluations")
IOH = (*PROBLEM, "quantity")


def _as_quantity(table: pl.LazyFrame, inputs: Inputs, raw: list[str]) -> pl.LazyFrame:
    """A table of one quantity, labelled: raw values oriented back (columns `raw`), or precisions."""
    from . import values as values_m

    if inputs.selection.quantity == "value":
        return values_m.to_raw(table, inputs.runs(), raw)
    return values_m.labelled(table)


# -- fixed targets ---------------------------------------------------------------------------------------------
def _art(inputs: Inputs, s) -> pl.LazyFrame:
    from . import art as art_m

    return art_m.art(inputs.hits(), s.dispersion, s.percentiles, s.samples, s.seed, s.confidence)


register(Measure(
    name="art", doc=docs.ART, handwritten="cocopipe art",
    summary="Average runtime per problem and target, its dispersion and bootstrap interval.",
    seed="seed 000, Averaging Runtime", inputs=("hits",), keys=ART_KEYS, descending=ART_ORDER, balance=True,
    settings=settings_class("art", [
        Param("dispersion", False, (BOOL,), "Add the percentiles of simulated restart runtimes."),
        SAMPLES_ART, SEED,
        Param("percentiles", (10, 50, 90), (Items(Interval(float, 0, 100)),), "Percentiles of the dispersion.",
              option=False),
        Param("confidence", None, (NONE, *LEVEL), "Add a bootstrap interval of aRT at this level.")]),
    spec=_art, kernel="restarts:art_dispersion",
    columns=lambda s: (*ART_COLUMNS, *([f"p{p:g}" for p in s.percentiles] if s.dispersion else []),
                       *(["art_low", "art_high"] if s.confidence else [])),
    charts=("scaling", "scatter", "art-ratio")))

register(Measure(
    name="simulated_runtimes", doc=docs.SIMULATED_RUNTIMES,
    summary="Runtimes of simulated restarts per problem, target and sample.",
    seed="seed 000, Simulated Restarts and Runtimes", inputs=("hits",), keys=(), groupable=False,
    settings=settings_class("simulated_runtimes", [
        Param("samples", 1000, (POSITIVE,), "Simulated runs per problem and target.", memory=Memory(48, "cells")),
        SEED,
        Param("first_deterministic", True, (BOOL,), "The first sample starts from the first trial (as cocopp).")]),
    spec=lambda i, s: _module("restarts").simulated_runtimes(i.hits(), s.samples, s.seed, s.first_deterministic),
    columns=(*ART_KEYS, "sample", "runtime"), charts=("rt-ecdf",)))


def _ert(inputs: Inputs, s) -> pl.LazyFrame:
    """ERT sorted by problem, then from the easiest target to the hardest as oriented (on values: -value when
    maximising) before the raw targets are put back: the engine keeps that order within a problem."""
    import polars as pl

    from . import ert as ert_m

    hits, sel = inputs.hits(), inputs.selection
    if s.eval_max is not None:
        table = ert_m.ert(hits, s.eval_max)
    else:  # each run charged its own length: its last logged evaluation, at most the budget cut
        length = pl.col("last_evaluation").cast(pl.Float64)
        if sel.max_budget is not None:
            length = pl.min_horizontal(length, sel.max_budget.limit())
        lengths = sel._trials().select("run_id", length=length)
        table = ert_m.ert(hits.join(lengths, on="run_id", how="left"), pl.col("length"))
    return _as_quantity(table, inputs, ["target"])


register(Measure(
    name="ert", doc=docs.ERT, handwritten="cocopipe ert",
    summary="IOHprofiler's expected running time per problem and target, on precisions and values.",
    seed="IOHanalyzer's ERT (docs/ioh.md)", inputs=("hits", "runs"), keys=PROBLEM, quantities=True,
    settings=settings_class("ert", [
        Param("eval_max", None, (NONE, Interval(float, 0, None, "neither")),
              "What an unsuccessful run is charged (default: its own length).")]),
    spec=_ert, columns=(*IOH, "target", "ert", "successes", "runs")))


# -- ECDFs ----------------------------------------------------------------------------------------------------
def _trials(inputs: Inputs):
    """The part's prepared ECDF trials: kept by the facade for its next table, or computed now."""
    from . import ecdf as ecdf_m

    if inputs.kept is not None:
        return inputs.kept.trials(inputs.selection, inputs.targets, inputs.plan)
    return ecdf_m.prepare(inputs.hits().collect())


def _steps(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import ecdf as ecdf_m

    budget = inputs.selection.max_budget
    return pl.defer(lambda: ecdf_m.ecdf_table(_trials(inputs), s.group, mode=s.mode, samples=s.samples, seed=s.seed,
                                              max_budget=budget, max_x=s.max_x), schema=ecdf_m.STEP_SCHEMA)


def _summary(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import ecdf as ecdf_m

    budget = inputs.selection.max_budget
    return pl.defer(lambda: ecdf_m.summary_table(_trials(inputs), s.group, mode=s.mode, max_budget=budget,
                                                 max_x=s.max_x), schema=ecdf_m.SUMMARY_SCHEMA)


register(Measure(
    name="ecdf.steps", doc=docs.ECDF_STEPS, handwritten="cocopipe ecdf",
    summary="Runtime ECDF step table per function group and dimension.",
    seed="seed 000, Empirical Distribution Functions", inputs=("hits",), keys=(*ECDF_KEY, "group", "x"),
    balance=True, presorted=True,
    settings=settings_class("ecdf.steps", [GROUP_PARAM, MODE, SAMPLES_ECDF, SEED, MAX_X]),
    spec=_steps, kernel="ecdf:ecdf_spec", columns=STEPS, charts=("ecdf", "ecdf-explorer")))

register(Measure(
    name="ecdf.summary", doc=docs.ECDF_SUMMARY, handwritten="cocopipe ecdf --summary",
    summary="What an ECDF figure marks besides its steps: final fraction, range, median length.",
    seed="seed 000, Empirical Distribution Functions", inputs=("hits",), keys=(*ECDF_KEY, "group"),
    balance=True, presorted=True,
    settings=settings_class("ecdf.summary", [GROUP_PARAM, MODE, MAX_X]),
    spec=_summary, kernel="ecdf:ecdf_summary_spec", columns=ECDF_SUMMARY, charts=("ecdf",)))

register(Measure(
    name="ecdf.band", doc=docs.ECDF_BAND, handwritten="cocopipe ecdf --band 0.95",
    summary="The runtime ECDF with a bootstrap confidence band.",
    seed="seed 000, Empirical Distribution Functions; bootstrap percentile band", inputs=("hits",),
    keys=(*ECDF_KEY, "group", "x"),
    settings=settings_class("ecdf.band", [
        GROUP_PARAM, Param("mode", "trials", MODE.constraints, MODE.help),
        BAND_LEVEL, REPLICATES, SEED,
        SAMPLES_ECDF, MAX_X]),
    spec=lambda i, s: _module("uncertainty").ecdf_band(i.hits(), s.group, mode=s.mode, level=s.level,
                                                         replicates=s.replicates, seed=s.seed, samples=s.samples,
                                                         max_budget=i.selection.max_budget, max_x=s.max_x),
    columns=(*STEPS, "low", "high"), charts=("ecdf",)))

register(Measure(
    name="ecdf.per_instance", doc=docs.ECDF_PER_INSTANCE, handwritten="cocopipe ecdf --per-instance",
    summary="The runtime ECDF of every instance alone.",
    seed="seed 000, Empirical Distribution Functions", inputs=("hits",), keys=(*ECDF_KEY, "group", "instance", "x"),
    settings=settings_class("ecdf.per_instance", [
        GROUP_PARAM, Param("mode", "trials", MODE.constraints, MODE.help), SAMPLES_ECDF, SEED, MAX_X]),
    spec=lambda i, s: _module("uncertainty").ecdf_per_instance(i.hits(), s.group, mode=s.mode, samples=s.samples,
                                                                 seed=s.seed, max_budget=i.selection.max_budget,
                                                                 max_x=s.max_x),
    columns=(*STEPS, "instance"), charts=("ecdf",)))


# -- areas and rankings ---------------------------------------------------------------------------------------
def _auc_budgets(inputs: Inputs, s) -> pl.LazyFrame:
    """The budgets of the areas: as given, else across every algorithm of the selection (so that their
    areas compare)."""
    from . import auc as auc_m

    if getattr(s, "budgets", None) is not None:
        return s.budgets.lazy()
    return auc_m.budgets(inputs.runs(), inputs.selection.max_budget).collect().lazy()


BUDGETS_OF_AUC = Param("budgets", None, (NONE, FRAME), "The budgets of the areas: suite, function, dimension, "
                       "budget (default: `auc.budgets` of the whole selection).", option=False)


register(Measure(
    name="auc", doc=docs.AUC, handwritten="cocopipe auc",
    summary="Area under the ECDF of the trials' own first hitting times per problem.",
    seed="seed 000, Empirical Distribution Functions (area)", inputs=("hits", "runs"), keys=PROBLEM,
    prepare=_auc_budgets, settings=settings_class("auc", [BUDGETS_OF_AUC]),
    spec=lambda i, s: _module("auc").auc(i.hits(), i.shared), columns=(*PROBLEM, "budget", "auc")))


def _suite_first(frame: pl.DataFrame, inputs: Inputs) -> pl.LazyFrame:
    """A ranking of one suite's part, with the suite as its first column."""
    import polars as pl

    suite = inputs.selection.filters["suite"]
    return frame.lazy().select(pl.lit(suite[0] if suite else None, pl.String).alias("suite"), pl.all())


def _rank(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import auc as auc_m, ranking

    if s.aucs is not None:  # areas computed already (the report's): this part's suite of them
        aucs = s.aucs.lazy().filter(pl.col("suite").is_in(list(inputs.selection.suites())))
    else:
        aucs = auc_m.auc(inputs.hits(), _auc_budgets(inputs, s))
    ranks = ranking.rank_by_auc(aucs, by_dimension=not s.overall, alpha=s.alpha)
    return _suite_first(ranks, inputs) if ranks.height else pl.LazyFrame(schema=dict.fromkeys(_rank_columns(s)))


def _rank_columns(s) -> tuple[str, ...]:
    return ("suite", *([] if s.overall else ["dimension"]), "algorithm", "rank", "score", "problems",
            "friedman_statistic", "friedman_p", "critical_difference")


OVERALL = Param("overall", False, (BOOL,), "One ranking over all dimensions instead of one per dimension.")
register(Measure(
    name="rank", handwritten="cocopipe rank",
    summary="Mean rank of per-function auc, the Friedman test and the Nemenyi critical difference.",
    seed="seed 003, Statistical Analysis (ranks)", inputs=("hits", "runs"), keys=(), groupable=False, split=("suite",),
    settings=settings_class("rank", [
        OVERALL, Param("alpha", 0.05, LEVEL, "Level of the Nemenyi critical difference."),
        Param("aucs", None, (NONE, FRAME), "Areas computed already (`auc`): ranked instead of the selection's.",
              option=False)]),
    spec=_rank, columns=_rank_columns, charts=()))


def _glicko(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import ranking

    ratings = ranking.glicko2(inputs.hits(), rounds=s.rounds, seed=s.seed, by_dimension=not s.overall)
    return _suite_first(ratings, inputs) if ratings.height else pl.LazyFrame(schema=dict.fromkeys(_glicko_columns(s)))


def _glicko_columns(s) -> tuple[str, ...]:
    return ("suite", *([] if s.overall else ["dimension"]), "algorithm", "rank", "score", "deviation", "volatility")


register(Measure(
    name="glicko2", handwritten="cocopipe rank --by glicko2",
    summary="Glicko-2 ratings of the algorithms, from games of drawn trials.",
    seed="seed 003, Statistical Analysis (Glicko-2)", inputs=("hits",), keys=(), groupable=False, split=("suite",),
    settings=settings_class("glicko2", [
        OVERALL, Param("rounds", 25, (Interval(int, 1, 10_000),), "Trials drawn per algorithm and problem.",
                       memory=Memory(16, "trials")), SEED]),
    spec=_glicko, kernel="ranking:glicko2_spec", columns=_glicko_columns))


PAIRWISE = (*TEST_KEY, "target", "algorithm_a", "algorithm_b", "trials_a", "trials_b", "art_a", "art_b", "statistic",
            "p_value", "better", "consistent")


def _pairwise_schema() -> dict:
    import polars as pl

    return dict(zip(PAIRWISE, (pl.String, pl.Int32, pl.Int32, pl.Float64, pl.String, pl.String, pl.Int64, pl.Int64,
                               pl.Float64, pl.Float64, pl.Float64, pl.Float64, pl.String, pl.Boolean)))


def _pairwise(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import significance

    order = s.order if s.order is not None else inputs.selection.algorithms()
    hits = inputs.hits().collect()
    pairs = hits.group_by(list(TEST_KEY)).agg(pl.col("algorithm").n_unique()).filter(pl.col("algorithm") >= 2)
    if not pairs.height:  # no problem with two algorithms (an empty part): no test
        return pl.LazyFrame(schema=_pairwise_schema())
    return significance.pairwise_tests(hits, inputs.records(), order).lazy()


register(Measure(
    name="pairwise", handwritten="cocopipe table --pairwise",
    summary="Rank-sum test of every pair of algorithms per problem and target.",
    seed="seed 003, Statistical Analysis", inputs=("hits", "records"), keys=(), groupable=False,
    split=("suite", "dimension"),
    settings=settings_class("pairwise", [
        Param("order", None, (NONE, NAMES), "The algorithms in order: a pair (a, b) has a before b.", option=False)]),
    spec=_pairwise, kernel="significance:pairwise_tests_spec",
    columns=PAIRWISE))


# -- target-free profiles -------------------------------------------------------------------------------------
#: `profiles.RULES`: the rule names each parameter takes besides numbers (also as text) and frames
PROFILE_RULES = {"f0": ("observed",), "delta": ("first-improvement",), "f_inf": ("target", "observed"),
                 "eps": ("target", "improvement")}


def _rule(name: str, low: float | None) -> tuple:
    """What a profile parameter takes: its rule names, a finite number (at least `low`), as text too, or a frame."""
    return (Options(PROFILE_RULES[name]), NumberText(low, closed=True), Interval(float, low, None), FRAME)


PROFILE_PARAMS = [
    GROUP_PARAM, Param("transform", "log10", (Options(TRANSFORMS),), "Scale of the precisions."),
    Param("f0", "observed", _rule("f0", None), "Starting value: observed, a number or a frame."),
    Param("delta", 0.0, _rule("delta", 0), "Shift: first-improvement, a number or a frame."),
    Param("f_inf", "target", _rule("f_inf", None), "Final value: target, observed, a number or a frame."),
    Param("eps", "target", _rule("eps", 0), "Precision floor: target, improvement, a number or a frame."),
    Param("shared", True, (BOOL,), "Parameters shared by the algorithms selected together.")]


def _profile_settings(s):
    from . import profiles

    return profiles.Settings(s.transform, s.f0, s.delta, s.f_inf, s.eps, s.shared)


def _profile_parameters(inputs: Inputs, s):
    """The groups checked, and the parameters of the whole selection (one scale for every group)."""
    from . import profiles

    runs = inputs.runs()
    profiles.check_groups(runs, s.group)
    if inputs.plan is not None and inputs.plan.group_size:
        return profiles.parameters(runs, inputs.records(), _profile_settings(s)).collect().lazy()
    return None


def _profile_table(table: str):
    """The specification of the profile table `table` (steps or summary) of `pipeline.measures.profiles`."""
    def spec(inputs: Inputs, s) -> pl.LazyFrame:
        from . import profiles

        runs = inputs.runs()
        values = profiles.checked_run_profiles(runs, inputs.records(), _profile_settings(s), inputs.shared)
        return getattr(profiles, table)(values, runs, s.group)
    return spec


PROFILE_KEYS = (*PROFILE_STEP_KEYS, "x")
register(Measure(
    name="profile.steps", doc=docs.PROFILE_STEPS, handwritten="cocopipe profile",
    summary="Target-free runtime profile as a step table.", seed="seed 004, target-free profiles",
    inputs=("runs", "records"), keys=PROFILE_KEYS, targets=False, prepare=_profile_parameters,
    settings=settings_class("profile.steps", PROFILE_PARAMS), spec=_profile_table("steps"),
    columns=(*PROFILE_STEP_KEYS, "x", "value"), charts=("profile",)))

register(Measure(
    name="profile.summary", doc=docs.PROFILE_SUMMARY, handwritten="cocopipe profile --summary",
    summary="Last value and range of each target-free profile.",
    seed="seed 004, target-free profiles", inputs=("runs", "records"), keys=PROFILE_KEYS, targets=False,
    prepare=_profile_parameters, settings=settings_class("profile.summary", PROFILE_PARAMS),
    spec=_profile_table("summary"),
    columns=(*PROFILE_STEP_KEYS, "final_value", "start_x", "max_x", "functions", "trials"), charts=("profile",)))


# -- fixed budgets (IOHprofiler's measures) ---------------------------------------------------------------------
BUDGETS = Param("budgets", (), (Items(Interval(float, 0, None, "neither")),),
                "Budgets in evaluations, or multiples of the dimension.", option=False, required=True)


def parse_budgets(spec: str) -> list:
    """Budgets 'v1,v2,...', all in evaluations or all multiples of the dimension (Nx), the numbers read and
    checked by the measures' declared `budgets` (`BUDGETS`, as Python's calls are): `InvalidSetting`
    naming them for none, a number it refuses, or budgets of both kinds.

    >>> parse_budgets("10x, 100x")
    [Budget(value=10.0, per_dimension=True), Budget(value=100.0, per_dimension=True)]
    >>> parse_budgets("10,-5")
    Traceback (most recent call last):
    ...
    pipeline.measures.registry.InvalidSetting: budgets [10, -5]: expected a list of numbers > 0
    """
    from ..hits.budget import Budget  # when called: the declarations stay light to import

    parts = [part.strip().lower() for part in spec.split(",") if part.strip()]
    if not parts:  # ", ": named as written
        raise InvalidSetting(f"budgets {spec!r}: expected {BUDGETS.accepts}", setting="budgets")
    kinds = {part.endswith("x") and len(part) > 1 for part in parts}  # "x" alone: no number, refused below
    if len(kinds) > 1:
        raise InvalidSetting(f"budgets {spec!r}: give all in evaluations or all as multiples of the dimension "
                             "(Nx)", setting="budgets")
    values = BUDGETS.parse(",".join(part.removesuffix("x") if len(part) > 1 else part for part in parts))
    return [Budget(float(v), kinds == {True}) for v in values]


PER_DIMENSION = Param("per_dimension", False, (BOOL,), "The budgets are multiples of the dimension.")
LOWER = Param("lower", 1e-8, (Interval(float),), "Bound of the precisions normalised to [0, 1].")
UPPER = Param("upper", 1e8, (Interval(float),), "Bound of the precisions normalised to [0, 1].")
LOG = Param("log", True, (BOOL,), "Normalise on a log scale.")
#: IOHinspector's normalisation reads (log10 x - log10 lower) / (log10 upper - log10 lower)
BOUNDS = (Check("lower", lambda s: not s.log or s.lower > 0, lambda s: "a number > 0 on a log scale (log=True)"),
          Check("upper", lambda s: s.upper > s.lower, lambda s: f"a number > lower {s.lower!r}"))


def _fixed_budget(inputs: Inputs, s) -> pl.LazyFrame:
    from . import runtime, values as values_m

    table = _as_quantity(runtime.fixed_budget(inputs.runs(), inputs.records(), list(s.budgets), s.per_dimension),
                         inputs, ["best_delta"])
    return runtime.fixed_budget_summary(table, by=(values_m.QUANTITY,)) if s.summary else table


register(Measure(
    name="fixed_budget", doc=docs.FIXED_BUDGET, handwritten="cocopipe budget",
    summary="Best precision reached within given budgets, per trial or as quantiles.",
    seed="seed 000, fixed-budget view", inputs=("runs", "records"), keys=(), groupable=False, quantities=True,
    targets=False,
    settings=settings_class("fixed_budget", [
        BUDGETS, PER_DIMENSION, Param("summary", True, (BOOL,), "Quantiles per problem and budget."),
        Param("quantity", None, (NONE, Options(("precision", "value"))), "Only precisions, or only values.")]),
    spec=_fixed_budget,
    columns=lambda s: ((*IOH, "budget", "budget_evaluations", "median", "q10", "q25", "q75", "q90", "runs",
                        "runs_with_data") if s.summary else ()),
    charts=("convergence",)))


def _fixed_budget_ecdf(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import aocc as aocc_m, values as values_m

    runs, events, values = inputs.runs(), inputs.records(), inputs.selection.quantity == "value"
    if not s.per_dimension:
        table = aocc_m.fixed_budget_ecdf(runs, events, list(s.budgets), s.lower, s.upper, s.log, values)
    else:
        dims = runs.select("dimension").unique().collect()["dimension"].to_list()
        table = pl.concat([aocc_m.fixed_budget_ecdf(runs.filter(pl.col("dimension") == d), events,
                                                    [b * d for b in s.budgets], s.lower, s.upper, s.log, values)
                           for d in dims])
    return values_m.to_raw(table, runs, []) if values else values_m.labelled(table)


register(Measure(
    name="fixed_budget_ecdf", doc=docs.FIXED_BUDGET_ECDF, handwritten="cocopipe fixed-budget-ecdf --budgets 10x,100x",
    summary="IOHprofiler's fixed-budget ECDF per problem and budget.",
    seed="IOHinspector (docs/ioh.md)", inputs=("runs", "records"), keys=(), groupable=False, quantities=True,
    targets=False,
    settings=settings_class("fixed_budget_ecdf", [BUDGETS, PER_DIMENSION, LOWER, UPPER, LOG], BOUNDS),
    spec=_fixed_budget_ecdf, columns=(*IOH, "budget", "fraction", "runs")))


def _aocc(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from . import aocc as aocc_m, auc as auc_m, values as values_m

    runs, values, budget = inputs.runs(), inputs.selection.quantity == "value", inputs.selection.max_budget
    longest = pl.col("last_evaluation").max().cast(pl.Float64)
    b = auc_m.budgets(runs, budget) if budget is not None else runs.group_by(list(PROBLEM)).agg(budget=longest)
    table = aocc_m.aocc(runs, inputs.records(), b, s.lower, s.upper, s.log, values)
    return values_m.to_raw(table, runs, []) if values else values_m.labelled(table)


register(Measure(
    name="aocc", doc=docs.AOCC, handwritten="cocopipe aocc",
    summary="IOHprofiler's area over the convergence curve per problem.",
    seed="IOHinspector (docs/ioh.md)", inputs=("runs", "records"), keys=(), groupable=False, quantities=True,
    targets=False, settings=settings_class("aocc", [LOWER, UPPER, LOG], BOUNDS),
    spec=_aocc, columns=(*IOH, "budget", "aocc", "runs")))


# -- the tables' medians and the figures' crosses ----------------------------------------------------------------
register(Measure(
    name="final_medians", doc=docs.FINAL_MEDIANS,
    summary="Median final precision and evaluations of the trials per problem.",
    seed="cocopp's pptable (the median final precision of an unsolved problem)", inputs=("runs",), keys=PROBLEM,
    targets=False, settings=settings_class("final_medians", []),
    spec=lambda i, s: _module("table_stats").final_medians(i.runs()),
    columns=(*PROBLEM, "median_final_delta", "median_evaluations")))

register(Measure(
    name="median_max_evaluations", doc=docs.MEDIAN_MAX_EVALUATIONS,
    summary="Median of the trials' evaluations / dimension per function group and dimension.",
    seed="cocopp's pprldmany (the cross of the ECDF figures)", inputs=("runs",), keys=(*ECDF_KEY, "group"),
    targets=False, settings=settings_class("median_max_evaluations", [
        Param("group", "all", GROUP_PARAM.constraints, GROUP_PARAM.help)]),
    spec=lambda i, s: _module("groups").median_max_evaluations(i.runs(), s.group),
    columns=(*ECDF_KEY, "group", "median_max_evaluations")))
