"""Hostile HTTP endpoints on loopback, one per path (``/<case>``), written
on raw sockets so they can misbehave in ways an HTTP server library never
would: bad status lines, endless headers, drips, resets, lies about length.

Every case answers every request the same way; the server counts requests
per case and records the raw request heads it saw (bounded), so a test can
check that nothing was injected and no redirect was followed.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections import Counter
from typing import Awaitable, Callable

Writer = asyncio.StreamWriter
Case = Callable[[Writer], Awaitable[None]]

HEAD_LIMIT = 64 * 1024
FLOOD_LIMIT = 512 * 1024 * 1024  # stop flooding after this many bytes (a client that reads forever)


def _resp(status_line: str, headers: tuple[str, ...] = (), body: bytes = b"") -> bytes:
    head = [status_line, f"content-length: {len(body)}", *headers, "", ""]
    return "\r\n".join(head).encode("latin-1") + body


async def _send(w: Writer, data: bytes) -> None:
    w.write(data)
    await w.drain()


def simple(data: bytes) -> Case:
    async def case(w: Writer) -> None:
        await _send(w, data)
    return case


async def _flood(w: Writer, chunk: bytes) -> None:
    sent = 0
    while sent < FLOOD_LIMIT:
        w.write(chunk)
        await w.drain()
        sent += len(chunk)


async def huge_body(w: Writer) -> None:
    """Claims 2 GiB, then sends as much as the client will take."""
    await _send(w, b"HTTP/1.1 200 OK\r\ncontent-length: 2147483648\r\ncontent-type: text/plain\r\n\r\n")
    await _flood(w, b"x" * 65536)


async def endless_header(w: Writer) -> None:
    await _send(w, b"HTTP/1.1 200 OK\r\nx-endless: ")
    await _flood(w, b"a" * 65536)


async def drip(w: Writer) -> None:
    """A valid 200, one byte per second."""
    for b in _resp("HTTP/1.1 200 OK", body=b"ok"):
        await _send(w, bytes([b]))
        await asyncio.sleep(1.0)


async def reset_mid_body(w: Writer) -> None:
    await _send(w, b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 1000\r\n\r\n0123456789")
    sock = w.get_extra_info("socket")
    if sock is not None:  # RST instead of FIN
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    w.transport.abort()


async def reset_before_answer(w: Writer) -> None:
    sock = w.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    w.transport.abort()


def cases(redirect_port: int) -> dict[str, Case]:
    busy = "HTTP/1.1 503 Service Unavailable"
    return {
        "ok": simple(_resp("HTTP/1.1 200 OK", body=b"ok")),
        "status-999": simple(_resp("HTTP/1.1 999 Whatever")),
        "status-099": simple(_resp("HTTP/1.1 099 Whatever")),
        "status-1xx": simple(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 150 Strange\r\n\r\n"),
        "garbage-status-line": simple(b"HTTP/1.1 2xx OK-ish\r\ncontent-length: 0\r\n\r\n"),
        "not-http": simple(b"\x00\xffSSH-2.0-OpenSSH_9.2\r\n\x16\x03\x01 hello\r\n\r\n"),
        "retry-after-garbage": simple(_resp(busy, ("retry-after: soon, maybe",))),
        "retry-after-unicode-digits": simple(_resp(busy, ("retry-after: \u00b2",)).replace(b"\xb2", b"\xc2\xb2")),
        "retry-after-huge": simple(_resp(busy, ("retry-after: 99999999999999999999",))),
        "retry-after-past-date": simple(_resp(busy, ("retry-after: Sun, 06 Nov 1994 08:49:37 GMT",))),
        "retry-after-future-date": simple(_resp(busy, ("retry-after: Fri, 31 Dec 9999 23:59:59 GMT",))),
        "huge-body": huge_body,
        "endless-header": endless_header,
        "drip": drip,
        "reset-mid-body": reset_mid_body,
        "reset": reset_before_answer,
        "redirect-307": simple(_resp("HTTP/1.1 307 Temporary Redirect",
                                     (f"location: http://127.0.0.1:{redirect_port}/stolen",))),
        "redirect-302": simple(_resp("HTTP/1.1 302 Found", (f"location: http://127.0.0.1:{redirect_port}/stolen",))),
        "crlf-in-header": simple(b"HTTP/1.1 200 OK\r\nx-a: one\rx-b: two\nx-c: three\r\ncontent-length: 0\r\n\r\n"),
    }


class HostileServer:
    """Both listeners on 127.0.0.1 in a background thread's event loop."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.heads: list[bytes] = []
        self.stolen = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0
        self.redirect_port = 0

    def start(self) -> "HostileServer":
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("hostile server did not start")
        return self

    def url(self, case: str) -> str:
        return f"http://127.0.0.1:{self.port}/{case}"

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        trap = self._loop.run_until_complete(asyncio.start_server(self._stolen, "127.0.0.1", 0))
        self.redirect_port = trap.sockets[0].getsockname()[1]
        self._cases = cases(self.redirect_port)
        main = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = main.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _stolen(self, r: asyncio.StreamReader, w: Writer) -> None:
        self.stolen += 1
        w.close()

    async def _serve(self, r: asyncio.StreamReader, w: Writer) -> None:
        try:
            while True:  # keep-alive: one answer per request head
                head = await r.readuntil(b"\r\n\r\n")
                if len(self.heads) < 1000:
                    self.heads.append(head[:HEAD_LIMIT])
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length" and v.strip().isdigit():
                        length = int(v.strip())
                if length:
                    await r.readexactly(min(length, 1 << 20))
                path = head.split(b" ", 2)[1].decode("latin-1", "replace") if head.count(b" ") >= 2 else "/"
                name = path.lstrip("/").split("?", 1)[0]
                self.requests[name] += 1
                case = self._cases.get(name)
                if case is None:
                    await _send(w, _resp("HTTP/1.1 404 Not Found"))
                    continue
                await case(w)
                if name not in ("ok", "retry-after-garbage", "retry-after-unicode-digits", "retry-after-huge",
                                "retry-after-past-date", "retry-after-future-date", "status-999", "status-099",
                                "redirect-307", "redirect-302"):
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError):
            pass
        finally:
            try:
                w.close()
            except Exception:
                pass
