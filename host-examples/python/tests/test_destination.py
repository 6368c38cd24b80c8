"""Destinations and hostile answers through the dispatcher's own client:
internal addresses refused after ONE resolution (the socket goes to the
checked address), response heads capped, a drip cut by the attempt
deadline, a status below 100 named unexpected_status."""

from __future__ import annotations

import asyncio
import json
import pathlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpcore
import pytest

from webhook_retry_policy import RetryPolicy, TransportError
from webhook_retry_policy.dispatcher import DestinationRefused, GuardedBackend, attempt, make_client, refusal

Answer = Callable[[asyncio.StreamWriter], Awaitable[None]]


_ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_every_destination_vector():
    doc = json.loads((_ROOT / "tests" / "vectors-destination" / "destinations.json").read_text("utf-8"))
    assert set(doc) <= {"table", "cases"}, set(doc)
    assert doc["cases"]
    for case in doc["cases"]:
        name = case.get("name")
        assert set(case) <= {"name", "address", "expect", "reason"}, f"{name}: unknown fields {set(case)}"
        assert case["expect"] in ("allowed", "refused"), name
        want = case["reason"] if case["expect"] == "refused" else None
        assert want != "" and (want is not None or case["expect"] == "allowed"), name
        assert refusal(case["address"]) == want, f"case {name!r} ({case['address']})"


def test_an_unparsable_address_is_refused():
    assert refusal("not an ip") == "unparsable"


class _Recorder(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self.hosts: list[str] = []

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):  # type: ignore[no-untyped-def]
        self.hosts.append(host)
        raise httpcore.ConnectError("recorded")


async def test_a_host_name_is_resolved_once_and_the_socket_opened_to_the_checked_address():
    backend = GuardedBackend(allow_private=True)
    recorder = _Recorder()
    backend._inner = recorder  # type: ignore[assignment]
    with pytest.raises(httpcore.ConnectError):
        await backend.connect_tcp("localhost", 9, timeout=2)
    assert recorder.hosts and all(h in ("127.0.0.1", "::1") for h in recorder.hosts)


async def test_a_name_that_resolves_to_loopback_is_refused_before_any_connection():
    backend = GuardedBackend()
    recorder = _Recorder()
    backend._inner = recorder  # type: ignore[assignment]
    with pytest.raises(DestinationRefused) as refused:
        await backend.connect_tcp("localhost", 9, timeout=2)
    assert recorder.hosts == [] and refused.value.why == "loopback"


async def _post(url: str, deadline_ms: int = 2000, allow: bool = True) -> object:
    async with make_client(attempt_deadline_ms=deadline_ms, allow_private_targets=allow) as client:
        return await attempt(client, url, content=b"{}", headers={}, policy=RetryPolicy(), now_ms=0,
                             deadline_ms=deadline_ms)


async def _server(answer: Answer) -> AsyncIterator[str]:
    async def serve(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            await r.readuntil(b"\r\n\r\n")
            await answer(w)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            w.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook"
    finally:
        server.close()


async def _outcome_of(answer: Answer, deadline_ms: int = 2000) -> object:
    async for url in _server(answer):
        return await _post(url, deadline_ms)
    raise AssertionError("no server")


async def test_loopback_is_refused_by_default_with_the_terminal_kind_destination_refused():
    async def never(w: asyncio.StreamWriter) -> None:
        raise AssertionError("a request reached loopback")

    async for url in _server(never):
        assert await _post(url, allow=False) == TransportError("destination_refused")


async def test_an_endless_header_line_is_cut_at_the_head_cap_as_remote_protocol_error():
    async def endless(w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 200 OK\r\nx-endless: ")
        for _ in range(64):
            w.write(b"a" * 4096)
            await w.drain()

    assert await _outcome_of(endless) == TransportError("remote_protocol_error")


async def test_a_status_line_below_100_is_the_terminal_kind_unexpected_status():
    async def low(w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 099 Whatever\r\ncontent-length: 0\r\n\r\n")

    assert await _outcome_of(low) == TransportError("unexpected_status")


async def test_a_one_byte_per_second_drip_ends_at_the_attempt_deadline_as_read_timeout():
    async def drip(w: asyncio.StreamWriter) -> None:
        for b in b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok":
            w.write(bytes([b]))
            await w.drain()
            await asyncio.sleep(0.3)

    start = time.monotonic()
    assert await _outcome_of(drip, deadline_ms=700) == TransportError("read_timeout")
    assert time.monotonic() - start < 2


async def test_a_redirect_is_not_followed_and_a_huge_body_is_read_only_to_its_prefix():
    async def redirect(w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 307 Temporary Redirect\r\nlocation: http://127.0.0.1:9/stolen\r\ncontent-length: 0\r\n\r\n")

    async def huge(w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2147483648\r\n\r\n")
        for _ in range(10_000):
            w.write(b"x" * 65536)
            await w.drain()

    assert (await _outcome_of(redirect)).status == 307
    start = time.monotonic()
    assert (await _outcome_of(huge)).status == 200
    assert time.monotonic() - start < 2
