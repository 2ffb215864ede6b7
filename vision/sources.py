"""Frame sources: one interface for camera frames, chosen by a configuration string.

A table's configuration names its camera with a spec such as ``v4l2:/dev/video0``;
:func:`open_source` turns it into a :class:`FrameSource`, and everything above reads
frames through that one interface without knowing where they come from:

``v4l2:/dev/video0``, ``v4l2:0``
    A USB (UVC) camera through OpenCV's ``VideoCapture``, with the V4L2 backend where
    OpenCV has it. Options: ``width``, ``height``, ``fps`` (requested; the camera may
    choose another mode, the frames tell their real size) and ``fourcc`` (``MJPG`` lets
    most USB cameras deliver 1280x720 at full rate). Example:
    ``v4l2:/dev/video0?width=1280&height=720&fps=30&fourcc=MJPG``.
``picamera2``, ``picamera2:0``
    The Raspberry Pi camera (the number chooses among several) through picamera2, which
    is imported only when chosen. It comes from the system package ``python3-picamera2``,
    not from pip: the virtual environment must be created with
    ``--system-site-packages`` to see it (docs/raspberry-pi.md). Options: ``width``,
    ``height``, ``fps``.
``file:game.mp4``
    A video file, frame by frame, in order. Option ``loop=1`` starts again at the end.
``folder:/path/to/frames``
    The images in a folder in name order (``frame2`` before ``frame10``). A file that is
    not a readable image is skipped and reported, never a crash. Option ``loop=1``.

Why the newest frame and never a stale one: a camera driver queues frames, and a reader
that is slower than the camera would otherwise be handed a picture of the board seconds
old, so that a move shows up late and a hand that has left the board still seems to be
over it. Live cameras are therefore read continuously by a background thread that keeps
only the newest frame; ``latest()`` hands out that one and counts the frames nobody took
(``drops``), and each frame tells its capture time so its age is known. ``latest()``
never returns the same frame twice unless asked (``allow_repeat``), so a reader never
mistakes an old picture for a new, still one.

A camera that disappears (unplugged, a loose cable, the driver crashing) is reported in
``health()`` and reopened with a growing pause until it returns; the frames then carry on
with the next sequence number. Files and folders are read in order on demand: they are
replay sources for tests, benchmarks and the demo.

What a source hands out and the interface every kind offers are ``vision.frame``; the
replay sources are ``vision.replay``; this module holds the specs, the live cameras and
``open_source``, which turns a spec into either kind.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol
from urllib.parse import parse_qsl

import cv2
import numpy as np

from vision.frame import Frame, FrameSource, NoFrame, SourceClosed, SourceError, as_bgr
from vision.replay import ImageFolderSource, VideoFileSource

log = logging.getLogger(__name__)

#: What each scheme accepts after ``?``.
OPTIONS: dict[str, frozenset[str]] = {
    "v4l2": frozenset({"width", "height", "fps", "fourcc"}),
    "picamera2": frozenset({"width", "height", "fps"}),
    "file": frozenset({"loop"}),
    "folder": frozenset({"loop"}),
}

PICAMERA2_MISSING = (
    "the Python module picamera2 is not available. It comes from the system package "
    "python3-picamera2 (sudo apt install python3-picamera2), not from pip, and the "
    "virtual environment must be created with --system-site-packages to see it "
    "(python3 -m venv --system-site-packages .venv); see docs/raspberry-pi.md"
)


class PicameraMissing(SourceError):
    """``picamera2`` was chosen but the module cannot be imported."""


# --- specs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceSpec:
    """A parsed spec: ``scheme:target?name=value&...``."""

    text: str
    scheme: str
    target: str
    options: dict[str, str]


def parse_spec(spec: str) -> SourceSpec:
    """Split a spec into scheme, target and options; refuse what no source understands."""
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"frame source {spec!r}: empty; expected e.g. 'v4l2:/dev/video0'")
    text = spec.strip()
    scheme, _, rest = text.partition(":")
    scheme = scheme.lower()
    if scheme not in OPTIONS:
        known = ", ".join(f"{name}:" for name in OPTIONS)
        raise SourceError(f"frame source {spec!r}: unknown kind {scheme!r} (known: {known})")
    target, _, query = rest.partition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True) if query else []
    except ValueError as exc:
        raise SourceError(f"frame source {spec!r}: options {query!r} are not name=value") from exc
    options: dict[str, str] = {}
    for name, value in pairs:
        if name not in OPTIONS[scheme]:
            allowed = ", ".join(sorted(OPTIONS[scheme]))
            raise SourceError(
                f"frame source {spec!r}: {scheme} has no option {name!r} (it has {allowed})"
            )
        if name in options:
            raise SourceError(f"frame source {spec!r}: option {name!r} given twice")
        options[name] = value
    return SourceSpec(text, scheme, target, options)


def _positive(spec: SourceSpec, name: str, kind: type[int] | type[float]) -> Any:
    value = spec.options.get(name)
    if value is None:
        return None
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or not number > 0:
        what = "a whole number" if kind is int else "a number"
        raise SourceError(f"frame source {spec.text!r}: {name}={value!r} is not {what} above 0")
    return number


def _flag(spec: SourceSpec, name: str) -> bool:
    value = spec.options.get(name, "0").lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise SourceError(f"frame source {spec.text!r}: {name}={value!r} is not 1 or 0")


# --- live cameras ---------------------------------------------------------------------


class Capture(Protocol):
    """What a live source reads: ``cv2.VideoCapture`` or an adapter with its manners."""

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def isOpened(self) -> bool: ...

    def release(self) -> None: ...


@dataclass(frozen=True)
class CameraSettings:
    """What a live spec asks of its camera: the device (an index or a path), and the
    requested size, rate and pixel format (None: the camera's default)."""

    kind: str
    device: int | str
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    fourcc: str | None = None

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.device}"


