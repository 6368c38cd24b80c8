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
ALT instead (e.g. ``200:503/3``: some retries).
``NAME=cap<N>[+RA<S>][@LATENCY_MS]`` is a receiver capped at N requests a
second: the first N POSTs of each wall-clock second get 200, the rest 429
(with ``Retry-After: S``, default 1) (e.g. ``cap10+RA1``).
``NAME=DOWN[+RA<S>]~UP@DOWN_MS[@LATENCY_MS]`` is down, then healthy (e.g.
``503~200@5000``, ``429+RA3~200@4000``): DOWN (with ``Retry-After: S``)
until DOWN_MS after the endpoint's **first POST** (the outage's clock
starts with the first request, not with the server, so slow-starting
senders still meet the whole outage), then UP forever; ``/__stats`` adds
``down_status``, ``down_ms`` and ``up_at_ms`` (Unix ms it turns UP, null
before the first POST). Same form as the Rust ``endpoints``. ``--tls-cert FILE
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


class SpecError(ValueError):
    """A status spec this server does not take (exit 2, naming it)."""


def _status(s: str, whole: str) -> int:
    if not s.isdigit() or not 100 <= int(s) <= 599:
        raise SpecError(f"`{whole}`: status must be 100..=599, not `{s}`")
    return int(s)


def _ms(s: str, whole: str, what: str, cap: int = 86_400_000) -> int:
    if not s.isdigit() or int(s) > cap:
        raise SpecError(f"`{whole}`: {what} must be 0..={cap}, not `{s}`")
    return int(s)


def parse_spec(spec: str) -> tuple[str, dict]:
    """``NAME=STATUS[:ALT/EVERY][@LATENCY_MS]`` or
    ``NAME=DOWN[+RA<S>]~UP@DOWN_MS[@LATENCY_MS]`` -> (name, Endpoint kwargs)."""
    name, eq, rest = spec.partition("=")
    if not eq or not name:
        raise SpecError(f"`{spec}` is not NAME=STATUS")
    if "~" in rest:
        down, _, after = rest.partition("~")
        parts = after.split("@")
        if len(parts) not in (2, 3):
            raise SpecError(f"`{spec}`: the down form is DOWN[+RA<S>]~UP@DOWN_MS[@LATENCY_MS]")
        status = _status(parts[0], spec)
        down_ms = _ms(parts[1], spec, "DOWN_MS")
        latency = _ms(parts[2], spec, "LATENCY_MS") if len(parts) == 3 and parts[2] else 0
        down_status, plus, ra = down.partition("+")
        retry_after_s = None
        if plus:
            if not ra.startswith("RA"):
                raise SpecError(f"`{spec}`: `+{ra}` is not +RA<seconds 0..=86400>")
            retry_after_s = _ms(ra[2:], spec, "Retry-After seconds", 86_400)
        return name, {"status": status, "latency_ms": latency,
                      "down": (_status(down_status, spec), retry_after_s, down_ms)}
    if rest.startswith("cap"):
        head, _, latency = rest.partition("@")
        n, plus, ra = head[3:].partition("+")
        if plus and not ra.startswith("RA"):
            raise SpecError(f"`{spec}`: `+{ra}` is not +RA<seconds 0..=86400>")
        return name, {"status": 200, "latency_ms": _ms(latency or "0", spec, "LATENCY_MS"),
                      "cap": (_ms(n, spec, "N", 1_000_000), _ms(ra[2:], spec, "Retry-After seconds", 86_400)
                              if plus else 1)}
    status, _, latency = rest.partition("@")
    status, _, alt = status.partition(":")
    alt_status, _, every = alt.partition("/")
    return name, {"status": _status(status, spec), "latency_ms": _ms(latency or "0", spec, "LATENCY_MS"),
                  "alt_status": _status(alt_status, spec) if alt_status else 0,
                  "every": _ms(every or "0", spec, "EVERY")}


def now_ms() -> int:
    return int(time.time() * 1000)


class Endpoint:
    def __init__(self, status: int, latency_ms: int, keep_log: bool, alt_status: int = 0, every: int = 0,
                 down: tuple[int, int | None, int] | None = None, cap: tuple[int, int] | None = None) -> None:
        self.status = status
        self.cap = cap  # (requests a second, Retry-After seconds)
        self.cap_second, self.cap_used = -1, 0
        self.alt_status, self.every = alt_status, every
        self.down = down  # (status, Retry-After seconds or None, DOWN_MS)
        self.first_post_ms: int | None = None
        self.latency_s = latency_ms / 1000
        self.requests = self.first = self.retries = 0
        self.log: list[tuple[int, int, str]] | None = [] if keep_log else None

    def up_at_ms(self) -> int | None:
        if self.down is None or self.first_post_ms is None:
            return None
        return self.first_post_ms + self.down[2]

    def stats(self) -> dict:
        out = {"status": self.status, "requests": self.requests, "first_attempts": self.first,
               "retries": self.retries, "unlabelled": self.requests - self.first - self.retries}
        if self.down is not None:
            out.update(down_status=self.down[0], down_ms=self.down[2], up_at_ms=self.up_at_ms())
        return out

    def answer(self, t_ms: int) -> tuple[int, dict]:
        """The status (and extra headers) of a POST at t_ms; the first POST starts the outage's clock."""
        if self.down is not None:
            if self.first_post_ms is None:
                self.first_post_ms = t_ms
            if t_ms < self.first_post_ms + self.down[2]:
                ra = self.down[1]
                return self.down[0], ({"retry-after": str(ra)} if ra is not None else {})
        if self.cap is not None:
            if t_ms // 1000 != self.cap_second:
                self.cap_second, self.cap_used = t_ms // 1000, 0
            self.cap_used += 1
            if self.cap_used > self.cap[0]:
                return 429, {"retry-after": str(self.cap[1])}
        if self.every and self.requests % self.every == 0:
            return self.alt_status, {}
        return self.status, {}

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
                status, ctype, body, extra = await self.respond(method, path, headers)
                close = headers.get("connection", "").lower() == "close"
                more = "".join(f"{k}: {v}\r\n" for k, v in extra.items())
                writer.write(
                    f"HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {len(body)}\r\n{more}"
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

    async def respond(self, method: str, path: str, headers: dict) -> tuple[int, str, bytes, dict]:
        if method == "GET" and path == "/__stats":
            return 200, "application/json", json.dumps(self.stats()).encode(), {}
        if method == "GET" and path == "/__log":
            lines = "".join(json.dumps({"t_ms": t, "attempt": a, "event_id": e}) + "\n" for t, a, e in (self.log or []))
            return 200, "application/x-ndjson", lines.encode(), {}
        if method == "POST":
            t_ms = now_ms()
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
                self.log.append((t_ms, attempt, headers.get("x-event-id", "")))
            status, extra = self.answer(t_ms)
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            return status, "application/json", json.dumps({"status": status}).encode(), extra
        return 405, "text/plain", b"POST a webhook, or GET /__stats or /__log\n", {}


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
        print("usage: endpoints.py NAME=STATUS[:ALT/EVERY][@LATENCY_MS]... NAME=DOWN[+RA<S>]~UP@DOWN_MS[@LATENCY_MS]..."
              " [--log] [--tls-cert F --tls-key F]", file=sys.stderr)
        return 2
    try:
        parsed = [parse_spec(spec) for spec in specs]
    except SpecError as e:
        print(f"endpoints.py: {e}", file=sys.stderr)
        return 2
    urls = {}
    servers = []
    for name, kw in parsed:
        ep = Endpoint(keep_log=keep_log, **kw)
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
