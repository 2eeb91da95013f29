"""Imported last by the workers' fork server (`runner.PRELOAD`), after the report's modules: the objects those
imports made are frozen out of the garbage collector (`gc.freeze`, as its documentation advises before
forking), so that the workers it forks neither collect them again nor copy their memory by touching it,
and the server's exit does not collect them one by one.
"""
import gc

gc.freeze()
