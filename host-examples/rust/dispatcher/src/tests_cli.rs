use super::*;
use crate::replica_args::Judged;
use std::ops::Not;

fn run(line: &str) -> Result<Parsed, clap::Error> {
    parse(std::iter::once("retry-policy-dispatcher".to_string()).chain(line.split_whitespace().map(String::from)))
}

/// `replica`/`replay`: the command and the core's judgement.
fn judged(line: &str) -> (&'static str, Result<Judged, String>) {
    match run(line).unwrap() {
        Parsed::Replica { command, judged } => (command, judged),
        other => panic!("{line}: not judged by the core: {other:?}"),
    }
}

#[test]
fn the_derived_command_line_is_consistent() {
    command().debug_assert();
}

#[test]
fn replica_flags_are_judged_by_the_core_with_inline_values_and_negative_numbers() {
    let line = "replica --target=http://x/ --endpoint-id e --events 3 --clock-offset-ms -500 --allow-private-targets";
    let Ok(Judged::Replica(s)) = judged(line).1 else { panic!("{line}") };
    assert_eq!((s.target.as_str(), s.endpoint_id.as_str(), s.events), ("http://x/", "e", 3));
    assert_eq!(s.clock_offset_ms, -500);
    assert!(s.allow_private_targets);
    assert!(!s.watch_policy);
    assert_eq!(s.policy, None);
}

#[test]
fn unknown_repeated_and_valueless_flags_are_usage_errors_naming_the_flag_exit_2() {
    // replica and replay: the core's line (main prints it and exits 2).
    for (line, says) in [
        ("replica --nope 1", "unknown argument \"--nope\""),
        ("replica --watch-artifact", "unknown argument \"--watch-artifact\""),
        ("replica --metrics-port 0", "unknown argument \"--metrics-port\""),
        ("replica --events 1 --events 2", "--events given twice"),
        ("replica --events", "--events: missing value"),
        ("replay --store j --policy p --events 1", "unknown argument \"--events\""),
    ] {
        let e = judged(line).1.unwrap_err();
        assert_eq!(e, says, "{line}");
    }
    // The other commands: clap's.
    for (line, flag) in [("demo --drain-ms 5", "--drain-ms"), ("frobnicate", "frobnicate")] {
        let e = run(line).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{line}");
        assert!(e.to_string().contains(flag), "{line}: {e}");
    }
}

#[test]
fn replay_takes_the_flags_of_docs_health_dispatch_md_section_4_also_as_replica_replay() {
    let flags =
        "--store j --policy p --endpoint e --reason terminal_response --from-ms 1 --to-ms 2 --limit 3 --now-ms 4";
    for line in [format!("replay {flags}"), format!("replica replay {flags}")] {
        let (command, judged) = judged(&line);
        let Ok(Judged::Replay(s)) = judged else { panic!("{line}") };
        assert_eq!(command, "replay", "{line}");
        assert_eq!((s.store.as_str(), s.policy.as_str()), ("j", "p"));
        assert_eq!((s.endpoint.as_deref(), s.reason.as_deref()), (Some("e"), Some("terminal_response")));
        assert_eq!((s.from_ms, s.to_ms, s.limit, s.now_ms), (Some(1), Some(2), Some(3), Some(4)));
    }
    for bad in ["replay --store j --policy p --limit", "replay --store a --store b --policy p", "replay --store j"] {
        assert!(judged(bad).1.is_err(), "{bad}");
    }
}

#[test]
fn help_and_version_exit_0_for_the_program_and_every_command() {
    for command in ["", "demo ", "endpoints ", "bench "] {
        for flag in ["--help", "--version"] {
            let line = format!("{command}{flag}");
            let e = run(&line).unwrap_err();
            assert_eq!(e.exit_code(), 0, "{line}: {e}");
            assert!(e.use_stderr().not(), "{line}: printed on stderr");
        }
    }
    let program = run("--help").unwrap_err().to_string();
    assert!(program.contains("replica") && program.contains("replay"), "{program}");
    for command in ["replica", "replay", "replica replay"] {
        assert!(matches!(judged(&format!("{command} --version")).1, Ok(Judged::Version)), "{command}");
        let Ok(Judged::Help(help)) = judged(&format!("{command} -h")).1 else { panic!("{command} -h") };
        assert_eq!(
            help,
            retry_policy_core::replica_args::usage(if command == "replica" { "replica" } else { "replay" })
        );
    }
}

#[test]
fn endpoints_takes_name_status_pairs() {
    let Parsed::Other(name, f, specs) = run("endpoints ok=200 gone=410 --log").unwrap() else { panic!() };
    assert_eq!((name.as_str(), specs.len(), f.has("log")), ("endpoints", 2, true));
}
