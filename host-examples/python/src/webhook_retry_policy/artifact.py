"""The policy artifact (docs/artifact.md): one component file, read at run time.

Where it comes from, first that applies: the bytes or path the caller
passes; the path in ``RETRY_POLICY_ARTIFACT`` (empty means unset; set but
unreadable is an error, never a fallback); the copy shipped in this package
(``retry_policy.wasm``, package data). An optional pin, ``expected_sha256``
(else ``RETRY_POLICY_ARTIFACT_SHA256``), must match.

:func:`load_artifact` runs the checks in the contract's order and raises
:class:`ArtifactError` at the first that fails: the pin's form
(``artifact_pin_invalid``), read (``artifact_unreadable``,
``artifact_too_large``: :mod:`artifact_file`), pin (``artifact_sha256_mismatch``), parse
(``artifact_invalid``, :mod:`component_reader`), ABI
(``artifact_abi_mismatch``: the main module's export names and
``abi-version()``), the self-test of known answers through the normal call
path (``artifact_self_test_failed``), the embedded document
(``artifact_document_invalid``), read with the artifact's own
``load-health-document``: format 2, or format 3 with ``health`` sections.
:attr:`Artifact.document` is its format-2 reading (the classes without
their sections); :attr:`Artifact.health_document` is the whole document,
sections included, which the dispatcher and the replica run as they run a
``--policy`` file's. Only the main core module is compiled
(``loader``: the serialized-module cache).

:func:`swap_artifact` makes a checked artifact the one later calls run on;
a refused one changes nothing. Calls already running finish on their
instance (``instance.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

import wasmtime

from . import instance, loader
from ._generated import abi
from .artifact_file import MAX_ARTIFACT_BYTES as MAX_ARTIFACT_BYTES
from .artifact_file import SHA256_ENV as SHA256_ENV
from .artifact_file import check_size, pin_of, read_artifact_file
from .component_reader import read_component
from .errors import ArtifactError, PolicyError, PolicyTrap
from .types import Backoff, EventClass, HealthDocument, Jitter, LimitedBy, OutcomeClass, PolicyDocument

if TYPE_CHECKING:
    from .metrics_schema import MetricFamily

ABI = "webhook:retry-policy@1.0.0"
ABI_VERSION = 5
ARTIFACT_ENV = "RETRY_POLICY_ARTIFACT"
RESOURCE = "retry_policy.wasm"
BUILD_SECTION = "webhook-retry-policy:build"
DOCUMENT_SECTION = "webhook-retry-policy:document"


class ArtifactInfo(NamedTuple):
    """What a replica reports about the artifact it runs (immutable, compared
    by its fields)."""

    sha256: str
    """64 lowercase hex digits of the whole file"""
    abi: str
    """the WIT package it implements, ``webhook:retry-policy@1.0.0``"""
    document_version: str
    """the embedded document's version, ``""`` when it carries none"""
    source: str
    """the path it was read from, ``embedded`` (the package's copy) or ``bytes``"""
    size: int
    """bytes"""
    build: dict[str, Any] | None = None
    """the ``webhook-retry-policy:build`` section (JSON), when present"""


class Artifact:
    """A checked artifact: its compiled main module, info and embedded document.

    ``document``: the embedded document's classes without their ``health``
    sections (format 2, what ``admit`` and ``class_policy`` take), None when
    it embeds none. ``health_document``: the same document as
    ``load-health-document`` read it, ``health`` sections included (a
    format-2 document reads with none), None when it embeds none."""

    def __init__(self, info: ArtifactInfo, core: wasmtime.Module, document: PolicyDocument | None,
                 health_document: HealthDocument | None = None, document_text: str | None = None) -> None:
        self.info = info
        self.document_text = document_text  # the embedded document as it is embedded (an engine's ``document``)
        self.core = core
        self.document = document
        self.health_document = health_document
        self._metrics_schema: tuple[MetricFamily, ...] | None = None

    @property
    def has_health(self) -> bool:
        """True when the embedded document has a class with a ``health`` section (format 3)."""
        return self.health_document is not None and any(c.health is not None for c in self.health_document.classes)

    def metrics_schema(self) -> tuple[MetricFamily, ...]:
        """docs/metrics.md's families as this artifact's ``metrics-schema()`` answers them (read on first use,
        then kept; :mod:`metrics_schema`): what a dispatcher registers its metrics from."""
        if self._metrics_schema is None:
            self._metrics_schema = tuple(instance.of(self).run("metrics-schema"))
        return self._metrics_schema


def _read(source: str | os.PathLike[str] | bytes | bytearray | memoryview | None,
          label: str = "bytes") -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        check_size(data, label)
        return data, label
    path = os.fspath(source) if source is not None else os.environ.get(ARTIFACT_ENV) or None
    if path is None:
        try:
            return loader.package_data(RESOURCE), "embedded"
        except OSError as e:
            raise ArtifactError("artifact_unreadable", f"the package's copy {RESOURCE} cannot be read ({e}): "
                                f"reinstall the package, or set {ARTIFACT_ENV}") from None
    return read_artifact_file(path), path


