"""The web server behind Meshcat: serves the meshcat package's bundled three.js viewer over HTTP and
streams scene commands to connected browsers over a websocket, from a background thread.

It listens on the loopback interface only. Ports are probed in the calling thread, so a busy port
is known (and another one chosen) before the server thread starts; nothing here ever blocks waiting
for a browser.
"""
from __future__ import annotations

import asyncio
import errno
import os
import socket
import threading
from typing import Callable

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def import_meshcat():
    """The ``meshcat`` package (its import pulls in a zmq server module that emits a pyzmq
    DeprecationWarning, which is not ours to act on: silenced here)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import meshcat
        import meshcat.geometry  # noqa: F401
    return meshcat


def viewer_dist_dir() -> str:
    """The folder of the meshcat package's built viewer (index.html, main.min.js)."""
    meshcat = import_meshcat()
    path = os.path.join(os.path.dirname(meshcat.__file__), "viewer", "dist")
    if not os.path.isfile(os.path.join(path, "main.min.js")):
        raise RuntimeError(f"Meshcat: the meshcat package's viewer is missing ({path}/main.min.js); reinstall it "
                           "with `pip install --force-reinstall meshcat`")
    return path


def bind_first_free_port(host: str, ports: list[int]) -> tuple[list[socket.socket], int]:
    """Bind a listening socket on the first free port of ``ports`` (0 = any free port).

    Returns (sockets, port). Raises RuntimeError naming the ports tried when all are busy."""
    import tornado.netutil

    busy = []
    for port in ports:
        try:
            socks = tornado.netutil.bind_sockets(port, address=host, family=socket.AF_INET if host != "::1"
                                                 else socket.AF_INET6, reuse_port=False)
        except OSError as e:
            if e.errno in (errno.EADDRINUSE, errno.EACCES):
                busy.append(port)
                continue
            raise RuntimeError(f"Meshcat: cannot listen on {host}:{port}: {e}") from e
        return socks, int(socks[0].getsockname()[1])
    if len(ports) == 1:
        raise RuntimeError(f"Meshcat: port {ports[0]} on {host} is already in use (another Meshcat or program "
                           "listens there); pass another port, None (the first free one from 7000) or 0 (any)")
    raise RuntimeError(f"Meshcat: no free port to listen on at {host}; tried {busy[0]}..{busy[-1]} "
                       f"({len(busy)} ports, all busy). Pass MeshcatParams(port=...) with a free port, or "
                       "port=0 for any free port.")


class MeshcatServer:
    """A tornado HTTP + websocket server on its own thread and event loop.

    ``get_scene()`` returns the command messages (bytes) that rebuild the current scene; they are
    sent to every browser that connects. ``broadcast(message)`` sends one command to all browsers.
    """

    def __init__(self, sockets: list[socket.socket], get_scene: Callable[[], list[bytes]],
                 on_message: Callable[[bytes], None] | None = None):
        self._sockets = sockets
        self._get_scene = get_scene
        self._on_message = on_message
        self._clients: set = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="meshcat-server", daemon=True)
        self._thread.start()
        if not self._started.wait(timeout=20.0):
            raise RuntimeError("Meshcat: the web server thread did not start within 20 s")
        if self._error is not None:
            raise RuntimeError(f"Meshcat: the web server failed to start: {self._error}") from self._error

    def _make_app(self):
        import tornado.web
        import tornado.websocket

        server = self

        class _Socket(tornado.websocket.WebSocketHandler):
            def check_origin(self, origin: str) -> bool:
                return True

            async def get(self, *args, **kwargs):
                # "/" is both the page (plain GET: redirect to the viewer) and the websocket the
                # viewer connects back to (it uses ws://<host>/).
                if self.request.headers.get("Upgrade", "").lower() != "websocket":
                    self.redirect("/static/")
                    return
                await super().get(*args, **kwargs)

            def open(self):
                server._clients.add(self)
                for message in server._get_scene():
                    self.write_message(message, binary=True)

            def on_message(self, message):
                if server._on_message is not None and isinstance(message, bytes):
                    server._on_message(message)

            def on_close(self):
                server._clients.discard(self)

        class _Static(tornado.web.StaticFileHandler):
            def set_extra_headers(self, path):
                self.set_header("Cache-Control", "no-store, no-cache, must-revalidate, max-age=0")

        class _Icon(tornado.web.RequestHandler):
            def get(self):
                self.set_header("Content-Type", "image/png")
                self.write(_favicon_png())

        dist = viewer_dist_dir()
        return tornado.web.Application([
            (r"/", _Socket),
            (r"/(?:index|meshcat)\.html", tornado.web.RedirectHandler, {"url": "/static/"}),
            (r"/favicon\.ico", _Icon),
            (r"/static/(.*)", _Static, {"path": dist, "default_filename": "index.html"}),
        ], log_function=lambda handler: None)  # no per-request access log lines on stderr

    def _run(self) -> None:
        try:
            import tornado.httpserver

            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = tornado.httpserver.HTTPServer(self._make_app())
            self._server.add_sockets(self._sockets)
        except BaseException as e:  # reported to the constructing thread
            self._error = e
            self._started.set()
            return
        self._started.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    def num_clients(self) -> int:
        return len(self._clients)

    def broadcast(self, message: bytes) -> None:
        """Send one command to every connected browser (thread-safe, non-blocking)."""
        if not self._clients or self._loop is None or self._loop.is_closed():
            return

        def send():
            for client in list(self._clients):
                try:
                    client.write_message(message, binary=True)
                except Exception:  # a browser that went away
                    self._clients.discard(client)

        self._loop.call_soon_threadsafe(send)

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until the server thread has handed every message queued so far to the browsers."""
        loop = self._loop
        if loop is None or loop.is_closed() or threading.current_thread() is self._thread:
            return
        done = threading.Event()
        try:
            loop.call_soon_threadsafe(done.set)
        except RuntimeError:  # the loop stopped meanwhile
            return
        done.wait(timeout)

    def stop(self) -> None:
        """Close the listening sockets and stop the thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def shutdown():
            if self._server is not None:
                self._server.stop()
            for client in list(self._clients):
                client.close()
            loop.stop()

        loop.call_soon_threadsafe(shutdown)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5.0)


def _favicon_png() -> bytes:
    """A 16x16 PNG of mallard's viewer icon (a green square), made without image libraries."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

    row = b"\x00" + bytes((46, 125, 50)) * 16
    header = struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * 16))
            + chunk(b"IEND", b""))