@dataclass(frozen=True)
class LiveSettings:
    """How a live source treats a failing camera.

    - ``fail_after`` (3): consecutive failed reads after which the camera counts as gone
      and is released and reopened (a single failed read is retried at once).
    - ``reopen_delay`` (0.5 s): the first pause before reopening; doubled after each
      failed attempt up to ``reopen_max`` (10 s), back to the first after a good frame.
    - ``stale_after`` (3 s): a newest frame older than this means the camera has stalled
      (a read that hangs); ``health()`` then says down.
    - ``join_timeout`` (2 s): how long ``close()`` waits for the reading thread.
    """

    fail_after: int = 3
    reopen_delay: float = 0.5
    reopen_max: float = 10.0
    stale_after: float = 3.0
    join_timeout: float = 2.0

    def __post_init__(self) -> None:
        if self.fail_after < 1 or self.reopen_delay <= 0 or self.reopen_max < self.reopen_delay:
            raise SourceError(f"live source settings {self!r}: need fail_after >= 1 and delays > 0")


class LiveSource(FrameSource):
    """A camera read continuously by a daemon thread that keeps only the newest frame.

    ``opener`` returns a :class:`Capture` (a fresh one on every call: after a failure
    the old one is released and the opener called again). ``gone`` may explain a failure
    (e.g. "the device is gone") for the health report.
    """

    def __init__(
        self,
        spec: str,
        opener: Callable[[], Capture],
        *,
        origin: str,
        kind: str,
        clock: Callable[[], float] = time.monotonic,
        settings: LiveSettings | None = None,
        gone: Callable[[], str | None] | None = None,
    ) -> None:
        self.spec, self.origin, self.kind = spec, origin, kind
        self.clock = clock
        self.settings = settings or LiveSettings()
        self._opener = opener
        self._gone = gone or (lambda: None)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._closed = False
        self._newest: Frame | None = None
        self._taken = 0  # seq of the last frame handed out
        self._seq = 0
        self._delivered = 0
        self._drops = 0
        self._reopens = 0
        self._up = False
        self._problem: str | None = None
        self._problem_at: float | None = None
        self._thread = threading.Thread(target=self._run, name=f"frames {spec}", daemon=True)
        self._thread.start()

    # the reading thread

    def _run(self) -> None:
        settings = self.settings
        delay = settings.reopen_delay
        capture: Capture | None = None
        ever_opened = False
        failures = 0
        try:
            while not self._stop.is_set():
                if capture is None:
                    capture, why = self._open()
                    if capture is None:
                        self._down(why)
                        self._stop.wait(delay)
                        delay = min(delay * 2, settings.reopen_max)
                        continue
                    with self._cond:
                        self._up = True
                        if ever_opened:
                            self._reopens += 1
                            log.info("%s: camera reopened (%d)", self.spec, self._reopens)
                    ever_opened = True
                    failures = 0
                ok, image, why = self._read(capture)
                if self._stop.is_set():
                    break
                if not ok or image is None:
                    failures += 1
                    if failures < settings.fail_after:
                        continue
                    gone = self._gone()
                    self._release(capture)
                    capture = None
                    self._down(f"{failures} reads failed in a row ({gone or why}); reopening")
                    self._stop.wait(delay)
                    delay = min(delay * 2, settings.reopen_max)
                    continue
                failures = 0
                delay = settings.reopen_delay
                self._publish(image)
        finally:
            if capture is not None:
                self._release(capture)

    def _open(self) -> tuple[Capture | None, str]:
        gone = self._gone()
        because = f" ({gone})" if gone else ""
        try:
            capture = self._opener()
        except Exception as exc:  # a driver's error must not end the thread
            return None, f"could not open {self.origin}: {exc}{because}"
        try:
            if capture.isOpened():
                return capture, ""
        except Exception as exc:
            self._release(capture)
            return None, f"could not open {self.origin}: {exc}{because}"
        self._release(capture)
        return None, f"could not open {self.origin}{because}"

    def _read(self, capture: Capture) -> tuple[bool, np.ndarray | None, str]:
        try:
            ok, raw = capture.read()
        except Exception as exc:
            return False, None, f"read raised {exc}"
        if not ok:
            return False, None, "read returned no frame"
        image = as_bgr(raw)
        if image is None:
            shape = getattr(raw, "shape", None)
            dtype = getattr(raw, "dtype", type(raw).__name__)
            return False, None, f"unusable image (shape {shape}, {dtype})"
        return True, image, ""

    def _release(self, capture: Capture) -> None:
        try:
            capture.release()
        except Exception as exc:
            log.warning("%s: releasing the camera failed: %s", self.spec, exc)

    def _down(self, problem: str) -> None:
        with self._cond:
            was_up = self._up
            self._up = False
            self._problem, self._problem_at = problem, self.clock()
        if was_up:
            log.warning("%s: camera down: %s", self.spec, problem)
        else:
            log.debug("%s: %s", self.spec, problem)

    def _publish(self, image: np.ndarray) -> None:
        captured = self.clock()
        image.flags.writeable = False
        with self._cond:
            self._seq += 1
            if self._newest is not None and self._newest.seq != self._taken:
                self._drops += 1
            self._newest = Frame(image, self._seq, captured, self.origin)
            self._up = True
            self._cond.notify_all()

    # the interface

    def latest(self, timeout: float = 1.0, *, allow_repeat: bool = False) -> Frame:
        def ready() -> bool:
            newest = self._newest
            return self._closed or (
                newest is not None and (allow_repeat or newest.seq != self._taken)
            )

        with self._cond:
            arrived = self._cond.wait_for(ready, timeout)
            if self._closed:
                raise SourceClosed(f"frame source {self.spec!r}: closed")
            if not arrived or self._newest is None:
                why = f": {self._problem}" if self._problem and not self._up else ""
                raise NoFrame(f"frame source {self.spec!r}: no new frame within {timeout:g} s{why}")
            frame = self._newest
            if frame.seq != self._taken:
                self._delivered += 1
            self._taken = frame.seq
            return frame

    def health(self) -> dict[str, Any]:
        now = self.clock()
        with self._cond:
            newest = self._newest
            age = newest.age(now) if newest is not None else None
            stale = bool(self._up and age is not None and age > self.settings.stale_after)
            problem = self._problem
            if stale:
                problem = f"no frame for {age:.1f} s (the camera has stalled)"
            return {
                "source": self.spec,
                "kind": self.kind,
                "up": self._up and not stale and not self._closed,
                "frames": self._seq,
                "delivered": self._delivered,
                "drops": self._drops,
                "reopens": self._reopens,
                "problem": problem,
                "problem_at": self._problem_at,
                "age": age,
                "size": list(newest.size) if newest is not None else None,
            }

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._closed = True
            self._up = False
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(self.settings.join_timeout)
            if self._thread.is_alive():
                log.warning("%s: the camera's read did not return; left to end", self.spec)


