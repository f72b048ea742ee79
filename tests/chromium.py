"""Open a page in headless Chromium and watch it through the DevTools protocol.

The tests need three things a browser alone can tell: whether the page's scripts threw
(or logged an error), whether it asked for anything beyond its own file (a report must
open offline), and what its plots actually hold once drawn. The DevTools protocol gives
all three from outside the page, so a page cannot hide its own failure: uncaught
exceptions (``Runtime.exceptionThrown``), ``console.error`` calls and the browser's own
error log (``Log.entryAdded``), every request (``Network.requestWillBeSent``), and
``Runtime.evaluate`` to read values back. Debian's ``chromium`` package provides the
browser (``.ci/run`` installs it); ``websocket-client`` speaks the protocol.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import websocket

CHROMIUM = "/usr/bin/chromium"
_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--remote-debugging-port=0",
)


class PageError(RuntimeError):
    """The browser could not be started or did not answer in time."""


@dataclass
class LoadedPage:
    """What happened while a page loaded: errors and requests, and a live connection to
    read values from it."""

    url: str
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    _session: Optional[_Session] = None

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values)."""
        assert self._session is not None
        reply = self._session.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise PageError(f"{expression!r} threw: {_describe_exception(reply['exceptionDetails'])}")
        return reply["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """A PNG of the viewport (the browser's window size)."""
        assert self._session is not None
        reply = self._session.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(reply["data"]))
        return path

    def foreign_requests(self) -> list[str]:
        """Requests for anything but the page itself and inline data."""
        return [u for u in self.requests if u != self.url and not u.startswith(("data:", "blob:"))]


class Chromium:
    """A headless Chromium with a fresh profile, for ``with`` blocks."""

    def __init__(self, width: int = 1280, height: int = 2000) -> None:
        self._size = (width, height)
        self._profile = Path(tempfile.mkdtemp(prefix="dcnsim-chromium-"))
        self._process: Optional[subprocess.Popen[bytes]] = None

    def __enter__(self) -> Chromium:
        if not Path(CHROMIUM).is_file():
            raise PageError(f"{CHROMIUM} not found: install Debian's chromium package (.ci/run does)")
        self._process = subprocess.Popen(
            [CHROMIUM, *_FLAGS, f"--user-data-dir={self._profile}", f"--window-size={self._size[0]},{self._size[1]}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process is not None
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    def load(self, path: Path, ready: str = "true", timeout: float = 30.0) -> LoadedPage:
        """Open a file, wait for its load event and then for ``ready`` (a JavaScript
        expression) to be true; the errors and requests seen until then are recorded.
        Waiting for ``ready`` times out without raising, the page's errors then tell why."""
        session = _Session(self._new_tab(timeout))
        page = LoadedPage(url=path.resolve().as_uri(), _session=session)
        session.listeners.append(lambda event: _record(page, event))
        for domain in ("Runtime", "Log", "Network", "Page"):
            session.call(f"{domain}.enable")
        session.call("Page.navigate", url=page.url)
        deadline = time.monotonic() + timeout
        session.wait_for("Page.loadEventFired", deadline)
        while time.monotonic() < deadline and not page.evaluate(f"Boolean({ready})"):
            time.sleep(0.1)
        session.drain()
        return page

    def _new_tab(self, timeout: float) -> websocket.WebSocket:
        """Opens a new tab once the DevTools port is up and connects to it. A tab per page,
        because the Log domain replays a tab's earlier entries to every new session."""
        active = self._profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (active.is_file() and active.read_text().strip()):
            if time.monotonic() > deadline or (self._process and self._process.poll() is not None):
                raise PageError("Chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(active.read_text().split()[0])
        request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            url = json.load(answer)["webSocketDebuggerUrl"]
        # No Origin header: Chromium refuses DevTools connections from other origins.
        return websocket.create_connection(url, timeout=timeout, suppress_origin=True)


class _Session:
    """Commands and events on one DevTools websocket; events go to the listeners."""

    def __init__(self, socket: websocket.WebSocket) -> None:
        self._socket = socket
        self._next_id = 0
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._seen: list[str] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        self._socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = self._receive()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise PageError(f"{method}: {message['error']}")
                return message.get("result", {})

    def wait_for(self, event: str, deadline: float) -> None:
        while event not in self._seen:
            if time.monotonic() > deadline:
                raise PageError(f"no {event} before the timeout")
            self._receive()

    def drain(self) -> None:
        """Takes the events already sent (a no-op command's answer comes after them)."""
        self.call("Runtime.evaluate", expression="0")

    def _receive(self) -> dict[str, Any]:
        message = json.loads(self._socket.recv())
        if "method" in message:
            self._seen.append(message["method"])
            for listener in self.listeners:
                listener(message)
        return message


def _record(page: LoadedPage, event: dict[str, Any]) -> None:
    method, params = event["method"], event.get("params", {})
    if method == "Runtime.exceptionThrown":
        page.errors.append("uncaught: " + _describe_exception(params["exceptionDetails"]))
    elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        page.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                          for a in params.get("args", [])))
    elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
        page.errors.append("browser: " + params["entry"].get("text", ""))
    elif method == "Network.requestWillBeSent":
        page.requests.append(params["request"]["url"])


def _describe_exception(details: dict[str, Any]) -> str:
    exception = details.get("exception", {})
    where = f" (line {details.get('lineNumber')}, column {details.get('columnNumber')})"
    return str(exception.get("description") or details.get("text", "")) + where
