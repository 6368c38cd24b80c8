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

A holder made by :meth:`DocumentHolder.from_artifact` FOLLOWS the running
artifact (docs/artifact.md, step 6 and "Swapping"): when a swapped-in
artifact embeds another document, that document becomes current through the
same reload path (older documents stay known by hash, so events admitted
before the swap keep their policy). An artifact that embeds none leaves the
current document. The embedded document's ``health`` sections (format 3)
count as its own: :attr:`DocumentHolder.health` is the artifact's
``health_document`` as it would be a JSON file's, and a swap to an artifact
with another one makes that one's sections what new events are admitted
under (format 2 or 3 alike). A holder given a document (or a file) is pinned: no swap
replaces it, and a successful :meth:`reload_text` / :meth:`reload_file` on a
following holder pins the reloaded document (the caller's wins).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .artifact import Artifact, current_artifact, without_sections
from .errors import PolicyError
from .ops import PolicyOps, logger
from .types import Admission, HealthDocument, Policy, PolicyDocument


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
        self._health: HealthDocument | None = None  # the format-3 reading of a JSON document (its sections)
        self.path = path
        self.reloads = 0
        self.refusals = 0
        self._admitted: dict[tuple[str, str], Policy] = {}
        self._seen: tuple[float, int, str] | None = None
        self._followed: Artifact | None = None  # following: the artifact whose document was last looked at
        self._follow_lock = threading.Lock()
        self._remember(document)
        if path is not None:
            self._seen = self._stat(path)

    @classmethod
    def from_file(cls, ops: PolicyOps, path: str) -> DocumentHolder:
        """A ``.toml`` file as format 2; any other as JSON through ``load-health-document`` (``health``)."""
        if path.endswith(".toml"):
            return cls(ops, ops.load_document_file(path), path=path)
        with open(path, encoding="utf-8") as f:
            health = ops.load_health_document(f.read())
        holder = cls(ops, without_sections(health), path=path)
        holder._health = health
        return holder

    @classmethod
    def from_artifact(cls, ops: PolicyOps) -> DocumentHolder:
        """The document embedded in the running artifact (``retry-policy
        bundle``): the default when the caller pins no document of its own.
        ``invalid_document`` when the artifact carries none."""
        artifact = current_artifact()
        document = artifact.document
        if document is None:
            raise PolicyError("invalid_document", "", "the running artifact embeds no policy document "
                              "(webhook-retry-policy:document): pass one (a file or a PolicyDocument)")
        holder = cls(ops, document)
        holder._health = artifact.health_document  # its health sections run as a --policy file's would
        holder._followed = artifact
        return holder

    @property
    def follows_artifact(self) -> bool:
        """True while a swapped-in artifact's embedded document becomes current."""
        return self._followed is not None

    @property
    def current(self) -> PolicyDocument:
        self._follow()
        return self._document

    @property
    def health(self) -> HealthDocument | None:
        """The current document as ``load-health-document`` read it, ``health``
        sections included: a JSON file's or reload's, or the followed
        artifact's embedded one; None for a TOML file or a plain document."""
        self._follow()
        return self._health

    def admit(self, event_class: str, now_ms: int | None = None) -> Admission:
        """Admit under the current document, remembering the class policy by its hash."""
        document = self.current
        admission = self.ops.admit(document, event_class, now_ms)
        self._admitted[(event_class, admission.policy_hash)] = self.ops.class_policy(document, event_class)
        return admission

    def policy_for(self, admission: Admission) -> Policy:
        """The class policy ``admission`` was admitted under (the current
        document's if this process never saw that hash, e.g. after a restart)."""
        known = self._admitted.get((admission.class_, admission.policy_hash))
        return known if known is not None else self.ops.class_policy(self.current, admission.class_)

    def reload_text(self, text: str, *, toml: bool = False) -> ReloadResult:
        self._follow()
        health = None
        try:
            if toml:
                new = self.ops.load_document_toml(text)
            else:  # format 3 reads format 2 as format 2 (docs/health-dispatch.md section 6)
                health = self.ops.load_health_document(text)
                new = without_sections(health)
        except PolicyError as e:
            self.refusals += 1
            why = str(e)
            logger().warning("policy document refused, keeping version %r: %s", self._document.version, why)
            return ReloadResult(False, False, self._document.version, why)
        with self._follow_lock:
            self._followed = None  # the caller's document is pinned: later swaps do not replace it
            changed = self._take(new) or health != self._health
            self._health = health
            return ReloadResult(True, changed, new.version)

    def _take(self, new: PolicyDocument) -> bool:
        """Make ``new`` current (a valid document); False when it is the current one."""
        if new == self._document:
            return False
        self._remember(new)
        self._document = new
        self.reloads += 1
        return True

    def _follow(self) -> None:
        """Following the artifact: take a swapped-in artifact's embedded document."""
        followed = self._followed
        if followed is None:
            return
        artifact = current_artifact()
        if artifact is followed:
            return
        with self._follow_lock:
            if self._followed is not followed:  # another thread took it, or a reload pinned
                return
            self._followed = artifact
            new = artifact.document
            if new is None:
                return
            took = self._take(new)
            if artifact.health_document != self._health:  # the new sections gate events admitted from now
                self._health = artifact.health_document
                took = True
            if took:
                logger().info("policy document version %r from the swapped-in artifact sha256=%s",
                              new.version, artifact.info.sha256)

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

