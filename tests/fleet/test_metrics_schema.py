"""One metrics schema in every language (docs/metrics.md).

The families, types, label names, closed label values and histogram buckets
are read from docs/metrics.md's tables (not copied here), so a change to
the page is a change to this test. Each language's replica runs with
``--metrics-addr 127.0.0.1:0`` against a slow endpoint (every POST answered
after 100 ms, every 3rd with 503, so retries happen); the URL is read from
its ``metrics on URL`` stderr line and ``/metrics`` is scraped twice during
the run (at once, and after 30 requests) with the Accept header Prometheus
sends. Either exposition (text 0.0.4 or OpenMetrics 1.0, by Content-Type)
is parsed with prometheus_client's parsers, then every documented family
must be present with the right type, equal label names, every closed label
value (and no other), equal buckets, and no other ``webhook_*`` family.
One value must make sense: ``webhook_attempts_total{kind="first"}`` in
(0, events]. With ``-s`` a table family x language (ok / missing / differs)
is printed at the end of the module.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Optional

import pytest

import fleetlib
from conftest import require_replica
from fleetlib import ROOT, Endpoints, assert_nothing_lost, start_replica, write_policy

EVENTS = 60
LATENCY_MS = 100
RUN_TIMEOUT_S = 120
ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
DOC = ROOT / "docs" / "metrics.md"

RESULTS: dict[str, dict[str, str]] = {}  # lang -> family -> ok / missing / differs: ...
FORMATS: dict[str, str] = {}  # lang -> the exposition's Content-Type


# ---------------------------------------------------------------- the page

def documented_schema(doc: Path = DOC) -> tuple[dict[str, dict], dict[str, list[float]]]:
    """({family: {"type", "labels": {name: closed values or None}}}, {family: buckets}) from the page."""
    text = doc.read_text()
    kinds = [k["kind"] for k in json.loads((ROOT / "fleet" / "transport-kinds.json").read_text())["kinds"]]
    families: dict[str, dict] = {}
    for line in text.splitlines():
        if not line.startswith("| `webhook_"):
            continue
        cells = [c.strip() for c in line.replace("\\|", "\x00").strip().strip("|").split("|")]
        name, typ, labels_cell = cells[0].strip("`"), cells[1], cells[2]
        labels: dict[str, Optional[list[str]]] = {}
        for part in filter(None, (p.strip() for p in labels_cell.split(","))):
            m = re.match(r"`(\w+)`\s*(?:=\s*(.*))?$", part)
            assert m, f"docs/metrics.md: cannot read the labels of {name}: {part!r}"
            values: Optional[list[str]] = None
            if m.group(2):
                if "transport-kinds.json" in m.group(2):
                    values = kinds
                else:
                    values = [v.strip().strip("`") for v in m.group(2).split("\x00")]
            labels[m.group(1)] = values
        families[name] = {"type": typ, "labels": labels}
    buckets: dict[str, list[float]] = {}
    section = text.split("### Buckets", 1)[1].split("\n## ", 1)[0]
    for m in re.finditer(r"\*\s*`(\w+)`:\s*([0-9.,\s]+)", section):
        buckets[m.group(1)] = [float(x) for x in m.group(2).replace("\n", " ").split(",") if x.strip()]
    assert families and buckets, "docs/metrics.md: no families table or no buckets list found"
    for b in buckets:
        assert families.get(b, {}).get("type") == "histogram", f"docs/metrics.md: buckets for {b}, not a histogram"
    return families, buckets


def test_the_metrics_page_is_read_as_eighteen_families_with_their_labels_and_buckets():
    families, buckets = documented_schema()
    assert len(families) == 17, sorted(families)
    assert families["webhook_holds_total"]["labels"] == {
        "reason": ["paused", "circuit_open", "probe_refused", "release_pacing", "budget_refused"]}
    assert families["webhook_probe_calls_total"]["labels"] == {"granted": ["true", "false", "error"]}
    assert families["webhook_attempts_total"] == {"type": "counter", "labels": {"kind": ["first", "retry"]}}
    table = [k["kind"] for k in json.loads((ROOT / "fleet" / "transport-kinds.json").read_text())["kinds"]]
    assert families["webhook_transport_errors_total"]["labels"]["kind"] == table
    assert {"tls_certificate", "credentials_unavailable"} <= set(table)
    assert families["webhook_policy_info"]["labels"] == {"artifact_sha256": None, "abi": None, "document_version": None}
    assert buckets["webhook_budget_store_duration_seconds"][:2] == [0.0005, 0.001]
    assert buckets["webhook_delivery_duration_seconds"][-1] == 10.0


# ---------------------------------------------------------------- the comparison itself

def expose_the_page(families: dict, buckets: dict, drop_value: str = "", bucket_for: str = "",
                    extra: str = "", created: str = "") -> list[tuple[str, str]]:
    """The page's schema written by prometheus_client (a private registry),
    in both formats, optionally with one mistake, to check ``compare``."""
    import prometheus_client
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
    from prometheus_client.core import CounterMetricFamily
    from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics

    prometheus_client.disable_created_metrics()  # as the page asks of Python's host
    reg = CollectorRegistry()
    for name, want in families.items():
        labels = list(want["labels"])
        if name == created:  # a counter with prometheus_client's default *_created series
            fam = CounterMetricFamily(name[:-len("_total")], name, labels=labels)
            for v in want["labels"][labels[0]] or ["x"]:
                fam.add_metric([v], 0, created=1.7e9)
            reg.register(type("Created", (), {"collect": lambda self, f=fam: [f]})())
            continue
        if want["type"] == "counter":
            m: Any = Counter(name[:-len("_total")], name, labels, registry=reg)
        elif want["type"] == "gauge":
            m = Gauge(name, name, labels, registry=reg)
        else:
            b = buckets[name] if name != bucket_for else buckets[name][:-1]
            m = Histogram(name, name, labels, buckets=b, registry=reg)
        closed = [(k, v) for k, v in want["labels"].items() if v]
        for k, values in closed:
            for v in values:
                if v != drop_value:
                    m.labels(**{k: v})
        if not labels:
            continue
        if not closed:  # webhook_policy_info
            m.labels(**{k: "x" for k in labels}).set(1)
    if extra:
        Counter(extra, extra, registry=reg)
    return [(generate_latest(reg).decode(), "text/plain; version=0.0.4; charset=utf-8"),
            (generate_openmetrics(reg).decode(), "application/openmetrics-text; version=1.0.0; charset=utf-8")]


def test_the_comparison_passes_the_page_itself_and_catches_a_missing_value_bucket_created_or_extra_family():
    families, buckets = documented_schema()
    for body, ctype in expose_the_page(families, buckets):
        res = compare(families, buckets, parse_exposition(body, ctype))
        assert set(res.values()) == {"ok"}, (ctype, {k: v for k, v in res.items() if v != "ok"})
    # Each mistake shows as exactly one differing family (a *_created series
    # is its own gauge family in the text format, a sample of the counter's
    # family in OpenMetrics).
    for kw, flagged in ((dict(drop_value="tls_certificate"), ("webhook_transport_errors_total",)),
                        (dict(created="webhook_attempts_total"), ("webhook_attempts_total", "webhook_attempts_created")),
                        (dict(bucket_for="webhook_delivery_duration_seconds"), ("webhook_delivery_duration_seconds",)),
                        (dict(extra="webhook_surprise"), ("webhook_surprise_total",))):
        for body, ctype in expose_the_page(families, buckets, **kw):
            res = compare(families, buckets, parse_exposition(body, ctype))
            bad = [f for f, v in res.items() if v != "ok"]
            assert len(bad) == 1 and bad[0] in flagged and res[bad[0]].startswith("differs"), (kw, ctype, res)


# ---------------------------------------------------------------- the exposition

def parse_exposition(body: str, content_type: str) -> dict[str, dict]:
    """{documented name: {"type", "samples"}}: a counter family ``x`` (either
    format's TYPE line) is ``x_total``; an OpenMetrics ``info`` family ``x`` is
    the gauge ``x_info`` (Prometheus stores it so)."""
    if content_type.startswith("application/openmetrics-text"):
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
    else:
        from prometheus_client.parser import text_string_to_metric_families
    out: dict[str, dict] = {}
    for fam in text_string_to_metric_families(body):
        typ, name = fam.type, fam.name
        if typ == "counter":
            name += "_total"
        elif typ == "info":
            typ, name = "gauge", name + "_info"
        out[name] = {"type": typ, "samples": list(fam.samples), "family": fam.name}
    return out


def compare(families: dict, buckets: dict, seen: dict) -> dict[str, str]:
    """{family: "ok" | "missing" | "differs: ..."} plus extra webhook_* families."""
    res: dict[str, str] = {}
    for name, want in families.items():
        got = seen.get(name)
        if got is None:
            res[name] = "missing"
            continue
        why = []
        if got["type"] != want["type"]:
            why.append(f"type {got['type']} (want {want['type']})")
        value_names = {name} if want["type"] != "histogram" else {name + "_bucket", name + "_sum", name + "_count"}
        odd = {s.name for s in got["samples"]} - value_names
        if odd:
            created = all(n.endswith("_created") for n in odd)
            why.append(f"{'*_created series (docs/metrics.md: turned off)' if created else 'sample names'} {sorted(odd)}")
        values = [s for s in got["samples"] if s.name in value_names]
        if not values:
            why.append("no samples")
        label_names = {k for s in values for k in s.labels if k != "le"}
        if label_names != set(want["labels"]):
            why.append(f"labels {sorted(label_names)} (want {sorted(want['labels'])})")
        for label, closed in want["labels"].items():
            if closed is None:
                continue
            have = {s.labels.get(label) for s in values if s.name in (name, name + "_count")}
            if have != set(closed):
                why.append(f"{label} values: missing {sorted(set(closed) - have, key=str)}, "
                           f"extra {sorted(have - set(closed), key=str)}")
        if name in buckets:
            les = {s.labels.get("le") for s in values if s.name == name + "_bucket"}
            bounds = sorted(float(x) for x in les if x not in (None, "+Inf"))
            if bounds != sorted(buckets[name]) or "+Inf" not in les:
                why.append(f"buckets {bounds} (want {buckets[name]} and +Inf)")
        res[name] = "ok" if not why else "differs: " + "; ".join(why)
    for name in seen:
        if name.startswith("webhook_") and name not in families:
            base = name[:-len("_created")] if name.endswith("_created") else ""
            created = base and ({base, base + "_total"} & set(families))
            res[name] = ("differs: a *_created family (docs/metrics.md: turned off)" if created
                         else "differs: not in docs/metrics.md (no other webhook_* family)")
    return res


def scrape(url: str) -> tuple[str, str]:
    req = urllib.request.Request(url, headers={"Accept": ACCEPT})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode(), r.headers.get("Content-Type", "")


class StderrLines:
    """Reads a replica's stderr in a thread (bounded waits for a line)."""

    def __init__(self, proc: Any) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self.thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout_s: float, proc: Any) -> Optional[re.Match]:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            for l in list(self.lines):
                m = re.search(pattern, l)
                if m:
                    return m
            if proc.poll() is not None:
                self.thread.join(2)
                return next((m for m in (re.search(pattern, l) for l in self.lines) if m), None)
            time.sleep(0.02)
        return None

    def text(self) -> str:
        return "".join(self.lines)