def _v4l2_backend() -> int:
    """OpenCV's V4L2 backend where this build has it, else any backend."""
    backend = getattr(cv2, "CAP_V4L2", None)
    try:
        available = set(cv2.videoio_registry.getCameraBackends())
    except (AttributeError, cv2.error):
        available = set()
    return backend if backend is not None and backend in available else cv2.CAP_ANY


def open_v4l2(settings: CameraSettings) -> Capture:
    """A ``cv2.VideoCapture`` for a V4L2 device with the requested mode and a one-frame
    driver buffer (where the driver honours it, this alone keeps frames fresh)."""
    capture = cv2.VideoCapture(settings.device, _v4l2_backend())
    if not capture.isOpened():
        return capture
    if settings.fourcc:
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*settings.fourcc))
    if settings.width:
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, settings.width)
    if settings.height:
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, settings.height)
    if settings.fps:
        capture.set(cv2.CAP_PROP_FPS, settings.fps)
    capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
    got = (
        int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
        int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        capture.get(cv2.CAP_PROP_FPS),
    )
    log.info("%s: opened at %dx%d, %.3g fps", settings.name, *got)
    return capture


def _device_gone(settings: CameraSettings) -> Callable[[], str | None]:
    path = settings.device if isinstance(settings.device, str) else f"/dev/video{settings.device}"

    def gone() -> str | None:
        if os.name == "posix" and path.startswith("/dev/") and not os.path.exists(path):
            return f"{path} does not exist: unplugged?"
        return None

    return gone


