"""A headless Chromium driven through chromedriver's W3C WebDriver HTTP API
(standard library only), for tests that look at a page as a person would.

Debian's ``chromium`` and ``chromium-driver`` packages (installed by
``.ci/run``); :func:`find_browser` returns None when either is missing, so a
test can skip with a reason.  Chromium is started with ``--headless
--no-sandbox --disable-gpu --disable-background-networking
--disable-component-update --disable-sync --no-first-run``, a fresh
``--user-data-dir`` and every network request sent to a closed port (a page
that needs the network shows it as a failed load).
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver", "chromium-driver")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage", "--hide-scrollbars",
        # no network: every request goes to a closed local port, no name resolves
        "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND"]


def find_browser() -> tuple[str, str] | None:
    """(browser, driver) executables, or None."""
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    return (browser, driver) if browser and driver else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """``with Browser(width=1280) as b: b.open(path); b.run(js); b.screenshot(out)``.

    ``timeout`` bounds each WebDriver call and the driver's start: a guard
    against a hang, not a speed requirement (a loaded machine whose disk
    stalls took more than a minute to start a session)."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 300):
        found = find_browser()
        if found is None:
            raise RuntimeError("no chromium / chromedriver on PATH")
        self.browser, self.driver = found
        self.width, self.height, self.timeout = width, height, timeout
        self.proc: subprocess.Popen | None = None
        self.profile: str | None = None
        self.session: str | None = None

    def _call(self, method: str, path: str, body: dict | None = None) -> object:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.base}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode()).get("value")
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"WebDriver {method} {path}: {exc.read().decode()[:500]}") from None

    def __enter__(self) -> Browser:
        port = _free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen([self.driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                if (self._call("GET", "/status") or {}).get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError, RuntimeError):
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.__exit__(None, None, None)
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.2)
        self.profile = tempfile.mkdtemp(prefix="qacamp-chromium-")
        caps = {"browserName": "chrome", "goog:chromeOptions": {
            "binary": self.browser,
            "args": [*ARGS, f"--user-data-dir={self.profile}",
                     f"--window-size={self.width},{self.height}"]}}
        try:
            value = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        except BaseException:
            self.__exit__(None, None, None)  # (the driver and its browser stopped)
            raise
        self.session = value["sessionId"]
        return self

    def __exit__(self, *exc) -> None:
        if self.session is not None:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except (RuntimeError, urllib.error.URLError, ConnectionError):
                pass
            self.session = None
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None

    def open(self, path: Path) -> None:
        """Load a local file and wait until it (and every image) has loaded."""
        self._call("POST", f"/session/{self.session}/url", {"url": Path(path).resolve().as_uri()})
        deadline = time.monotonic() + self.timeout
        while self.run("return document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path}: did not finish loading")
            time.sleep(0.1)

    def run(self, script: str, *args: object) -> object:
        """Run JavaScript in the page; returns its ``return`` value."""
        return self._call("POST", f"/session/{self.session}/execute/sync",
                          {"script": script, "args": list(args)})

    def screenshot(self, out: Path, full_page: bool = True,
                   clip: tuple[float, float, float, float] | None = None) -> Path:
        """A PNG of the page (the whole page, not only the window, by default;
        ``clip``: the part ``(x, y, width, height)`` of the page, e.g. one section)."""
        if full_page or clip is not None:
            if clip is None:
                size = self.run("return [document.documentElement.scrollWidth, "
                                "document.documentElement.scrollHeight]")
                clip = (0, 0, size[0], size[1])
            x, y, w, h = clip
            png = self._call("POST", f"/session/{self.session}/goog/cdp/execute", {
                "cmd": "Page.captureScreenshot",
                "params": {"format": "png", "captureBeyondViewport": True,
                           "clip": {"x": x, "y": y, "width": w, "height": h,
                                    "scale": 1}}})["data"]
        else:
            png = self._call("GET", f"/session/{self.session}/screenshot")
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(base64.b64decode(png))
        return out


__all__ = ["Browser", "find_browser", "ARGS"]
