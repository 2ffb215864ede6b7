"""Rolls from accelerometer samples: no pins, no clock, no globals.

A die at rest measures 1 g pointing up, out of its top face. ``RollDetector`` follows
the samples (time in milliseconds, acceleration in g along the sensor's three axes):

- **at rest**: the average of the last 4 samples within 0.03 g of the window's mean for
  0.4 s, at about 1 g;
- **moving**: 0.12 g away from the rest reading for two samples in a row. While it
  moves it notes the evidence of a throw: **free fall** (below 0.35 g: in the air),
  the **shock** of landing (2.5 g or more), and **rotation** (each new face that is up
  for two samples in a row while the reading is about 1 g: a tumble over an edge);
- a movement of less than 0.12 s that changed no face is a knock on the table, and says
  nothing. Anything longer says ``ROLLING`` once, and at the next rest its outcome:

  - thrown (tumbled over 2 or more edges, or over one after the shock of a landing) and
    at rest flat, within 10 degrees of a face: ``ROLL`` with the face up;
  - thrown, at rest 10 to 30 degrees off (leaning on something): ``BADROLL tilted``;
  - thrown, at rest more than 30 degrees off (on an edge, a corner): ``BADROLL crooked``;
  - not thrown (slid, lifted and set down, turned once by hand, dropped from the hand
    with the face it was held with, set down hard): ``BADROLL handled``.

Only tumbling makes a throw. Time in the air alone does not (a die dropped a few cm
from the hand falls for 90 ms and lands as it was held), nor does a shock alone (a die
turned by hand and set down firmly): the face must change by itself, over edges, after
it left the hand. Free fall is not needed either, which matters because a sensor away
from the die's centre reads the spin (centripetal acceleration) in the air, not 0 g.

The face up is the axis (and sign) of the largest component of the rest reading; which
face that is depends on how the board sits in the case: ``faces`` names the face on
the +x, -x, +y, -y, +z and -z sides (opposite faces add up to 7).
"""

DEFAULT_FACES = (2, 5, 3, 4, 1, 6)  # +x, -x, +y, -y, +z, -z

REST_MS = 400  # still this long: at rest
STILL_G = 0.03  # each sample this close to the window's mean
REST_MAGNITUDE = 0.15  # at rest the reading is 1 g give or take this (cheap sensors' offsets)
MOVE_G = 0.12  # this far from the rest reading, two samples in a row: moving
KNOCK_MS = 120  # moving less than this, no face changed: a knock, not a handling
FREEFALL_G = 0.35
FREEFALL_MS = 80  # this long in the air says ROLLING at once (it is no throw by itself)
SHOCK_G = 2.5  # a landing: a tumble after it is a throw
TUMBLING_G = (0.7, 1.3)  # a reading counts for the face up when about 1 g
TUMBLE_COS = 0.866  # and within 30 degrees of a face
FACE_SAMPLES = 2
SMOOTH = 4  # samples averaged for the rest test (sensor noise halved)
STILL_SAMPLES = 50  # the rest window's mean: over about the last half second
THROW_TUMBLES = 2
FLAT_COS = 0.985  # cos 10 degrees
TILTED_COS = 0.866  # cos 30 degrees


def magnitude(x, y, z):
    return (x * x + y * y + z * z) ** 0.5


def face_up(x, y, z, faces=DEFAULT_FACES):
    """``(face, cos)``: the face whose side the reading points out of, and the cosine of
    the angle between the reading and that side's axis (1.0 is perfectly flat)."""
    size = magnitude(x, y, z)
    if size == 0:
        return 0, 0.0
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        return faces[0 if x > 0 else 1], ax / size
    if ay >= az:
        return faces[2 if y > 0 else 3], ay / size
    return faces[4 if z > 0 else 5], az / size


def check_faces(faces):
    if sorted(faces) != [1, 2, 3, 4, 5, 6] or any(faces[i] + faces[i + 1] != 7 for i in (0, 2, 4)):
        raise ValueError("faces: 1 to 6 for +x, -x, +y, -y, +z, -z, opposite sides adding to 7")
    return tuple(faces)


