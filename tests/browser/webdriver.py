"""A small W3C WebDriver client over urllib (no dependencies) for Debian's
``chromedriver`` driving headless ``chromium``.

Only what the console tests use: sessions, navigation, elements, clicks,
typing, scripts, screenshots. Every wait polls with a deadline.
"""

from __future__ import annotations

import base64
import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1360,1000",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_browser() -> tuple[str | None, str | None]:
    """(chromium, chromedriver) paths, or None where missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return chromium, driver


class WebDriverError(RuntimeError):
    pass


def _eid(ref: dict) -> str:
    """An element reference's id (the W3C key, or the legacy one)."""
    if ELEMENT in ref:
        return ref[ELEMENT]
    if "ELEMENT" in ref:
        return ref["ELEMENT"]
    raise WebDriverError(f"not an element reference: {ref}")


class Browser:
    """One chromedriver process and one session with a fresh profile."""

    def __init__(self, chromium: str, driver: str):
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="hwf-chromium-")
        self.proc = subprocess.Popen(
            [driver, f"--port={self.port}", "--allowed-ips=127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._req("GET", "/status", session=False)["ready"]:
                    break
            except (OSError, WebDriverError):
                pass
            if time.monotonic() > deadline:
                self.proc.kill()
                raise WebDriverError("chromedriver did not start")
            time.sleep(0.1)
        caps = {
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": CHROMIUM_ARGS + [f"--user-data-dir={self.profile}"],
                    },
                }
            }
        }
        self.session = self._req("POST", "/session", caps, session=False)["sessionId"]

    def _req(self, method: str, path: str, body=None, session: bool = True):
        url = self.base + (f"/session/{self.session}" if session else "") + path
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                payload = json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read() or b"{}")
            raise WebDriverError(f"{method} {path}: {payload.get('value', payload)}") from None
        return payload.get("value")

    # ---- navigation and scripts ------------------------------------------------

    def get(self, url: str) -> None:
        self._req("POST", "/url", {"url": url})

    def run(self, script: str, *args):
        return self._req("POST", "/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script: str, *args):
        return self._req("POST", "/execute/async", {"script": script, "args": list(args)})

    def window(self, width: int, height: int) -> None:
        self._req("POST", "/window/rect", {"width": width, "height": height})

    def screenshot(self, path: pathlib.Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self._req("GET", "/screenshot")))

    # ---- elements ----------------------------------------------------------------

    def find(self, css: str) -> str:
        return _eid(self._req("POST", "/element", {"using": "css selector", "value": css}))

    def find_all(self, css: str) -> list[str]:
        return [_eid(e) for e in self._req("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, css: str, timeout: float = 10.0) -> None:
        """Click the first match; found again if the page redrew it meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            el = self.wait_for(css, timeout)
            try:
                self._req("POST", f"/element/{el}/click", {})
                return
            except WebDriverError as e:
                if "stale element" not in str(e) or time.monotonic() > deadline:
                    raise

    def type(self, css: str, text: str) -> None:
        el = self.wait_for(css)
        self._req("POST", f"/element/{el}/value", {"text": text})

    def text(self, css: str, timeout: float = 10.0) -> str:
        """The first match's text; found again if the page redrew it meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._req("GET", f"/element/{self.find(css)}/text")
            except WebDriverError as e:
                if "stale element" not in str(e) or time.monotonic() > deadline:
                    raise

    def wait_for(self, css: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            found = self.find_all(css)
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise WebDriverError(f"no element {css!r} after {timeout} s; page: {self.run('return document.body.innerText')[:2000]}")
            time.sleep(0.02)

    def wait_until(self, script: str, timeout: float = 10.0, *args):
        deadline = time.monotonic() + timeout
        while True:
            v = self.run(script, *args)
            if v:
                return v
            if time.monotonic() > deadline:
                raise WebDriverError(f"condition not met after {timeout} s: {script}; page: {self.run('return document.body.innerText')[:2000]}")
            time.sleep(0.02)

    def close(self) -> None:
        try:
            self._req("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def require_browser():
    """The browser paths, or skip (fail under HWF_REQUIRE_CLIENTS=1)."""
    import pytest

    chromium, driver = find_browser()
    if chromium and driver:
        return chromium, driver
    if os.environ.get("HWF_REQUIRE_CLIENTS") == "1":
        raise RuntimeError("chromium and chromedriver are required (apt-get install chromium chromium-driver)")
    pytest.skip("chromium / chromedriver are not installed")