class Picamera2Capture:
    """The Raspberry Pi camera with the manners of a ``VideoCapture``: a video
    configuration in ``RGB888`` (which picamera2 lays out as B, G, R, OpenCV's order)."""

    def __init__(self, module: ModuleType, settings: CameraSettings) -> None:
        index = int(settings.device)
        self._camera = module.Picamera2(index)
        main: dict[str, Any] = {"format": "RGB888"}
        if settings.width and settings.height:
            main["size"] = (settings.width, settings.height)
        controls = {"FrameRate": settings.fps} if settings.fps else {}
        config = self._camera.create_video_configuration(main=main, controls=controls)
        self._camera.configure(config)
        self._camera.start()
        self._open = True

    def read(self) -> tuple[bool, np.ndarray | None]:
        return True, self._camera.capture_array("main")

    def isOpened(self) -> bool:
        return self._open

    def release(self) -> None:
        if self._open:
            self._open = False
            try:
                self._camera.stop()
            finally:
                self._camera.close()


def import_picamera2() -> ModuleType:
    """The picamera2 module, or :class:`PicameraMissing` saying where it comes from."""
    try:
        return importlib.import_module("picamera2")
    except ImportError as exc:
        raise PicameraMissing(f"frame source 'picamera2': {PICAMERA2_MISSING}") from exc


def _camera_settings(spec: SourceSpec) -> CameraSettings:
    target = spec.target.strip()
    if spec.scheme == "v4l2":
        if not target:
            raise SourceError(
                f"frame source {spec.text!r}: which camera? e.g. 'v4l2:/dev/video0' or 'v4l2:0'"
            )
        device: int | str = int(target) if target.isdigit() else target
    else:
        if target and not target.isdigit():
            raise SourceError(
                f"frame source {spec.text!r}: the camera number {target!r} is not a number"
            )
        device = int(target or 0)
    fourcc = spec.options.get("fourcc")
    if fourcc is not None and (len(fourcc) != 4 or not fourcc.isascii()):
        raise SourceError(f"frame source {spec.text!r}: fourcc={fourcc!r} is not four letters")
    width, height = _positive(spec, "width", int), _positive(spec, "height", int)
    if (width is None) != (height is None):
        raise SourceError(f"frame source {spec.text!r}: give both width and height, or neither")
    return CameraSettings(spec.scheme, device, width, height, _positive(spec, "fps", float), fourcc)


# --- the one entry point --------------------------------------------------------------


def open_source(
    spec: str,
    *,
    clock: Callable[[], float] = time.monotonic,
    settings: LiveSettings | None = None,
    capture_factory: Callable[[CameraSettings], Capture] | None = None,
) -> FrameSource:
    """Open the frame source a spec names (see the module's description).

    ``clock`` times the frames (``Frame.captured``) and the health report.
    ``settings`` tune a live camera's failure handling. ``capture_factory`` replaces
    what opens a live camera (``v4l2`` or ``picamera2``): it is called with the parsed
    :class:`CameraSettings` on every (re)open and returns an object with ``read()``,
    ``isOpened()`` and ``release()``; tests drive the real threaded path with it.

    A live camera that is not there yet is not an error: ``health()`` says why it is
    down and it is retried until it appears. A bad spec, a missing file or folder, or
    picamera2 missing raise :class:`SourceError` at once.
    """
    parsed = parse_spec(spec)
    if parsed.scheme in {"file", "folder"}:
        if not parsed.target.strip():
            raise SourceError(f"frame source {spec!r}: missing path after '{parsed.scheme}:'")
        path = Path(parsed.target).expanduser()
        loop = _flag(parsed, "loop")
        if parsed.scheme == "file":
            return VideoFileSource(parsed.text, path, loop=loop, clock=clock)
        return ImageFolderSource(parsed.text, path, loop=loop, clock=clock)

    camera = _camera_settings(parsed)
    gone: Callable[[], str | None] | None = None
    if capture_factory is not None:
        factory = capture_factory
    elif parsed.scheme == "v4l2":
        factory, gone = open_v4l2, _device_gone(camera)
    else:
        module = import_picamera2()

        def factory(settings: CameraSettings) -> Capture:
            return Picamera2Capture(module, settings)

    return LiveSource(
        parsed.text,
        lambda: factory(camera),
        origin=camera.name,
        kind=parsed.scheme,
        clock=clock,
        settings=settings,
        gone=gone,
    )
