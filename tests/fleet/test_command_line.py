"""Every program honours the REPLICA contract's command line (docs/replica.md):
``--help`` and ``--version`` print on stdout and exit 0 without loading the
artifact; an unknown flag and an unreadable artifact exit 2 with nothing on
stdout. The programs: each language's replica (``host-examples/<lang>/replica``),
the Rust dispatcher binary (each of its commands) and the ``retry-policy``
CLI, and the Go example dispatcher. Nothing listens or sends: the replicas
are pointed at a closed loopback port they never reach."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import fleetlib

TIMEOUT_S = fleetlib.PROBE_TIMEOUT_S  # the Go wrapper builds its binary on first use
# Loading this would fail: a program that loads the artifact for --help or --version fails.
NO_ARTIFACT = dict(os.environ, RETRY_POLICY_ARTIFACT="/nonexistent/retry_policy.wasm")


def run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=fleetlib.ROOT, capture_output=True, text=True, timeout=TIMEOUT_S,
                          env=env if env is not None else NO_ARTIFACT)


def replica(lang: str) -> list[str]:
    path = fleetlib.replica_path(lang)
    assert path is not None, f"host-examples/{lang}/replica is missing or not executable"
    return [str(path)]


@pytest.fixture(scope="module")
def go_dispatcher(tmp_path_factory) -> list[str]:
    """The Go example dispatcher, built once for this module."""
    go = shutil.which("go")
    assert go is not None, "the Go toolchain is not installed (host-examples/go/setup)"
    out = tmp_path_factory.mktemp("go-dispatcher") / "dispatcher"
    build = subprocess.run([go, "build", "-o", str(out), "./examples/dispatcher"], cwd=fleetlib.ROOT / "host-examples" / "go",
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    assert build.returncode == 0, build.stderr
    return [str(out)]


def programs(go_dispatcher: list[str]) -> dict[str, list[str]]:
    dispatcher = [str(fleetlib.rust_bin("retry-policy-dispatcher"))]
    programs = {f"{lang} replica": replica(lang) for lang in fleetlib.LANGS}
    programs.update({f"retry-policy-dispatcher {c}".strip(): dispatcher + ([c] if c else [])
                     for c in ("", "replica", "demo", "endpoints", "bench", "replay")})
    programs["retry-policy"] = [str(fleetlib.rust_bin("retry-policy"))]
    programs["retry-policy plan"] = [str(fleetlib.rust_bin("retry-policy")), "plan"]
    programs["go example dispatcher"] = go_dispatcher
    return programs


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_every_program_prints_help_and_version_on_stdout_and_exits_0_without_the_artifact(go_dispatcher, flag):
    failures = []
    for name, argv in programs(go_dispatcher).items():
        proc = run(argv + [flag])
        if proc.returncode != 0 or not proc.stdout.strip():
            failures.append(f"{name} {flag}: exit {proc.returncode}, stdout {proc.stdout[:200]!r}, stderr {proc.stderr[-300:]!r}")
        elif flag == "--version" and len(proc.stdout.strip().splitlines()) != 1:
            failures.append(f"{name} --version: not one line: {proc.stdout!r}")
    assert not failures, "\n".join(failures)


def test_every_replica_s_help_names_the_contract_s_flags():
    for lang in fleetlib.LANGS:
        out = run(replica(lang) + ["--help"]).stdout
        for flag in ("--target", "--endpoint-id", "--events", "--artifact", "--drain-ms", "--store", "--resume"):
            assert flag in out, f"{lang} replica --help does not name {flag}: {out[:500]}"


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_an_unknown_flag_and_an_unreadable_artifact_exit_2_with_nothing_on_stdout(lang, tmp_path):
    policy = fleetlib.write_policy(tmp_path / "policy.json")
    run_args = ["--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1", "--policy", str(policy)]
    for extra, env, why in (
        (["--no-such-flag", "1"], None, "no-such-flag"),
        (["--artifact", str(tmp_path / "missing.wasm")], dict(os.environ), "missing.wasm"),
        ([], NO_ARTIFACT, "retry_policy.wasm"),  # RETRY_POLICY_ARTIFACT names a file that is not there
    ):
        proc = run(replica(lang) + run_args + extra, env=env)
        assert proc.returncode == 2, f"{lang} {extra or 'RETRY_POLICY_ARTIFACT'}: exit {proc.returncode}: {proc.stderr[-500:]}"
        assert proc.stdout == "", f"{lang}: {proc.stdout!r}"
        assert why in proc.stderr, f"{lang}: stderr does not name {why}: {proc.stderr[-500:]}"


def test_the_go_example_dispatcher_exits_2_on_a_bad_flag_or_an_unreadable_artifact(go_dispatcher, tmp_path):
    for extra in (["--no-such-flag"], ["-artifact", str(tmp_path / "missing.wasm")]):
        proc = run(go_dispatcher + extra, env=dict(os.environ))
        assert proc.returncode == 2 and proc.stdout == "", f"{extra}: exit {proc.returncode}: {proc.stderr[-500:]}"


def test_the_rust_dispatcher_s_commands_exit_2_on_a_bad_flag():
    dispatcher = str(fleetlib.rust_bin("retry-policy-dispatcher"))
    for command in ("replica", "demo", "bench", "replay"):
        proc = run([dispatcher, command, "--no-such-flag", "1"], env=dict(os.environ))
        assert proc.returncode == 2 and proc.stdout == "", f"{command}: exit {proc.returncode}: {proc.stderr[-300:]}"
        assert "--no-such-flag" in proc.stderr, proc.stderr
