"""Frame sources (vision/frame.py, sources.py, replay.py): folders and video files
replayed in order, a corrupt image skipped and reported; a live camera's newest frame and
never a stale one, and its disappearance and return, through the real threaded reader
driven by a fake capture; picamera2 missing; bad specs refused.

(Named test_frame_sources.py: tests/companion/test_sources.py holds the basename
test_sources, and pytest's default import mode needs unique basenames.)"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.frame import EndOfSource, NoFrame, SourceClosed, SourceError, frames
from vision.sources import CameraSettings, LiveSettings, PicameraMissing, open_source

FAST = LiveSettings(fail_after=3, reopen_delay=0.01, reopen_max=0.05, stale_after=3.0)
FAIL = object()  # a fake capture's read that fails


def picture(k: int, size: tuple[int, int] = (6, 4)) -> np.ndarray:
    """A small BGR image that says which frame it is."""
    width, height = size
    return np.full((height, width, 3), k, np.uint8)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.002)


class FakeClock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class FakeCapture:
    """A camera whose frames the test hands in: read() blocks until one is queued (as a
    V4L2 read waits for the next frame), FAIL makes one read fail; once the test is
    ending, a read returns at once (as a real one does at the camera's next frame)."""

    def __init__(self, ending: threading.Event, opened: bool = True) -> None:
        self.queue: queue.Queue[object] = queue.Queue()
        self.ending = ending
        self.opened = opened
        self.released = threading.Event()

    def read(self) -> tuple[bool, np.ndarray | None]:
        item: object = FAIL
        while not self.ending.is_set():
            try:
                item = self.queue.get(timeout=0.01)
                break
            except queue.Empty:
                continue
        if item is FAIL:
            return False, None
        assert isinstance(item, np.ndarray)
        return True, item

    def isOpened(self) -> bool:
        return self.opened

    def release(self) -> None:
        self.released.set()


class FakeCamera:
    """The capture factory: while the camera is present each call opens a new capture;
    while it is absent a call fails as a missing device does."""

    def __init__(self) -> None:
        self.present = threading.Event()
        self.present.set()
        self.ending = threading.Event()
        self.captures: list[FakeCapture] = []
        self.settings: list[CameraSettings] = []
        self.attempts = 0

    def __call__(self, settings: CameraSettings) -> FakeCapture:
        self.attempts += 1
        self.settings.append(settings)
        if not self.present.is_set():
            if self.attempts % 2:
                raise OSError("No such device")
            return FakeCapture(self.ending, opened=False)
        capture = FakeCapture(self.ending)
        self.captures.append(capture)
        return capture


@contextmanager
def live(spec: str, camera: FakeCamera, **kwargs: object) -> Iterator[object]:
    source = open_source(spec, capture_factory=camera, settings=FAST, **kwargs)  # type: ignore[arg-type]
    try:
        yield source
    finally:
        camera.ending.set()
        source.close()


# --- live: the newest frame, never a stale one ----------------------------------------


def test_live_source_hands_out_the_newest_frame_and_counts_the_dropped_ones() -> None:
    camera, clock = FakeCamera(), FakeClock()
    with live("v4l2:0?width=64&height=48&fps=30", camera, clock=clock) as source:
        wait_until(lambda: camera.captures, "the camera to open")
        assert camera.settings[0] == CameraSettings("v4l2", 0, 64, 48, 30.0, None)
        capture = camera.captures[0]
        for k in range(1, 6):  # five frames arrive before anyone looks
            capture.queue.put(picture(k))
        wait_until(lambda: source.health()["frames"] == 5, "five frames")

        frame = source.latest(timeout=1)
        assert (frame.seq, int(frame.image[0, 0, 0])) == (5, 5)  # the newest, not the first
        assert frame.origin == "v4l2:0" and frame.size == (6, 4)
        assert not frame.image.flags.writeable
        health = source.health()
        assert (health["frames"], health["delivered"], health["drops"]) == (5, 1, 4)
        assert health["up"] and health["reopens"] == 0 and health["size"] == [6, 4]

        # never the same frame twice unless asked
        with pytest.raises(NoFrame, match=r"'v4l2:0\?width=64.*no new frame within 0.05 s"):
            source.latest(timeout=0.05)
        assert source.latest(timeout=0.05, allow_repeat=True).seq == 5

        # a reader waiting for the next frame gets it when it comes
        threading.Timer(0.05, capture.queue.put, [picture(6)]).start()
        assert source.latest(timeout=2).seq == 6
        assert source.health()["drops"] == 4

        # the frames' age, on the clock passed in; a camera that stops delivering stalls
        clock.t += 2.5
        assert source.health()["age"] == pytest.approx(2.5) and source.health()["up"]
        clock.t += 1.0
        stalled = source.health()
        assert not stalled["up"] and "no frame for 3.5 s" in stalled["problem"]
        assert frame.age(clock()) == pytest.approx(3.5)


def test_a_camera_that_disappears_is_reported_and_reopened_until_it_returns() -> None:
    camera = FakeCamera()
    with live("v4l2:/dev/video7", camera) as source:
        wait_until(lambda: camera.captures, "the camera to open")
        first = camera.captures[0]
        first.queue.put(picture(1))
        assert source.latest(timeout=2).seq == 1

        camera.present.clear()  # unplugged: reads fail, reopening fails
        for _ in range(FAST.fail_after):
            first.queue.put(FAIL)
        wait_until(lambda: not source.health()["up"], "the camera to count as down")
        assert first.released.wait(2)
        wait_until(lambda: camera.attempts >= 4, "a few attempts to reopen")
        down = source.health()
        assert not down["up"] and down["reopens"] == 0
        assert "could not open v4l2:/dev/video7" in down["problem"]
        with pytest.raises(NoFrame, match="could not open v4l2:/dev/video7"):
            source.latest(timeout=0.02)

        camera.present.set()  # plugged in again
        wait_until(lambda: len(camera.captures) == 2, "the camera to reopen")
        camera.captures[1].queue.put(picture(2))
        frame = source.latest(timeout=2)
        assert (frame.seq, int(frame.image[0, 0, 0])) == (2, 2)
        back = source.health()
        assert back["up"] and back["reopens"] == 1 and back["frames"] == 2
        assert "could not open" in back["problem"]  # the last problem stays on record


def test_a_few_failed_reads_in_a_row_are_retried_without_reopening() -> None:
    camera = FakeCamera()
    with live("v4l2:0", camera) as source:
        wait_until(lambda: camera.captures, "the camera to open")
        capture = camera.captures[0]
        for item in (FAIL, FAIL, picture(9)):  # fewer failures than fail_after
            capture.queue.put(item)
        assert int(source.latest(timeout=2).image[0, 0, 0]) == 9
        assert source.health()["reopens"] == 0 and len(camera.captures) == 1


def test_grey_and_bgra_frames_become_bgr_and_an_unusable_image_counts_as_a_failed_read() -> None:
    camera = FakeCamera()
    with live("v4l2:0", camera) as source:
        wait_until(lambda: camera.captures, "the camera to open")
        capture = camera.captures[0]
        capture.queue.put(np.full((4, 6), 7, np.uint8))
        assert source.latest(timeout=2).image.shape == (4, 6, 3)
        capture.queue.put(np.full((4, 6, 4), 8, np.uint8))
        assert source.latest(timeout=2).image.shape == (4, 6, 3)
        for _ in range(FAST.fail_after):
            capture.queue.put(np.zeros((4, 6, 3), np.float32))
        wait_until(lambda: "unusable image" in (source.health()["problem"] or ""), "a report")


def test_a_closed_source_refuses_politely() -> None:
    camera = FakeCamera()
    with live("v4l2:0", camera) as source:
        wait_until(lambda: camera.captures, "the camera to open")
        camera.ending.set()
        source.close()
        source.close()
        assert camera.captures[0].released.is_set()
        with pytest.raises(SourceClosed, match="'v4l2:0'"):
            source.latest(timeout=0.1)
        assert not source.health()["up"]


# --- picamera2 ------------------------------------------------------------------------


def test_picamera2_missing_says_where_it_comes_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(PicameraMissing) as caught:
        open_source("picamera2")
    message = str(caught.value)
    assert "python3-picamera2" in message and "--system-site-packages" in message
    assert isinstance(caught.value, SourceError)


def test_importing_the_sources_does_not_import_picamera2() -> None:
    code = "import sys, vision.sources; print('picamera2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_picamera2_is_read_through_the_same_threaded_path(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[FakePicamera2] = []

    class FakePicamera2:
        def __init__(self, index: int) -> None:
            self.index, self.config, self.started, self.closed = index, None, False, False
            self.count = 0
            made.append(self)

        def create_video_configuration(self, main: dict, controls: dict) -> dict:
            return {"main": main, "controls": controls}

        def configure(self, config: dict) -> None:
            self.config = config

        def start(self) -> None:
            self.started = True

        def capture_array(self, stream: str) -> np.ndarray:
            time.sleep(0.002)
            self.count += 1
            return picture(self.count % 250, (8, 6))

        def stop(self) -> None:
            self.started = False

        def close(self) -> None:
            self.closed = True

    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_source("picamera2:1?width=640&height=480&fps=15", settings=FAST) as source:
        first = source.latest(timeout=2)
        second = source.latest(timeout=2)
        assert second.seq > first.seq and first.size == (8, 6)
        assert first.origin == "picamera2:1"
    camera = made[0]
    assert camera.index == 1
    assert camera.config == {
        "main": {"format": "RGB888", "size": (640, 480)},
        "controls": {"FrameRate": 15.0},
    }
    assert camera.closed and not camera.started


# --- replay: folders and files --------------------------------------------------------


def test_folder_frames_come_in_name_order_and_a_corrupt_image_is_skipped(tmp_path: Path) -> None:
    for k in (1, 2, 10, 4):
        assert cv2.imwrite(str(tmp_path / f"frame{k}.png"), picture(k * 10))
    (tmp_path / "frame3.png").write_bytes(b"\x89PNG\r\n\x1a\n not really a picture")
    (tmp_path / "notes.txt").write_text("not an image at all, ignored")
    clock = FakeClock()

    source = open_source(f"folder:{tmp_path}", clock=clock)
    read = list(frames(source))
    assert [(f.seq, f.origin, int(f.image[0, 0, 0])) for f in read] == [
        (1, "frame1.png", 10),
        (2, "frame2.png", 20),
        (3, "frame4.png", 40),
        (4, "frame10.png", 100),
    ]
    health = source.health()
    assert health["skipped"] == ["frame3.png"] and health["files"] == 5
    assert "frame3.png is not a readable image; skipped" in health["problem"]
    assert not health["up"] and health["frames"] == 4 and health["drops"] == 0
    with pytest.raises(EndOfSource, match="no more frames"):
        source.latest()
    assert source.latest(allow_repeat=True).origin == "frame10.png"
    source.close()


def test_a_folder_with_loop_starts_again(tmp_path: Path) -> None:
    for k in (1, 2):
        cv2.imwrite(str(tmp_path / f"f{k}.png"), picture(k))
    with open_source(f"folder:{tmp_path}?loop=1") as source:
        origins = [source.latest().origin for _ in range(5)]
        assert origins == ["f1.png", "f2.png", "f1.png", "f2.png", "f1.png"]
        assert source.health()["loops"] == 2 and source.health()["frames"] == 5


def test_a_folder_of_only_corrupt_images_ends_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"nope")
    with open_source(f"folder:{tmp_path}?loop=1") as source, pytest.raises(EndOfSource) as e:
        source.latest()
    assert "a.jpg is not a readable image" in str(e.value)


