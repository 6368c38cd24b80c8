"""The replica's command line (``dispatcher/command_line.py``, issue 26):
judged by the artifact's ``replica-args``; ``--help``, ``--version`` and an
unknown flag answered before the artifact loads, from the GENERATED usage
texts and flag names; every setting the component's answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from test_replica import REPLICA

from webhook_retry_policy._generated.usage import REPLAY_USAGE, REPLICA_USAGE
from webhook_retry_policy.dispatcher.command_line import EXTRAS, UsageError, early, settings
from webhook_retry_policy.replica_args import ReplicaArgsRefused, replica_args

NO_ARTIFACT = dict(os.environ, RETRY_POLICY_ARTIFACT="/nonexistent/retry_policy.wasm")
BASE = ["--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1"]


def run(*argv: str | bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REPLICA), *argv], capture_output=True, text=True, timeout=60,
                          env=NO_ARTIFACT if env is None else env)


def test_help_prints_each_command_s_generated_usage_byte_for_byte_without_the_artifact():
    for argv, usage in ((["--help"], REPLICA_USAGE), (["-h", *BASE], REPLICA_USAGE), (["replay", "--help"], REPLAY_USAGE),
                        (["replay", "--store", "j", "-h"], REPLAY_USAGE)):
        proc = run(*argv)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, usage, ""), argv
    assert "--artifact PATH" in REPLAY_USAGE  # `replica replay --artifact` is a flag of the command now


@pytest.mark.parametrize("command", ["replica", "replay"])
def test_an_unknown_flag_exits_2_naming_it_before_the_artifact_loads(command):
    proc = run(*(["replay"] if command == "replay" else []), *BASE[:2], "--no-such-flag=1")
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.splitlines() == [
        f'{"replica replay" if command == "replay" else "replica"}: unknown argument "--no-such-flag=1" '
        f'({"replica replay" if command == "replay" else "replica"} --help lists the flags)']


def test_the_line_for_an_unknown_flag_before_the_artifact_loads_is_the_component_s():
    for arg in ("--x", "--x=1", '--nö="q"\t\u0001', "--metrics-port=9100", "--help=1"):
        with pytest.raises(UsageError) as before:
            early("replica", [*BASE, arg])
        with pytest.raises(ReplicaArgsRefused) as component:
            replica_args({"command": "replica", "args": [*BASE, arg], "extras": [], "replica_id": "x"})
        assert str(before.value) == str(component.value), arg


def test_every_setting_is_the_component_s_answer_with_the_hosts_default_replica_id():
    a = settings("replica", [*BASE, "--metrics-addr", ":9100", "--rate", "2.5", "--clock-offset-ms", "-7"])
    assert (a.target, a.endpoint_id, a.events) == ("http://127.0.0.1:1/", "ep", 1)
    assert (a.concurrency, a.rollout_poll_ms, a.store_timeout_ms, a.attempt_deadline_ms, a.drain_ms) == (8, 500, 250,
                                                                                                      30000, 5000)
    assert (a.metrics_addr, a.rate, a.clock_offset_ms) == (("127.0.0.1", 9100), 2.5, -7)
    assert (a.policy, a.deadline_ms, a.redis, a.artifact_from_redis) == (None, None, None, False)
    assert a.replica_id == f"python-{socket.gethostname()}-{os.getpid()}"
    r = settings("replay", ["--store", "j", "--policy", "p"])
    assert (r.store, r.policy, r.limit, r.reason) == ("j", "p", None, None)  # --limit absent: the engine's 10000


@pytest.mark.parametrize("extra", [["--signing-secrets", "f"], ["--class", "x"], ["--connect-timeout-ms", "5"],
                                   ["--no-skew-check"], ["--watch-policy"]])
def test_a_language_extra_this_replica_does_not_honour_exits_2_naming_it(extra):
    assert EXTRAS == ()
    with pytest.raises(UsageError, match=f"^{extra[0]}: not supported by this language's replica"):
        settings("replica", [*BASE, *extra])


def test_replay_takes_artifact_and_judges_its_flags(tmp_path: Path):
    (tmp_path / "p.json").write_text(json.dumps({"version": "v", "classes": {}}))
    common = ["replay", "--store", str(tmp_path / "j"), "--policy", str(tmp_path / "p.json")]
    proc = run(*common, "--artifact", str(tmp_path / "missing.wasm"), env=dict(os.environ))
    assert proc.returncode == 2 and "artifact_unreadable" in proc.stderr and "missing.wasm" in proc.stderr, proc.stderr
    proc = run(*common, "--limit", "0", env=dict(os.environ))
    assert proc.returncode == 2 and proc.stdout == "" and "--limit: expected" in proc.stderr, proc.stderr


def test_an_argument_that_is_not_utf8_exits_2_with_one_line_and_no_traceback():
    proc = subprocess.run([str(REPLICA).encode(), *(a.encode() for a in BASE), b"--replica-id", b"\xff"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("replica: "), proc.stderr
