"""The bbob-biobj quality indicator recomputed from the archives of non-dominated solutions
(seed 002), stored beside the logged one; `Analysis(indicator="recomputed")` reads it."""
from .indicator import distance_to_roi, normalise, sweep, trajectory, within_roi
from .points import BiobjError, problem_points
from .recompute import (NAME, VERSION, RecomputeSummary, read_reference_values, recompute, recomputed_events,
                        recomputed_frame, stale_sources)

__all__ = ["NAME", "VERSION", "BiobjError", "RecomputeSummary", "distance_to_roi", "normalise", "problem_points",
           "read_reference_values", "recompute", "recomputed_events", "recomputed_frame", "stale_sources", "sweep",
           "trajectory", "within_roi"]
