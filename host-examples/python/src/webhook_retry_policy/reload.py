"""Reload a policy document without a restart (issue 12).

:class:`DocumentHolder` holds the current :class:`PolicyDocument`.
``reload_text`` / ``reload_file`` parse and validate a new one in the
component FIRST and swap only if it is valid; a bad document keeps the old
one and the :class:`ReloadResult` says why (the component's error code,
field and message). :meth:`DocumentHolder.watch` is the file-watch helper:
an asyncio task that polls the file (mtime, size, then content) and
reloads on a change; :meth:`DocumentHolder.poll` is one such check, for a
thread or a timer of your own.

Events keep what they were admitted under: an :class:`Admission` carries its
schedule and ``policy_hash``, and :meth:`DocumentHolder.policy_for` answers
the class policy of THAT hash from every document this holder has seen
(the dispatcher uses it for each attempt), so a reload changes only events
admitted after it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from .artifact import current_artifact
from .errors import PolicyError
from .ops import PolicyOps, logger
from .types import Admission, Policy, PolicyDocument


@dataclass(frozen=True)
class ReloadResult:
    ok: bool
    changed: bool  # a different document is now current
    version: str  # the current document's version (the old one when ok is False)
    error: str | None = None  # why the new document was refused


class DocumentHolder:
    def __init__(self, ops: PolicyOps, document: PolicyDocument, *, path: str | None = None) -> None:
        self.ops = ops
        self._document = document
        self.path = path
        self.reloads = 0
        self.refusals = 0
        self._admitted: dict[tuple[str, str], Policy] = {}
        self._seen: tuple[float, int, str] | None = None
        self._remember(document)
        if path is not None:
            self._seen = self._stat(path)

    @classmethod
    def from_file(cls, ops: PolicyOps, path: str) -> DocumentHolder:
        return cls(ops, ops.load_document_file(path), path=path)

    @classmethod
    def from_artifact(cls, ops: PolicyOps) -> DocumentHolder:
        """The document embedded in the running artifact (``retry-policy
        bundle``): the default when the caller pins no document of its own.
        ``invalid_document`` when the artifact carries none."""
        document = current_artifact().document
        if document is None:
            raise PolicyError("invalid_document", "", "the running artifact embeds no policy document "
                              "(webhook-retry-policy:document): pass one (a file or a PolicyDocument)")
        return cls(ops, document)

    @property
    def current(self) -> PolicyDocument:
        return self._document

    def admit(self, event_class: str, now_ms: int | None = None) -> Admission:
        """Admit under the current document, remembering the class policy by its hash."""
        document = self._document
        admission = self.ops.admit(document, event_class, now_ms)
        self._admitted[(event_class, admission.policy_hash)] = self.ops.class_policy(document, event_class)
        return admission

    def policy_for(self, admission: Admission) -> Policy:
        """The class policy ``admission`` was admitted under (the current
        document's if this process never saw that hash, e.g. after a restart)."""
        known = self._admitted.get((admission.class_, admission.policy_hash))
        return known if known is not None else self.ops.class_policy(self._document, admission.class_)

    def reload_text(self, text: str, *, toml: bool = False) -> ReloadResult:
        try:
            new = self.ops.load_document_toml(text) if toml else self.ops.load_document(text)
        except PolicyError as e:
            self.refusals += 1
            why = str(e)
            logger().warning("policy document refused, keeping version %r: %s", self._document.version, why)
            return ReloadResult(False, False, self._document.version, why)
        changed = new != self._document
        if changed:
            self._remember(new)
            self._document = new
            self.reloads += 1
        return ReloadResult(True, changed, new.version)

    def reload_file(self, path: str | None = None) -> ReloadResult:
        target = path or self.path
        if target is None:
            raise ValueError("no file to reload")
        try:
            with open(target, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            self.refusals += 1
            return ReloadResult(False, False, self._document.version, f"unreadable: {type(e).__name__}: {e}")
        return self.reload_text(text, toml=target.endswith(".toml"))

    def poll(self) -> ReloadResult | None:
        """Reload if the watched file changed since the last look (None: unchanged)."""
        if self.path is None:
            raise ValueError("no file to watch")
        seen = self._stat(self.path)
        if seen == self._seen:
            return None
        self._seen = seen
        return self.reload_file()

    def watch(self, interval_s: float = 1.0,
              on_reload: Callable[[ReloadResult], None] | None = None) -> asyncio.Task[None]:
        """Poll the file every ``interval_s`` until the task is cancelled."""
        async def loop() -> None:
            while True:
                await asyncio.sleep(interval_s)
                result = await asyncio.to_thread(self.poll)
                if result is not None and on_reload is not None:
                    on_reload(result)

        return asyncio.create_task(loop(), name=f"watch {self.path}")

    def _remember(self, document: PolicyDocument) -> None:
        for ec in document.classes:
            admission = self.ops.admit(document, ec.name, 0)
            self._admitted[(ec.name, admission.policy_hash)] = ec.policy

    @staticmethod
    def _stat(path: str) -> tuple[float, int, str]:
        try:
            st = os.stat(path)
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read(1 << 20)).hexdigest()
        except OSError:
            return (0.0, -1, "")
        return (st.st_mtime, st.st_size, digest)
