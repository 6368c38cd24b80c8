"""Real local HTTP endpoints on loopback for the example, the demo and the
tests: each answers every POST with one fixed status (204 healthy, 503
always unavailable, 410 gone) or the status its ``answer`` gives. Each
runs a ThreadingHTTPServer on 127.0.0.1 on a free port in a daemon thread
and counts the requests it received."""

from __future__ import annotations

import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalEndpoint:
    def __init__(self, status: int, retry_after: str | None = None,
                 answer: Callable[[dict[str, str], bytes], int] | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        """``answer(headers, body) -> status``, if given, decides each status
        (e.g. a receiver that verifies signatures). ``tls``: a server
        context (certificate loaded): the endpoint speaks HTTPS."""
        self.status = status
        self.answer = answer
        self.retry_after = retry_after
        self.requests = 0
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                with endpoint._lock:
                    endpoint.requests += 1
                status = endpoint.status
                if endpoint.answer is not None:
                    status = endpoint.answer({k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                if endpoint.retry_after is not None:
                    self.send_header("Retry-After", endpoint.retry_after)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if tls is not None:  # a failed handshake is an OSError in accept: the server drops that connection
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LocalEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalEndpoints:
    """The three endpoints of the example and the demo: healthy, unavailable,
    gone; optionally slow (``delay_ms`` before each answer, so a drain has
    attempts in flight to wait for). Each request is recorded by its
    ``X-Event-Id`` and ``X-Attempt``: the demo's summary says how many
    requests arrived and whether any attempt of an event arrived twice."""

    def __init__(self, delay_ms: int = 0) -> None:
        self.delay_s = max(0, delay_ms) / 1000
        self.received: Counter[tuple[str, str]] = Counter()  # (event id, attempt) -> requests
        self._lock = threading.Lock()
        self.healthy, self.unavailable, self.gone = (LocalEndpoint(s, answer=self._answer(s)) for s in (204, 503, 410))

    def _answer(self, status: int) -> Callable[[dict[str, str], bytes], int]:
        def answer(headers: dict[str, str], body: bytes) -> int:
            with self._lock:
                self.received[(headers.get("x-event-id", ""), headers.get("x-attempt", ""))] += 1
            if self.delay_s:
                time.sleep(self.delay_s)
            return status

        return answer

    def urls(self) -> dict[str, str]:
        return {"ep_healthy": self.healthy.url, "ep_unavailable": self.unavailable.url, "ep_gone": self.gone.url}

    def requests(self) -> int:
        with self._lock:
            return sum(self.received.values())

    def sent_twice(self) -> int:
        """Attempts (event id, attempt number) that arrived more than once."""
        with self._lock:
            return sum(1 for n in self.received.values() if n > 1)

    def close(self) -> None:
        for e in (self.healthy, self.unavailable, self.gone):
            e.close()

    def __enter__(self) -> LocalEndpoints:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
