"""One reader per game: a camera frame to an observation in the words of ``rules`` (what
stands on each place, with a confidence; "unknown" where the view is hidden), from the
board's registration and the copy's appearance profile. Readers never decide legality,
and never import the renderer (a test enforces it)."""
