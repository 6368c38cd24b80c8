#!/usr/bin/env python3
"""Local webhook endpoints for the fleet tests, in Python (no build needed).

Same contract as ``retry-policy-dispatcher endpoints`` (which fleetlib uses
when it is built): ``endpoints.py NAME=STATUS[@LATENCY_MS]... [--log]``
serves one loopback HTTP/1.1 endpoint per NAME that answers every POST with
STATUS (after LATENCY_MS, default 0), prints one JSON line of URLs
``{"NAME": "http://127.0.0.1:PORT/webhook", ...}`` and serves until stdin
closes. ``GET /__stats`` answers the counts (requests, first_attempts,
retries by the ``X-Attempt`` header, unlabelled); with ``--log``,
``GET /__log`` answers one JSON line per request
(``{"t_ms", "attempt", "event_id"}``).

``NAME=STATUS:ALT/EVERY[@LATENCY_MS]`` answers every EVERY-th POST with
ALT instead (e.g. ``200:503/3``: some retries). ``--tls-cert FILE
--tls-key FILE`` serves HTTPS with that certificate (URLs ``https://``; the
handshake happens before a request is logged).

Loopback only; keep-alive; bounded: at most 2,000,000 log lines.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time

LOG_CAP = 2_000_000


class Endpoint:
    def __init__(self, status: int, latency_ms: int, keep_log: bool, alt_status: int = 0, every: int = 0) -> None:
        self.status = status
        self.alt_status, self.every = alt_status, every
        self.latency_s = latency_ms / 1000
        self.requests = self.first = self.retries = 0
        self.log: list[tuple[int, int, str]] | None = [] if keep_log else None

    def stats(self) -> dict:
        return {"status": self.status, "requests": self.requests, "first_attempts": self.first,
                "retries": self.retries, "unlabelled": self.requests - self.first - self.retries}

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
                headers = {}
                for l in lines[1:]:
                    if ":" in l:
                        k, v = l.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                n = int(headers.get("content-length", "0") or 0)
                if n:
                    await reader.readexactly(n)
                elif headers.get("transfer-encoding", "").lower() == "chunked":
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
                        await reader.readexactly(size + 2)
                        if size == 0:
                            break
                status, ctype, body = await self.respond(method, path, headers)
                close = headers.get("connection", "").lower() == "close"
                writer.write(
                    f"HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {len(body)}\r\n"
                    f"{'connection: close' if close else 'connection: keep-alive'}\r\n\r\n".encode() + body)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass  # shut down mid-latency: Python 3.11's stream callback would print the cancelled task
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def respond(self, method: str, path: str, headers: dict) -> tuple[int, str, bytes]:
        if method == "GET" and path == "/__stats":
            return 200, "application/json", json.dumps(self.stats()).encode()
        if method == "GET" and path == "/__log":
            lines = "".join(json.dumps({"t_ms": t, "attempt": a, "event_id": e}) + "\n" for t, a, e in (self.log or []))
            return 200, "application/x-ndjson", lines.encode()
        if method == "POST":
            self.requests += 1
            try:
                attempt = int(headers.get("x-attempt", ""))
            except ValueError:
                attempt = 0
            if attempt == 1:
                self.first += 1
            elif attempt > 1:
                self.retries += 1
            if self.log is not None and len(self.log) < LOG_CAP:
                self.log.append((int(time.time() * 1000), attempt, headers.get("x-event-id", "")))
            status = self.alt_status if self.every and self.requests % self.every == 0 else self.status
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            return status, "application/json", json.dumps({"status": status}).encode()
        return 405, "text/plain", b"POST a webhook, or GET /__stats or /__log\n"


async def main(argv: list[str]) -> int:
    keep_log = "--log" in argv
    argv = [a for a in argv if a != "--log"]
    tls: ssl.SSLContext | None = None
    if "--tls-cert" in argv or "--tls-key" in argv:
        try:
            cert, key = argv[argv.index("--tls-cert") + 1], argv[argv.index("--tls-key") + 1]
        except (ValueError, IndexError):
            print("endpoints.py: --tls-cert FILE and --tls-key FILE go together", file=sys.stderr)
            return 2
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(cert, key)
        argv = [a for a in argv if a not in ("--tls-cert", "--tls-key", cert, key)]
    specs = argv
    if not specs:
        print("usage: endpoints.py NAME=STATUS[:ALT/EVERY][@LATENCY_MS]... [--log] [--tls-cert F --tls-key F]",
              file=sys.stderr)
        return 2
    urls = {}
    servers = []
    for spec in specs:
        name, _, rest = spec.partition("=")
        status, _, latency = rest.partition("@")
        status, _, alt = status.partition(":")
        alt_status, _, every = alt.partition("/")
        ep = Endpoint(int(status), int(latency or 0), keep_log, int(alt_status or 0), int(every or 0))
        srv = await asyncio.start_server(ep.handle, "127.0.0.1", 0, ssl=tls)
        servers.append(srv)
        scheme = "https" if tls else "http"
        urls[name] = f"{scheme}://127.0.0.1:{srv.sockets[0].getsockname()[1]}/webhook"
    print(json.dumps(urls), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the parent closes stdin
    for s in servers:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
