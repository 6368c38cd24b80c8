use super::*;
use std::ops::Not;

fn run(line: &str) -> Result<(String, Flags, Vec<String>), clap::Error> {
    parse(std::iter::once("retry-policy-dispatcher".to_string()).chain(line.split_whitespace().map(String::from)))
}

#[test]
fn the_derived_command_line_is_consistent() {
    command().debug_assert();
}

#[test]
fn replica_flags_arrive_under_their_long_names_with_inline_values_and_negative_numbers() {
    let (name, f, _) =
        run("replica --target=http://x/ --endpoint-id e --events 3 --clock-offset-ms -500 --allow-private-targets")
            .unwrap();
    assert_eq!(name, "replica");
    assert_eq!(f.str("target"), Some("http://x/"));
    assert_eq!(f.str("endpoint-id"), Some("e"));
    assert_eq!(f.get::<i64>("clock-offset-ms", "ms").unwrap(), Some(-500));
    assert!(f.has("allow-private-targets"));
    assert!(!f.has("watch-policy"));
    assert_eq!(f.str("policy"), None);
}

#[test]
fn unknown_repeated_and_valueless_flags_are_usage_errors_naming_the_flag_exit_2() {
    for (line, flag) in [
        ("replica --nope 1", "--nope"),
        ("replica --watch-artifact", "--watch-artifact"),
        ("replica --metrics-port 0", "--metrics-port"),
        ("replica --events 1 --events 2", "--events"),
        ("replica --events", "--events"),
        ("demo --drain-ms 5", "--drain-ms"),
        ("frobnicate", "frobnicate"),
    ] {
        let e = run(line).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{line}");
        assert!(e.to_string().contains(flag), "{line}: {e}");
    }
}

#[test]
fn replay_takes_the_flags_of_docs_health_dispatch_md_section_4_and_refuses_others() {
    let line = "replay --store j --policy p --endpoint e --reason terminal_response --from-ms 1 --to-ms 2 --limit 3 --now-ms 4";
    let (name, f, _) = run(line).unwrap();
    assert_eq!(name, "replay");
    for (flag, v) in [("store", "j"), ("policy", "p"), ("endpoint", "e"), ("reason", "terminal_response")] {
        assert_eq!(f.str(flag), Some(v), "--{flag}");
    }
    for (flag, v) in [("from-ms", 1u64), ("to-ms", 2), ("limit", 3), ("now-ms", 4)] {
        assert_eq!(f.get::<u64>(flag, "n").unwrap(), Some(v), "--{flag}");
    }
    for bad in ["replay --events 1", "replay --limit", "replay --store a --store b"] {
        assert_eq!(run(bad).unwrap_err().exit_code(), 2, "{bad}");
    }
}

#[test]
fn help_and_version_exit_0_for_the_program_and_every_command() {
    for command in ["", "replica ", "demo ", "endpoints ", "bench ", "replay "] {
        for flag in ["--help", "--version"] {
            let line = format!("{command}{flag}");
            let e = run(&line).unwrap_err();
            assert_eq!(e.exit_code(), 0, "{line}: {e}");
            assert!(e.use_stderr().not(), "{line}: printed on stderr");
        }
    }
    let help = run("replica --help").unwrap_err().to_string();
    for flag in ["--ca-file", "--artifact-from-redis", "--trust-key", "--replica-id", "--rollout-poll-ms"] {
        assert!(help.contains(flag), "replica --help lacks {flag}");
    }
    let version = run("replica --version").unwrap_err().to_string();
    assert!(version.contains(env!("CARGO_PKG_VERSION")), "{version}");
}

#[test]
fn endpoints_takes_name_status_pairs() {
    let (name, f, specs) = run("endpoints ok=200 gone=410 --log").unwrap();
    assert_eq!((name.as_str(), specs.len(), f.has("log")), ("endpoints", 2, true));
}