def run_and_scrape(lang: str, tmp_path: Path) -> tuple[list[tuple[str, str]], dict]:
    policy = write_policy(tmp_path / "policy.json", ratio=0.5, min_sample=10, budget_window_ms=10_000)
    with Endpoints(latency_ms=LATENCY_MS, slow="200:503/3") as eps:
        rep = start_replica(lang, target=eps.urls["slow"], endpoint_id=f"metrics-{lang}", events=EVENTS,
                            policy=policy, concurrency=2, extra=("--metrics-addr", "127.0.0.1:0"))
        err = StderrLines(rep.proc)
        try:
            m = err.wait_for(r"metrics on (http://\S+/metrics)", RUN_TIMEOUT_S, rep.proc)
            assert m, (f"{lang}: no 'metrics on http://HOST:PORT/metrics' line on stderr with --metrics-addr "
                       f"127.0.0.1:0 (exit {rep.proc.poll()}): {err.text()[-1200:]}")
            url = m.group(1)
            scrapes = [scrape(url)]
            deadline = time.time() + RUN_TIMEOUT_S
            while eps.stats("slow")["requests"] < 30 and rep.proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
            assert rep.proc.poll() is None, f"{lang}: the replica ended before the second scrape: {err.text()[-800:]}"
            scrapes.append(scrape(url))
            rep.proc.wait(RUN_TIMEOUT_S)
        finally:
            rep.kill()
        err.thread.join(5)
        out = rep.proc.stdout.read() if rep.proc.stdout else ""
    assert rep.proc.returncode == 0, f"{lang}: replica exited {rep.proc.returncode}: {err.text()[-1200:]}"
    summary = json.loads(out.strip().splitlines()[-1])
    summary.setdefault("host", lang)
    return scrapes, summary