def write_video(path: Path, levels: list[int]) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened(), "this OpenCV build cannot write MJPG"
    for level in levels:
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()


def test_a_video_file_is_read_frame_by_frame(tmp_path: Path) -> None:
    levels = [20, 60, 100, 140, 180, 220]
    path = tmp_path / "game.avi"
    write_video(path, levels)
    with open_source(f"file:{path}") as source:
        read = list(frames(source))
        assert [f.seq for f in read] == [1, 2, 3, 4, 5, 6]
        assert [f.origin for f in read][:2] == ["game.avi#1", "game.avi#2"]
        assert [f.size for f in read] == [(64, 48)] * 6
        means = [float(f.image.mean()) for f in read]
        assert means == pytest.approx(levels, abs=4)  # JPEG is lossy, not that lossy
        with pytest.raises(EndOfSource, match="after 6"):
            source.latest()


def test_a_video_file_with_loop_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    write_video(path, [30, 200])
    with open_source(f"file:{path}?loop=yes") as source:
        means = [float(source.latest().image.mean()) for _ in range(5)]
        assert means == pytest.approx([30, 200, 30, 200, 30], abs=4)
        assert source.health()["loops"] == 2


# --- bad specs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("", "empty"),
        ("webcam:0", "unknown kind 'webcam'"),
        ("file:", "missing path"),
        ("folder:", "missing path"),
        ("file:/nonexistent/game.mp4", "no video file"),
        ("folder:/nonexistent/frames", "no folder"),
        ("v4l2:", "which camera"),
        ("v4l2:0?width=abc&height=480", "width='abc' is not a whole number"),
        ("v4l2:0?width=640", "both width and height"),
        ("v4l2:0?fps=-5", "fps='-5'"),
        ("v4l2:0?zoom=2", "no option 'zoom'"),
        ("v4l2:0?fourcc=MJPEG", "four letters"),
        ("v4l2:0?fps=30&fps=25", "given twice"),
        ("folder:/tmp?loop=maybe", "loop='maybe' is not 1 or 0"),
        ("picamera2:front", "not a number"),
    ],
)
def test_bad_specs_are_refused_with_the_spec_named(spec: str, says: str) -> None:
    with pytest.raises(SourceError) as caught:
        open_source(spec, capture_factory=FakeCamera(), settings=FAST)
    assert repr(spec) in str(caught.value) and says in str(caught.value)


def test_a_file_that_is_not_a_video_or_a_folder_without_images_is_refused(
    tmp_path: Path,
) -> None:
    bogus = tmp_path / "bogus.mp4"
    bogus.write_bytes(b"this is not a video")
    with pytest.raises(SourceError, match="cannot be read as a video"):
        open_source(f"file:{bogus}")
    (tmp_path / "readme.txt").write_text("hi")
    with pytest.raises(SourceError, match="no images"):
        open_source(f"folder:{tmp_path}")
