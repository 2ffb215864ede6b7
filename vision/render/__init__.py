"""The renderer: game states as a camera above a real table sees them, with ground truth.

For the tests, the benchmarks and the demo's simulated camera only: no reader imports
it (``tests/test_layers.py``). See ``docs/calibration.md`` ("The renderer").
"""
