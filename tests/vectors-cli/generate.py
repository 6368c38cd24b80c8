#!/usr/bin/env python3
"""Writes replica-args.json: the REPLICA command line's cases (docs/replica.md,
"Flags"), each a request to the component's `replica-args` and either the
members its answer must have (`expect`: each given member equal, the others
not checked) or the exact error line (`error`). Every expectation here is
written by hand from docs/replica.md, not computed by the implementation.

    python3 tests/vectors-cli/generate.py   # then commit replica-args.json
"""
import json
import pathlib

BASE = ["--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "3"]


def req(args, command="replica", extras=(), replica_id="go-h-7", artifact_env=None):
    return {"command": command, "args": args, "extras": list(extras), "replica_id": replica_id, "artifact_env": artifact_env}


def ok(name, request, expect):
    return {"name": name, "request": request, "expect": expect}


def bad(name, request, error):
    return {"name": name, "request": request, "error": error}


FULL = {"command": "replica", "target": "http://127.0.0.1:9/", "endpoint_id": "ep", "events": 3, "concurrency": 8,
        "policy": None, "artifact": None, "watch_artifact_ms": None, "redis": None, "redis_cluster": None,
        "artifact_from_redis": False, "trust_key": None, "replica_id": "go-h-7", "rollout_poll_ms": 500, "ca_file": None,
        "store_timeout_ms": 250, "attempt_deadline_ms": 30000, "deadline_ms": None, "drain_ms": 5000,
        "clock_offset_ms": 0, "store": None, "resume": None, "metrics_addr": None, "allow_private_targets": False,
        "rate": None, "signing_secrets": None, "class": "storm", "connect_timeout_ms": 2000, "no_skew_check": False,
        "watch_policy": False}

cases = [
    {"name": "the three required flags alone: every other setting is its default (the whole answer)",
     "request": req(BASE), "exact": FULL},
    ok("--flag=value is the same as --flag value", req(["--target=https://h.example/x", "--endpoint-id=e", "--events=0"]),
       {"target": "https://h.example/x", "endpoint_id": "e", "events": 0}),
    ok("every contract flag read", req(BASE + ["--concurrency", "64", "--policy", "p.json", "--redis", "rediss://u:pw@r:6380/2",
                                           "--store-timeout-ms", "100", "--attempt-deadline-ms", "5000", "--deadline-ms", "0",
                                           "--drain-ms", "0", "--clock-offset-ms", "-1500", "--store", "a.journal", "--resume", "b.journal",
                                           "--metrics-addr", ":0", "--allow-private-targets", "--rate", "2.5", "--ca-file", "ca.pem"]),
       {"concurrency": 64, "policy": "p.json", "redis": "rediss://u:pw@r:6380/2", "store_timeout_ms": 100, "attempt_deadline_ms": 5000,
        "deadline_ms": 0, "drain_ms": 0, "clock_offset_ms": -1500, "store": "a.journal", "resume": "b.journal",
        "metrics_addr": {"host": "127.0.0.1", "port": 0}, "allow_private_targets": True, "rate": 2.5, "ca_file": "ca.pem"}),
    ok("an IPv6 metrics address in brackets", req(BASE + ["--metrics-addr", "[::1]:9100"]), {"metrics_addr": {"host": "::1", "port": 9100}}),
    ok("the artifact falls back to $RETRY_POLICY_ARTIFACT", req(BASE, artifact_env="/a.wasm"), {"artifact": "/a.wasm"}),
    ok("an empty $RETRY_POLICY_ARTIFACT is unset", req(BASE, artifact_env=""), {"artifact": None}),
    ok("--artifact wins over $RETRY_POLICY_ARTIFACT", req(BASE + ["--artifact", "b.wasm"], artifact_env="/a.wasm"), {"artifact": "b.wasm"}),
    ok("--watch-artifact-ms with the environment's artifact", req(BASE + ["--watch-artifact-ms", "1"], artifact_env="/a.wasm"), {"watch_artifact_ms": 1}),
    ok("following the fleet's artifact", req(BASE + ["--redis", "redis://127.0.0.1:6379", "--artifact-from-redis", "--trust-key", "k.pem",
                                                   "--replica-id", "r1", "--rollout-poll-ms", "50"]),
       {"artifact_from_redis": True, "trust_key": "k.pem", "replica_id": "r1", "rollout_poll_ms": 50}),
    ok("a redis cluster seed", req(BASE + ["--redis-cluster", "redis://127.0.0.1:7000"]), {"redis": None, "redis_cluster": "redis://127.0.0.1:7000"}),
    ok("a language extra the host honours", req(BASE + ["--signing-secrets", "s.json", "--no-skew-check"], extras=["--signing-secrets", "--no-skew-check"]),
       {"signing_secrets": "s.json", "no_skew_check": True}),
    ok("--help anywhere, even after a bad argument", req(["--no-such-flag", "--help"]), {"command": "help"}),
    ok("-h is --help", req(["-h"]), {"command": "help"}),
    ok("--version anywhere", req(["--events", "x", "--version"]), {"command": "version"}),
    ok("a negative clock offset may follow its flag", req(BASE + ["--clock-offset-ms", "-5"]), {"clock_offset_ms": -5}),
    bad("an unknown flag", req(BASE + ["--no-such-flag", "1"]), 'unknown argument "--no-such-flag"'),
    bad("a positional argument", req(BASE + ["extra"]), 'unknown argument "extra"'),
    bad("a single dash is not a flag", req(["-target", "http://h/"]), 'unknown argument "-target"'),
    bad("a flag given twice", req(BASE + ["--events", "4"]), "--events given twice"),
    bad("a value flag at the end without its value", req(BASE + ["--concurrency"]), "--concurrency: missing value"),
    bad("a switch given a value", req(BASE + ["--allow-private-targets=yes"]), "--allow-private-targets takes no value"),
    bad("--target missing", req(["--endpoint-id", "ep", "--events", "1"]), "--target is required"),
    bad("--events missing", req(["--target", "http://h/", "--endpoint-id", "ep"]), "--events is required"),
    bad("an ftp target", req(["--target", "ftp://h/", "--endpoint-id", "ep", "--events", "1"]),
        '--target: expected an http:// or https:// URL with a host, got "ftp://h/"'),
    bad("a target without a host", req(["--target", "http:///x", "--endpoint-id", "ep", "--events", "1"]),
        '--target: expected an http:// or https:// URL with a host, got "http:///x"'),
    bad("an empty endpoint id", req(["--target", "http://h/", "--endpoint-id", "", "--events", "1"]), "--endpoint-id: must not be empty"),
    bad("a negative event count", req(["--target", "http://h/", "--endpoint-id", "ep", "--events", "-1"]),
        '--events: expected a whole number >= 0, got "-1"'),
    bad("concurrency 0", req(BASE + ["--concurrency", "0"]), '--concurrency: expected a whole number from 1 to 65535, got "0"'),
    bad("concurrency above 65535", req(BASE + ["--concurrency", "65536"]), '--concurrency: expected a whole number from 1 to 65535, got "65536"'),
    bad("a store timeout of 0", req(BASE + ["--store-timeout-ms", "0"]), '--store-timeout-ms: expected a whole number >= 1, got "0"'),
    bad("a number with a sign", req(BASE + ["--drain-ms", "+5"]), '--drain-ms: expected a whole number >= 0, got "+5"'),
    bad("a rate of 0", req(BASE + ["--rate", "0"]), '--rate: expected a finite number > 0, got "0"'),
    bad("an infinite rate", req(BASE + ["--rate", "inf"]), '--rate: expected a finite number > 0, got "inf"'),
    bad("a rate past the doubles", req(BASE + ["--rate", "1e400"]), '--rate: expected a finite number > 0, got "1e400"'),
    bad("a clock offset that is not a number", req(BASE + ["--clock-offset-ms", "5s"]),
        '--clock-offset-ms: expected a whole number from -1000000000000 to 1000000000000, got "5s"'),
    bad("a clock offset past 10^12 ms", req(BASE + ["--clock-offset-ms", "-1000000000001"]),
        '--clock-offset-ms: expected a whole number from -1000000000000 to 1000000000000, got "-1000000000001"'),
    bad("a duration past 10^12 ms (31.7 years: every language's duration type holds it)",
        req(BASE + ["--drain-ms", "1000000000001"]), '--drain-ms: expected a whole number from 0 to 1000000000000, got "1000000000001"'),
    bad("an event count past 2^53 - 1 (JavaScript's exact integers)", req(["--target", "http://h/", "--endpoint-id", "ep", "--events", "9007199254740992"]),
        '--events: expected a whole number from 0 to 9007199254740991, got "9007199254740992"'),
    ok("a replay instant is a Unix ms timestamp, past 10^12", req(["--store", "j", "--policy", "p", "--now-ms", "1800000000000"], command="replay"),
       {"now_ms": 1800000000000}),
    bad("a target's query is hidden in the error (it may hold a token)", req(["--target", "ftp://u:p@h/x?token=t0k3n", "--endpoint-id", "ep", "--events", "1"]),
        '--target: expected an http:// or https:// URL with a host, got "ftp://***@h/x?***"'),
    bad("an http redis URL, its password hidden", req(BASE + ["--redis", "http://u:secret@r:6379"]),
        '--redis: expected a redis:// or rediss:// URL with a host, got "http://***@r:6379"'),
    bad("a redis path that is not a database", req(BASE + ["--redis", "redis://r:6379/x"]),
        '--redis: expected a database number as the path (HOST:PORT/DB), got "redis://r:6379/x"'),
    bad("--redis and --redis-cluster together", req(BASE + ["--redis", "redis://a:1", "--redis-cluster", "redis://b:2"]),
        "--redis and --redis-cluster are exclusive"),
    bad("a metrics address without a port", req(BASE + ["--metrics-addr", "127.0.0.1"]),
        '--metrics-addr: expected HOST:PORT (e.g. 127.0.0.1:0, [::1]:9100), got "127.0.0.1"'),
    bad("a metrics port above 65535", req(BASE + ["--metrics-addr", "127.0.0.1:70000"]),
        '--metrics-addr: expected HOST:PORT (e.g. 127.0.0.1:0, [::1]:9100), got "127.0.0.1:70000"'),
    bad("an IPv6 metrics address without brackets", req(BASE + ["--metrics-addr", "::1:9100"]),
        '--metrics-addr: expected HOST:PORT (e.g. 127.0.0.1:0, [::1]:9100), got "::1:9100"'),
    bad("--watch-artifact-ms without any artifact file", req(BASE + ["--watch-artifact-ms", "100"]),
        "--watch-artifact-ms needs --artifact PATH or $RETRY_POLICY_ARTIFACT"),
    bad("--watch-artifact-ms of 0", req(BASE + ["--watch-artifact-ms", "0", "--artifact", "a.wasm"]),
        '--watch-artifact-ms: expected a whole number >= 1, got "0"'),
    bad("following without a store", req(BASE + ["--artifact-from-redis", "--trust-key", "k.pem"]),
        "--artifact-from-redis needs --redis or --redis-cluster"),
    bad("following without a trust key", req(BASE + ["--redis", "redis://r:1", "--artifact-from-redis"]),
        "--artifact-from-redis needs --trust-key FILE"),
    bad("following and watching the file", req(BASE + ["--redis", "redis://r:1", "--artifact-from-redis", "--trust-key", "k",
                                                   "--watch-artifact-ms", "5", "--artifact", "a.wasm"]),
        "--artifact-from-redis and --watch-artifact-ms are exclusive"),
    bad("a trust key without following", req(BASE + ["--trust-key", "k.pem"]), "--trust-key is only for --artifact-from-redis"),
    bad("a rollout tick under 50 ms", req(BASE + ["--rollout-poll-ms", "49"]), '--rollout-poll-ms: expected a whole number from 50 to 60000, got "49"'),
    bad("a replica id over 200 bytes", req(BASE + ["--replica-id", "é" * 101]), "--replica-id: expected 1 to 200 bytes of UTF-8, got 202"),
    bad("a language extra the host does not honour", req(BASE + ["--signing-secrets", "s.json"]),
        "--signing-secrets: not supported by this language's replica (a language extra)"),
    {"name": "replay: the required flags alone (the whole answer)", "request": req(["--store", "j", "--policy", "p"], command="replay"),
     "exact": {"command": "replay", "store": "j", "policy": "p", "endpoint": None, "reason": None, "from_ms": None, "to_ms": None,
               "limit": None, "now_ms": None, "artifact": None}},
    ok("replay: every filter", req(["--store", "j", "--policy", "p", "--endpoint", "ep", "--reason", "retry_window_elapsed",
                                    "--from-ms", "1", "--to-ms", "2", "--limit", "3", "--now-ms", "4"], command="replay"),
       {"endpoint": "ep", "reason": "retry_window_elapsed", "from_ms": 1, "to_ms": 2, "limit": 3, "now_ms": 4}),
    ok("replay: the artifact falls back to $RETRY_POLICY_ARTIFACT too", req(["--store", "j", "--policy", "p"], command="replay", artifact_env="/a.wasm"),
       {"artifact": "/a.wasm"}),
    bad("--watch-policy without --policy (a Rust extra)", req(BASE + ["--watch-policy"], extras=["--watch-policy"]),
        "--watch-policy needs --policy FILE"),
    bad("replay: delivered is not a dead letter's reason", req(["--store", "j", "--policy", "p", "--reason", "delivered"], command="replay"),
        '--reason: expected the stop reason of a dead letter, got "delivered"'),
    bad("replay: a limit of 0", req(["--store", "j", "--policy", "p", "--limit", "0"], command="replay"),
        '--limit: expected a whole number >= 1, got "0"'),
    bad("replay: --policy missing", req(["--store", "j"], command="replay"), "--policy is required"),
    bad("replay: a run flag", req(["--store", "j", "--policy", "p", "--target", "http://h/"], command="replay"), 'unknown argument "--target"'),
    bad("a command that is neither", req([], command="deliver"), "replica-args request: `command` is replica or replay"),
    bad("args that are not strings", {"command": "replica", "args": [1]}, "replica-args request: `args` is an array of strings"),
]

doc = {"format": "webhook-retry-policy/replica-args 1", "spec": "docs/replica.md",
       "regenerate": "python3 tests/vectors-cli/generate.py", "cases": cases}
path = pathlib.Path(__file__).with_name("replica-args.json")
path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
print(f"{path}: {len(cases)} cases")
