"""Seeded, synthesised accelerometer traces of a die: what the sensor in the case would
read (in g, along its three axes) at 100 samples a second.

No recording of a real die was at hand; these follow the physics that matters to the
detector: at rest the sensor reads 1 g out of the top face, plus its own offset and
noise; in the hand, shaking and tremor; in the air close to 0 g; a landing is a short
shock; a tumble turns the reading through 90 degrees over an edge, with a knock as it
lands on the next face; then it rocks and comes to rest. Every draw comes from one
``random.Random(seed)``.
"""

from __future__ import annotations

import itertools
import math
import random

from firmware.die.roll import DEFAULT_FACES

RATE_HZ = 100
STEP_MS = 1000 // RATE_HZ
NOISE_G = 0.004  # an LIS3DH or MPU-6050 at 100 Hz: a few mg RMS

Vector = tuple[float, float, float]

_AXES: tuple[Vector, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
#: The side of the sensor each face looks out of, with the detector's default mounting.
FACE_UP: dict[int, Vector] = {face: _AXES[i] for i, face in enumerate(DEFAULT_FACES)}


def add(a: Vector, b: Vector, k: float = 1.0) -> Vector:
    return (a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2])


def scale(a: Vector, k: float) -> Vector:
    return (a[0] * k, a[1] * k, a[2] * k)


def dot(a: Vector, b: Vector) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def unit(a: Vector) -> Vector:
    return scale(a, 1 / math.sqrt(dot(a, a)))


def toward(u: Vector, v: Vector, angle: float) -> Vector:
    """``u`` turned by ``angle`` radians toward ``v`` (in the plane of both)."""
    w = unit(add(v, u, -dot(u, v)))
    return add(scale(u, math.cos(angle)), w, math.sin(angle))


def neighbours(face: int) -> list[int]:
    return [f for f in range(1, 7) if f not in (face, 7 - face)]


