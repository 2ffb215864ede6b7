"""Everything that ties pixels to the world: the camera's intrinsics, the board's pose
from its fiducial markers in every frame, colour correction from reference patches, and
the appearance of a user's own copy learnt from a few photos. Results are versioned JSON
files in the instance folder. Uses OpenCV and numpy; knows ``rules`` only for its
vocabulary (games, kits), never ``vision`` (DESIGN.md, "Layers")."""
