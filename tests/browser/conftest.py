"""The browser test's fixtures: the demo service in a subprocess, and Debian's Chromium
driven headless by Selenium, with the helpers the browser tests share.

The browser and its driver come from the distribution (``make test`` installs them as
root); Selenium is pointed at them, so Selenium Manager never downloads anything."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
INSTALL_HINT = (
    "the browser test needs Debian's Chromium and its driver: run `make test` as root, or "
    "`sudo apt-get install -y --no-install-recommends chromium chromium-driver`"
)
#: Seconds between the demo bots' moves: fast, so that a test sees moves within seconds.
PACE = 0.3
#: Seconds the service may take to answer its first request.
STARTUP = 20.0
#: The tablet the scoreboard is made for.
WINDOW = (1024, 768)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives the scoreboard in a headless Chromium against the demo"
    )


# -- HTTP -----------------------------------------------------------------------------


def get_json(url: str, timeout: float = 5.0) -> Any:
    """GET ``url`` and return its JSON."""
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return json.loads(answer.read())


def read_state(base: str, table_id: str) -> dict[str, Any]:
    """The table's ``/api/tables/ID/state`` document, read over HTTP as a client would."""
    return get_json(f"{base}/api/tables/{table_id}/state")


# -- the demo service ---------------------------------------------------------------


@dataclass
class Server:
    """A running ``companion serve``: its address, its process and its output files."""

    base: str
    process: subprocess.Popen
    stdout: Path
    stderr: Path

    def url(self, path: str) -> str:
        return self.base + path

    def state(self, table_id: str) -> dict[str, Any]:
        return read_state(self.base, table_id)

    def output(self) -> str:
        """The server's stderr (its log), for a failure message."""
        text = self.stderr.read_text(errors="replace") if self.stderr.exists() else ""
        return text[-4000:] or "(nothing on stderr)"


def companion_command() -> list[str]:
    """The venv's ``companion`` beside this Python, else the module run by this Python."""
    script = Path(sys.executable).with_name("companion")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "companion.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(folder: Path, *args: str, timeout: float = STARTUP) -> Server:
    """Start ``companion serve ARGS --port P --instance FOLDER/instance`` and wait until
    ``/api/tables`` answers. Its output goes to files (a pipe nobody reads would fill up
    and stall the server); a server that exits or stays silent fails the test with its
    stderr."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    stdout, stderr = folder / "stdout.txt", folder / "stderr.txt"
    command = [*companion_command(), "serve", *args, "--host", "127.0.0.1",
               "--port", str(port), "--instance", str(folder / "instance")]  # fmt: skip
    with stdout.open("w") as out, stderr.open("w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    server = Server(f"http://127.0.0.1:{port}", process, stdout, stderr)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            pytest.fail(
                f"`{' '.join(command)}` exited with {process.returncode} before answering:\n"
                f"{server.output()}"
            )
        try:
            get_json(server.url("/api/tables"), timeout=2)
            return server
        except OSError:
            if time.monotonic() > deadline:
                stop_server(server)
                pytest.fail(
                    f"`{' '.join(command)}` did not answer /api/tables within {timeout:.0f} s:\n"
                    f"{server.output()}"
                )
            time.sleep(0.1)  # the server is starting: poll its port


def stop_server(server: Server) -> None:
    """Terminate, and kill if it has not gone within five seconds."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=5)


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``companion serve --demo`` at a fast pace, shared by the session's browser tests
    (they only watch it; a test that changes a table should start its own server)."""
    server = start_server(tmp_path_factory.mktemp("demo"), "--demo", "--pace", str(PACE))
    try:
        yield server
    finally:
        stop_server(server)


# -- the browser ----------------------------------------------------------------------


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A headless Chromium at a tablet's size, driven through Debian's chromedriver."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(f"{' and '.join(missing)} missing: {INSTALL_HINT}")
    # Given the driver's path Selenium skips Selenium Manager; offline mode is for safety.
    monkeypatch.setenv("SE_OFFLINE", "true")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-dev-shm-usage",  # containers have a small /dev/shm
                     f"--window-size={WINDOW[0]},{WINDOW[1]}"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        driver.set_page_load_timeout(20)
        yield driver
    finally:
        driver.quit()


Predicate = Callable[[str], bool] | str | re.Pattern[str]


def wait_for_text(browser: Any, css: str, predicate: Predicate, timeout: float = 20.0) -> str:
    """Wait until the element at ``css`` has a text for which ``predicate`` holds (a
    function of the text, a substring, or a compiled pattern searched for) and return
    that text; fail with the last text seen when it never does."""
    seen: list[str] = []

    def matches(text: str) -> bool:
        if isinstance(predicate, str):
            return predicate in text
        if isinstance(predicate, re.Pattern):
            return predicate.search(text) is not None
        return bool(predicate(text))

    def holds(driver: Any) -> str | bool:
        text = driver.find_element(By.CSS_SELECTOR, css).text
        seen.append(text)
        return text if matches(text) else False

    ignored = (NoSuchElementException, StaleElementReferenceException)
    wait = WebDriverWait(browser, timeout, poll_frequency=0.05, ignored_exceptions=ignored)
    try:
        return wait.until(holds)
    except TimeoutException:
        last = repr(seen[-1]) if seen else "no such element"
        pytest.fail(f"{css} did not show what was awaited within {timeout} s; last: {last}")


def record_texts(browser: Any, css: str) -> None:
    """From now on, note every text the element at ``css`` is given (a MutationObserver in
    the page), however briefly it shows; read them with ``recorded_texts``. A reload
    loses the record."""
    browser.execute_script(
        """
        const [css] = arguments;
        const element = document.querySelector(css);
        window.__texts = window.__texts || {};
        const record = window.__texts[css] = [];
        new MutationObserver(function () { record.push(element.textContent); })
          .observe(element, {childList: true, characterData: true, subtree: true});
        """,
        css,
    )


def recorded_texts(browser: Any, css: str) -> list[str]:
    """The texts noted since ``record_texts(browser, css)``, in order."""
    return browser.execute_script(
        "const [css] = arguments; return (window.__texts || {})[css] || null;", css
    )
