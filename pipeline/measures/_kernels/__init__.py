"""Private fast paths of the measures: numpy kernels, each equal to the readable Polars definition in
the public module beside it (property tests in tests/test_kernels.py). Nothing here is public API."""