class Trace:
    """A growing list of samples ``(t_ms, x, y, z)``; each method adds one happening."""

    def __init__(
        self, seed: int, start_ms: int = 0, offset_g: float = 0.03, noise_g: float = NOISE_G
    ) -> None:
        self.rng = random.Random(seed)
        self.t = start_ms
        self.noise = noise_g
        # A cheap sensor's zero-g offset, fixed for the die: tens of mg on each axis.
        self.offset: Vector = tuple(self.rng.uniform(-offset_g, offset_g) for _ in range(3))
        self.samples: list[tuple[int, float, float, float]] = []

    # -- the primitives -----------------------------------------------------------------

    def sample(self, reading: Vector, noise: float = 0.0) -> None:
        x, y, z = add(reading, self.offset)
        noise = max(noise, self.noise)
        gauss = self.rng.gauss
        self.samples.append((self.t, x + gauss(0, noise), y + gauss(0, noise), z + gauss(0, noise)))
        self.t += STEP_MS

    def hold(self, up: Vector, ms: int, noise: float = 0.0) -> None:
        for _ in range(ms // STEP_MS):
            self.sample(up, noise)

    def perpendicular(self, up: Vector) -> Vector:
        while True:
            r = (self.rng.gauss(0, 1), self.rng.gauss(0, 1), self.rng.gauss(0, 1))
            r = add(r, up, -dot(r, up))
            if dot(r, r) > 0.01:
                return unit(r)

    # -- what a die goes through ---------------------------------------------------------

    def rest(self, face: int, ms: int = 700) -> None:
        self.hold(FACE_UP[face], ms)

    def lift(self, up: Vector, ms: int, sign: float) -> None:
        """Up (``sign`` 1) or down (-1): an acceleration then a deceleration along up."""
        n = ms // STEP_MS
        peak = self.rng.uniform(0.25, 0.4)
        for i in range(n):
            push = sign * peak * math.sin(2 * math.pi * i / n)
            self.sample(scale(up, 1 + push), 0.01)

    def in_hand(self, up: Vector, ms: int, shake: float, turn_to: Vector | None = None) -> Vector:
        """Held and moved about: tremor (about 9 Hz), drifting tilt, shaking of ``shake``
        g; turned to ``turn_to`` on the way if given. Returns where up ends."""
        n = ms // STEP_MS
        drift = self.perpendicular(up)
        tilt = self.rng.uniform(0.1, 0.3)  # radians of wandering
        tremor = self.rng.uniform(0.04, 0.07)
        phase = self.rng.uniform(0, 2 * math.pi)
        start = up
        for i in range(n):
            s = i / max(n - 1, 1)
            if turn_to is not None:
                up = toward(start, turn_to, math.pi / 2 * min(1.0, 2 * s))
            wander = toward(up, add(up, drift), tilt * math.sin(math.pi * s))
            wiggle = math.sin(2 * math.pi * 9 * i * STEP_MS / 1000 + phase)
            jolt = scale(self.perpendicular(wander), shake * self.rng.uniform(-1, 1))
            self.sample(add(add(wander, jolt), self.perpendicular(wander), tremor * wiggle), 0.01)
        return up

    def knock(self, face: int) -> None:
        """The table knocked: the die shakes for a few samples where it lies."""
        up = FACE_UP[face]
        for _ in range(self.rng.randint(2, 4)):
            self.sample(add(up, self.perpendicular(up), self.rng.uniform(0.2, 0.5)))

    def tumble(self, a: int, b: int) -> None:
        """Over an edge from face ``a`` up to face ``b`` up, and the knock of landing."""
        ua, ub = FACE_UP[a], FACE_UP[b]
        n = self.rng.randint(5, 11)
        for i in range(1, n + 1):
            up = toward(ua, ub, math.pi / 2 * i / n)
            self.sample(scale(up, self.rng.uniform(0.85, 1.15)), 0.02)
        self.sample(scale(ub, self.rng.uniform(1.6, 3.0)), 0.05)
        self.hold(ub, self.rng.randrange(20, 60, STEP_MS), 0.03)

    def settle(self, up: Vector) -> None:
        """Rocking to rest: a few degrees, dying away over some 0.2 s."""
        axis = self.perpendicular(up)
        swing = math.radians(self.rng.uniform(4, 8))
        for i in range(20):
            angle = swing * math.exp(-i / 5) * math.sin(i * 2 * math.pi / 6)
            self.sample(toward(up, add(up, axis), angle), 0.01)

    def throw(
        self, start: int, end: int, lean: float = 0.0, fly: bool = True, spin_g: float = 0.0
    ) -> None:
        """A real roll from ``start`` up to ``end`` up: picked up, shaken, thrown, in the
        air (unless not ``fly``: rolled out of the hand along the table), landing with a
        shock, tumbling over 2 to 4 edges, rocking to rest. With ``lean`` (degrees), it
        comes to rest leaning that far toward a neighbour. With ``spin_g``, the sensor sits
        off the die's centre and reads the spin in the air: up to ``spin_g`` toward the
        centre (+z: the breakout on the inside of the 6 face) instead of about 0 g."""
        rng = self.rng
        up = FACE_UP[start]
        self.lift(up, rng.randrange(100, 200, STEP_MS), 1)
        up = self.in_hand(up, rng.randrange(200, 500, STEP_MS), shake=rng.uniform(0.3, 1.0))
        for _ in range(rng.randint(5, 9)):  # the arm's swing
            self.sample(add(scale(up, 1.2), self.perpendicular(up), 1.2), 0.05)
        for _ in range(rng.randint(10, 25) if fly else 0):  # in the air: centripetal only
            spin = scale((0, 0, 1), spin_g * rng.uniform(0.6, 1.0))
            self.sample(add(spin, self.perpendicular((0, 0, 1)), rng.uniform(0.0, 0.2)), 0.01)
        path = [end]  # walked backwards from the end so that it ends there
        for _ in range(rng.randint(2, 4)):
            options = [f for f in neighbours(path[-1]) if len(path) < 2 or f != path[-2]]
            path.append(rng.choice(options))
        path.reverse()
        landing = FACE_UP[path[0]]
        shock = rng.uniform(3.0, 6.0) if fly else rng.uniform(1.2, 1.8)
        self.sample(add(scale(landing, shock), self.perpendicular(landing), 1.0 if fly else 0.3))
        self.hold(landing, rng.randrange(20, 60, STEP_MS), 0.05)
        for a, b in itertools.pairwise(path):
            self.tumble(a, b)
        final = FACE_UP[end]
        if lean:
            final = toward(final, FACE_UP[rng.choice(neighbours(end))], math.radians(lean))
        self.settle(final)
        self.hold(final, 700)

    def slide(self, face: int) -> None:
        """Pushed along the table without tumbling: a push, friction, a stop."""
        up = FACE_UP[face]
        way = self.perpendicular(up)
        push = self.rng.uniform(0.25, 0.45)
        for _ in range(self.rng.randint(6, 10)):
            self.sample(add(up, way, push), 0.02)
        friction = self.rng.uniform(0.25, 0.4)
        for _ in range(self.rng.randint(15, 30)):  # the rough table makes it chatter
            self.sample(add(up, way, -friction), 0.03)
        self.hold(up, 700)

    def handle(self, face: int, turn: bool = False, lean: float = 0.0) -> int:
        """Picked up, held, perhaps turned a quarter by hand, set down: no throw.
        Returns the face up afterwards."""
        rng = self.rng
        up = FACE_UP[face]
        self.lift(up, rng.randrange(100, 200, STEP_MS), 1)
        target = rng.choice(neighbours(face)) if turn else face
        up = self.in_hand(
            up, rng.randrange(500, 900, STEP_MS), 0.05, FACE_UP[target] if turn else None
        )
        up = FACE_UP[target]
        self.lift(up, rng.randrange(100, 200, STEP_MS), -1)
        self.sample(scale(up, 1.3), 0.02)  # set down
        final = up
        if lean:
            final = toward(up, FACE_UP[rng.choice(neighbours(target))], math.radians(lean))
        self.settle(final)
        self.hold(final, 700)
        return target

    # -- cheats: the face chosen by hand ------------------------------------------------

    def turn_and_set_down_firmly(self, face: int, target: int, shock: float = 3.0) -> None:
        """Picked up, turned one face over by hand to ``target``, set down hard (a knock
        of ``shock`` g as it meets the table), left there."""
        up = FACE_UP[face]
        self.lift(up, self.rng.randrange(100, 200, STEP_MS), 1)
        self.in_hand(up, self.rng.randrange(500, 800, STEP_MS), 0.05, FACE_UP[target])
        up = FACE_UP[target]
        self.lift(up, self.rng.randrange(100, 200, STEP_MS), -1)
        self.sample(scale(up, shock), 0.02)
        self.settle(up)
        self.hold(up, 700)

    def drop(self, face: int, cm: float = 4.0) -> None:
        """Picked up, held with ``face`` up, let go ``cm`` above the table: in the air
        (about 0 g) for sqrt(2 h / g), landing flat on the face it was held with."""
        up = FACE_UP[face]
        self.lift(up, self.rng.randrange(100, 200, STEP_MS), 1)
        self.in_hand(up, self.rng.randrange(500, 900, STEP_MS), 0.05)
        fall_ms = math.sqrt(2 * cm / 100 / 9.81) * 1000
        for _ in range(round(fall_ms / STEP_MS)):
            self.sample((0.0, 0.0, 0.0), 0.01)
        self.sample(scale(up, self.rng.uniform(2.5, 4.0)), 0.05)
        self.settle(up)
        self.hold(up, 700)
