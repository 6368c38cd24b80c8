"""Which addresses a webhook may be delivered to, checked where httpx
connects.

By default a target that resolves to an address the product's one table
refuses (``fleet/destinations.json``, held and judged by the component:
its ``destination-refusal`` export; docs/destinations.md: loopback, private, link-local, cloud metadata, shared,
unspecified, multicast, broadcast, documentation, benchmarking, reserved) is
refused: a webhook URL is chosen by a customer, and the dispatcher must not
become a way into the operator's own network.

The check sits in httpcore's network backend (:class:`GuardedBackend`, the
one place httpx opens a TCP connection): the host is resolved ONCE, every
address is checked, and the socket is opened to a checked address (an IP
literal, so nothing resolves it again); a DNS answer that changes between
check and connect (rebinding) cannot slip through. A host with any refused
address is refused as a whole. TLS still verifies the URL's host name
(httpcore passes it as SNI / ``server_hostname``).

The backend also caps every response head (status line + headers) at
``MAX_HEAD_BYTES``: a longer one is a ``RemoteProtocolError``.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import typing

import httpcore

from .._generated import abi
from ..instance import current
from . import send_window

MAX_HEAD_BYTES = 16 * 1024


class DestinationRefused(Exception):
    """A target resolved to an address webhooks may not reach. It travels
    through httpx unchanged (not an httpcore error) and is the transport
    kind ``destination_refused`` (terminal)."""

    def __init__(self, host: str, address: str, why: str) -> None:
        super().__init__(f"destination refused: {host} resolves to a {why} address ({address})")
        self.host, self.address, self.why = host, address, why


def refusal(address: str) -> str | None:
    """Why ``address`` may not be a webhook destination (None: it may), as
    the component judges it (``destination-refusal``: fleet/destinations.json,
    an IPv6 address carrying an IPv4 one judged by that one); an address
    with a zone (``fe80::1%eth0``) is judged without it; one the component
    cannot read is refused ``unparsable``."""
    try:
        why: str | None = current().run("destination-refusal", address.split("%", 1)[0])
    except abi.GuestError:
        return "unparsable"
    return why


class _HeadCappedStream(httpcore.AsyncNetworkStream):
    """Counts the bytes of each response head (until the blank line); more
    than ``limit`` is a protocol error. A write starts a new request; its
    first write checks the event's window first (send_window.check: past
    it, WindowElapsed and nothing written)."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, limit: int) -> None:
        self._inner, self._limit = inner, limit
        self._in_head, self._count, self._tail = True, 0, b""
        self._writing = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._writing = False
        data = await self._inner.read(max_bytes, timeout)
        if self._in_head and data:
            seen = self._tail + data
            if b"\n\n" in seen or b"\n\r\n" in seen:
                self._in_head = False
            else:
                self._count += len(data)
                if self._count > self._limit:
                    raise httpcore.RemoteProtocolError(f"response head over {self._limit} bytes")
                self._tail = seen[-3:]
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not self._writing:  # a request's first byte: the last moment to keep it unsent
            send_window.check()
            self._writing = True
        self._in_head, self._count, self._tail = True, 0, b""
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        return _HeadCappedStream(await self._inner.start_tls(ssl_context, server_hostname, timeout), self._limit)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend behind one resolution and the check."""

    def __init__(self, allow_private: bool = False, max_head_bytes: int = MAX_HEAD_BYTES) -> None:
        self.allow_private = allow_private
        self.max_head_bytes = max_head_bytes
        self._inner = httpcore.AnyIOBackend()

    async def resolve(self, host: str, port: int, timeout: float | None) -> list[str]:
        """Every address ``host`` resolves to, checked (raises DestinationRefused)."""
        try:
            async with asyncio.timeout(timeout):
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except TimeoutError:
            raise httpcore.ConnectTimeout("name resolution timed out") from None
        except (OSError, UnicodeError) as e:
            raise httpcore.ConnectError(f"cannot resolve host: {e}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise httpcore.ConnectError("host resolves to no address")
        if not self.allow_private:
            for address in addresses:
                why = refusal(address)
                if why is not None:
                    raise DestinationRefused(host, address, why)
        return addresses

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
                          ) -> httpcore.AsyncNetworkStream:
        last: Exception | None = None
        for address in await self.resolve(host, port, timeout):
            try:
                stream = await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                last = e
                continue
            return _HeadCappedStream(stream, self.max_head_bytes)
        assert last is not None
        raise last

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
