"""Signing secrets per endpoint for the example dispatcher.

``EndpointSecrets(load)`` asks ``load(endpoint_id)`` (async) for the
endpoint's current ``whsec_`` secrets (several during a rotation: every
delivery is signed with each), caches them, and reloads them when the
policy decides a retry with ``refresh_credentials`` (a 401/403): the
dispatcher calls :meth:`refresh` before that retry is sent.
:meth:`EndpointSecrets.from_file` reads a JSON file ``{"endpoint_id":
["whsec_...", ...]}`` on every load, so a rotation is an edit of the file.
Secrets never appear in a ``repr``, a log line or an error message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence

from ..signing import Secret, SignatureError, signed_headers

SecretLoader = Callable[[str], Awaitable[Sequence[str]]]


class EndpointSecrets:
    def __init__(self, load: SecretLoader) -> None:
        self._load = load
        self._cache: dict[str, list[Secret]] = {}
        self.reloads = 0

    async def get(self, endpoint_id: str) -> list[Secret]:
        if endpoint_id not in self._cache:
            await self.refresh(endpoint_id)
        return self._cache[endpoint_id]

    async def refresh(self, endpoint_id: str) -> None:
        """Reload the endpoint's secrets (a bad answer keeps the old ones)."""
        self.reloads += 1
        try:
            secrets = [Secret.parse(s) for s in await self._load(endpoint_id)]
        except (SignatureError, OSError, ValueError, KeyError, TypeError) as e:
            if endpoint_id in self._cache:
                return
            raise SignatureError(f"no usable signing secret for endpoint {endpoint_id!r} ({type(e).__name__})") from None
        if not secrets:
            raise SignatureError(f"no signing secret for endpoint {endpoint_id!r}")
        self._cache[endpoint_id] = secrets

    async def headers(self, endpoint_id: str, msg_id: str, body: bytes, timestamp_s: int) -> dict[str, str]:
        return signed_headers(await self.get(endpoint_id), msg_id, body, timestamp_s)

    @classmethod
    def from_file(cls, path: str) -> EndpointSecrets:
        def read(endpoint_id: str) -> list[str]:
            with open(path, encoding="utf-8") as f:
                value = json.load(f)[endpoint_id]
            return [value] if isinstance(value, str) else [str(v) for v in value]

        async def load(endpoint_id: str) -> list[str]:
            return await asyncio.to_thread(read, endpoint_id)

        return cls(load)

    def __repr__(self) -> str:
        return f"EndpointSecrets(<{len(self._cache)} endpoints, redacted>)"