class _Still:
    """A window of samples that stay close to their mean: the die at rest. The mean is a
    running one over about the last ``STILL_SAMPLES`` samples: no sum grows while the die
    lies still for hours (MicroPython's floats are 32 bits on a board), and a sensor's
    slow drift (warming up) is followed, not taken for a movement."""

    def __init__(self):
        self.start = None
        self.n = 0
        self.mx = self.my = self.mz = 0.0

    def update(self, t, x, y, z):
        """Take a sample; False when it broke the window (a new one begins with it)."""
        if abs(magnitude(x, y, z) - 1.0) > REST_MAGNITUDE:
            self.start = None
            self.n = 0
            return False
        if self.n:
            if magnitude(x - self.mx, y - self.my, z - self.mz) > STILL_G:
                self.begin(t, x, y, z)
                return False
            if self.n < STILL_SAMPLES:
                self.n += 1
            k = 1.0 / self.n
            self.mx += (x - self.mx) * k
            self.my += (y - self.my) * k
            self.mz += (z - self.mz) * k
            return True
        self.begin(t, x, y, z)
        return True

    def begin(self, t, x, y, z):
        self.start = t
        self.n = 1
        self.mx, self.my, self.mz = x, y, z

    def held(self, t):
        return self.start is not None and t - self.start >= REST_MS

    def mean(self):
        return self.mx, self.my, self.mz


class RollDetector:
    """Samples in, outcomes out: ``update`` returns a list, empty or with one of
    ``("ROLLING",)``, ``("ROLL", face)``, ``("BADROLL", why)``."""

    def __init__(self, faces=DEFAULT_FACES):
        self.faces = check_faces(faces)
        self.state = "settling"  # boot: the first rest is the starting point, no outcome
        self.still = _Still()
        self.rest = None  # the rest reading (x, y, z)
        self.rest_face = 0
        self.away = 0  # samples in a row away from the rest reading
        self.last = None  # the outcome of the last episode, for the tests' eyes
        self.recent = []  # the last SMOOTH samples

    def update(self, t, x, y, z):
        recent = self.recent
        recent.append((x, y, z))
        if len(recent) > SMOOTH:
            recent.pop(0)
        n = len(recent)
        quiet = self.still.update(
            t,
            sum(r[0] for r in recent) / n,
            sum(r[1] for r in recent) / n,
            sum(r[2] for r in recent) / n,
        )
        if self.state == "rest":
            rx, ry, rz = self.rest
            if magnitude(x - rx, y - ry, z - rz) > MOVE_G:
                self.away += 1
                if self.away >= 2:
                    self._begin(t)
                    return self._moving(t, x, y, z, quiet)
            else:
                self.away = 0
            return []
        if self.state == "moving":
            return self._moving(t, x, y, z, quiet)
        if self.still.held(t):  # settling
            self._settle()
        return []

    def _settle(self):
        self.rest = self.still.mean()
        self.rest_face = face_up(self.rest[0], self.rest[1], self.rest[2], self.faces)[0]
        self.state = "rest"
        self.away = 0

    def _begin(self, t):
        self.state = "moving"
        self.started = t
        self.moved_until = t
        self.announced = False
        self.face = self.rest_face
        self.candidate = 0
        self.candidate_n = 0
        self.tumbles = 0
        self.landed_tumbles = 0  # tumbles after the first shock of 2.5 g or more
        self.fall_start = None
        self.airborne = 0
        self.peak = 0.0

    def _moving(self, t, x, y, z, quiet):
        size = magnitude(x, y, z)
        if not quiet:
            self.moved_until = t
        if size > self.peak:
            self.peak = size
        if size < FREEFALL_G:
            if self.fall_start is None:
                self.fall_start = t
            self.airborne = max(self.airborne, t - self.fall_start)
        else:
            self.fall_start = None
        if TUMBLING_G[0] <= size <= TUMBLING_G[1]:
            face, cos = face_up(x, y, z, self.faces)
            if cos < TUMBLE_COS:
                self.candidate_n = 0
            elif face == self.candidate:
                self.candidate_n += 1
            else:
                self.candidate, self.candidate_n = face, 1
            if self.candidate_n == FACE_SAMPLES and self.candidate != self.face:
                self.tumbles += 1
                if self.peak >= SHOCK_G:
                    self.landed_tumbles += 1
                self.face = self.candidate
        else:
            self.candidate_n = 0
        out = []
        if not self.announced and (
            self.moved_until - self.started >= KNOCK_MS
            or self.tumbles
            or self.airborne >= FREEFALL_MS
        ):
            self.announced = True
            out.append(("ROLLING",))
        if self.still.held(t):
            announced = self.announced
            thrown = self.thrown()
            self._settle()
            if announced:
                self.last = self.outcome(thrown)
                out.append(self.last)
        return out

    def thrown(self):
        """Tumbling, not a hand: over 2 or more edges, or over one after a landing. In the
        air alone (a drop from the hand) or a shock alone (set down firmly) is not."""
        return self.tumbles >= THROW_TUMBLES or self.landed_tumbles >= 1

    def outcome(self, thrown):
        if not thrown:
            return ("BADROLL", "handled")
        face, cos = face_up(self.rest[0], self.rest[1], self.rest[2], self.faces)
        if cos >= FLAT_COS:
            return ("ROLL", face)
        if cos >= TILTED_COS:
            return ("BADROLL", "tilted")
        return ("BADROLL", "crooked")