def _check_exports(exports: tuple[str, ...]) -> None:
    names = set(exports)
    missing = [f.core for f in abi.FUNCTIONS.values() if f.core not in names]
    if not missing:
        return
    versions = sorted({e.split("/policy@", 1)[1].split("#", 1)[0] for e in exports
                       if e.startswith("webhook:retry-policy/policy@") and "#" in e})
    found = f"webhook:retry-policy@{versions[0]}" if len(versions) == 1 else "webhook:retry-policy@unknown"
    raise ArtifactError("artifact_abi_mismatch", f"artifact implements {found} (abi unknown); this host speaks "
                        f"{ABI} (abi {ABI_VERSION}): the main module lacks {', '.join(missing[:3])}"
                        f"{' ...' if len(missing) > 3 else ''}")


def _self_test(inst: instance.Instance) -> None:
    checks: list[tuple[str, Any, Any]] = [
        ("plan({base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: none}, 10000, 16)",
         (4, (0, 1000, 3000, 7000), LimitedBy.WINDOW),
         lambda: (lambda s: (s.max_attempts, s.offsets_ms, s.limited_by))(
             inst.run("plan", Backoff(1000, 2.0, 4000, Jitter.NONE), 10000, 16))),
        ("classify-status(200)", OutcomeClass.SUCCESS, lambda: inst.run("classify-status", 200)),
        ('parse-retry-after("120", 0)', 120000, lambda: inst.run("parse-retry-after", "120", 0)),
    ]
    for call, expected, thunk in checks:
        try:
            got = thunk()
        except (PolicyError, PolicyTrap) as e:
            got = f"{type(e).__name__}: {e}"
        if got != expected:
            raise ArtifactError("artifact_self_test_failed", f"{call}: expected {expected!r}, got {got!r}")


def load_artifact(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | None = None,
    expected_sha256: str | None = None,
    *,
    bytes_source: str = "bytes",
) -> Artifact:
    """Read and check an artifact (docs/artifact.md "Loading"); nothing changes. ``expected_sha256``: 64 hex
    digits, either case (None or ``""``: ``RETRY_POLICY_ARTIFACT_SHA256`` when set and not empty).
    ``bytes_source``: the info's ``source`` when ``source`` is bytes (``redis`` for a rollout's artifact)."""
    pin = pin_of(expected_sha256)  # before reading: a malformed pin is the caller's error
    data, label = _read(source, bytes_source)
    digest = hashlib.sha256(data).hexdigest()
    if pin is not None and pin != digest:
        raise ArtifactError("artifact_sha256_mismatch", f"expected sha256 {pin}, found {digest}")
    component = read_component(data)
    _check_exports(component.main_exports)
    try:
        core = loader.compile_module(component.main_module)
    except wasmtime.WasmtimeError as e:
        raise ArtifactError("artifact_invalid", f"wasmtime refused the main module: {e}") from None
    build: dict[str, Any] | None = None
    try:
        value = json.loads(component.custom.get(BUILD_SECTION, b"null").decode("utf-8"))
        build = value if isinstance(value, dict) else None
    except ValueError:  # not JSON (or not UTF-8): no build information
        pass
    draft = Artifact(ArtifactInfo(digest, ABI, "", label, len(data), build), core, None)
    inst = instance.Instance(draft)
    try:
        version = inst.run("abi-version")
    except PolicyTrap as e:
        raise ArtifactError("artifact_self_test_failed", f"abi-version(): expected {ABI_VERSION}, got a trap: {e}") from None
    if version != ABI_VERSION:
        raise ArtifactError("artifact_abi_mismatch", f"artifact implements {ABI} (abi {version}); this host speaks "
                            f"{ABI} (abi {ABI_VERSION})")
    _self_test(inst)
    document, health_document, text = None, None, None
    if DOCUMENT_SECTION in component.custom:
        try:  # format 2 or 3: load-health-document reads format 2 as format 2 (docs/artifact.md step 6)
            text = component.custom[DOCUMENT_SECTION].decode("utf-8")
            health_document = inst.run("load-health-document", text)
        except UnicodeDecodeError as e:
            raise ArtifactError("artifact_document_invalid", f"the embedded document is not UTF-8: {e}") from None
        except (PolicyError, PolicyTrap) as e:
            raise ArtifactError("artifact_document_invalid", f"the embedded document does not load: {e}") from None
        # its format-2 reading: the classes without their health sections
        document = PolicyDocument(health_document.version, tuple(EventClass(c.name, c.policy) for c in health_document.classes))
    info = ArtifactInfo(digest, ABI, document.version if document else "", label, len(data), build)
    checked = Artifact(info, core, document, health_document, text)
    inst.artifact = checked
    instance.offer(inst)
    return checked


_swap_lock = threading.Lock()


def current_artifact() -> Artifact:
    """The artifact calls run on now (the default one is loaded on first use)."""
    a: Artifact = instance.active()
    return a


def swap_artifact(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview, expected_sha256: str | None = None,
    *, bytes_source: str = "bytes",
) -> ArtifactInfo:
    """Check ``source`` fully, then make it the artifact later calls run on.
    Raises :class:`ArtifactError` (the old artifact stays) when refused."""
    with _swap_lock:
        new = load_artifact(source, expected_sha256, bytes_source=bytes_source)
        instance.activate(new)
        return new.info


def describe(info: ArtifactInfo, document_version: str | None = None) -> str:
    """The log line's fields: ``sha256=... abi=... document_version=... source=...``; ``document_version``: the
    version of the document a dispatcher decides with (``webhook_policy_info``'s), default the embedded one's."""
    version = info.document_version if document_version is None else document_version
    return f"sha256={info.sha256} abi={info.abi} document_version={version} source={info.source}"


instance.register_default(load_artifact)