@pytest.fixture(scope="module", autouse=True)
def comparison_table():
    yield
    if not RESULTS:
        return
    families, _ = documented_schema()
    names = list(families) + sorted({f for r in RESULTS.values() for f in r if f not in families})
    langs = [l for l in fleetlib.LANGS if l in RESULTS]
    width = max(len(n) for n in names)
    print("\n\nmetrics schema (docs/metrics.md) by language:")
    print(f"{'family':<{width}}  " + "  ".join(f"{l:<8}" for l in langs))
    for n in names:
        cells = [RESULTS[l].get(n, "ok" if n in families else "-").split(":")[0].split(" ")[0] for l in langs]
        print(f"{n:<{width}}  " + "  ".join(f"{c:<8}" for c in cells))
    for l in langs:
        print(f"{l}: {FORMATS.get(l, 'not scraped')}")


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_every_replica_exports_exactly_the_documented_metrics_schema(lang, tmp_path):
    require_replica(lang)
    families, buckets = documented_schema()
    try:
        scrapes, summary = run_and_scrape(lang, tmp_path)
    except AssertionError as e:
        RESULTS[lang] = {f: "missing: no scrape" for f in families}
        raise AssertionError(str(e)) from None
    results: dict[str, str] = {}
    FORMATS[lang] = scrapes[0][1]
    for i, (body, ctype) in enumerate(scrapes, 1):
        if not ctype.startswith(("text/plain", "application/openmetrics-text")):
            RESULTS[lang] = {f: "differs: content type" for f in families}
            raise AssertionError(f"{lang}: scrape {i}'s Content-Type {ctype!r} is neither the text format 0.0.4 "
                                 f"(text/plain) nor OpenMetrics (application/openmetrics-text)")
        try:
            seen = parse_exposition(body, ctype)
        except Exception as e:  # noqa: BLE001 - a parse error is the host's finding
            RESULTS[lang] = {f: "differs: unparsable" for f in families}
            raise AssertionError(f"{lang}: scrape {i} ({ctype}) does not parse: {e!r}\n{body[:1500]}") from None
        for fam, verdict in compare(families, buckets, seen).items():
            if results.get(fam, "ok") == "ok" and verdict != "ok":
                results[fam] = f"{verdict} (scrape {i})"
            results.setdefault(fam, verdict)
    RESULTS[lang] = results
    bad = {f: v for f, v in results.items() if v != "ok"}
    assert not bad, f"{lang}: /metrics differs from docs/metrics.md:\n" + "\n".join(f"  {f}: {v}" for f, v in bad.items())
    assert_nothing_lost(summary)
    seen = parse_exposition(*scrapes[-1])
    first = [s.value for s in seen["webhook_attempts_total"]["samples"]
             if s.name == "webhook_attempts_total" and s.labels.get("kind") == "first"]
    assert first and 0 < first[0] <= EVENTS, f"{lang}: webhook_attempts_total{{kind=\"first\"}} = {first} mid-run, " \
                                             f"want in (0, {EVENTS}]"
    info = [s.value for s in seen["webhook_policy_info"]["samples"] if s.name == "webhook_policy_info"]
    assert info == [1.0], f"{lang}: webhook_policy_info should be one series of value 1: {info}"
