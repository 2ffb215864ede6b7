"""Camera frames to board observations in the words of ``rules``, with a confidence.
Uses ``calibration`` (never the reverse); never decides whether a move is legal."""
