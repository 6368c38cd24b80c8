use alloc::string::String;

use super::{flag_names, judge_text, usage};

fn replica(args: &str, extras: &str) -> Result<String, String> {
    judge_text(&alloc::format!(
        r#"{{"command": "replica", "args": {args}, "extras": {extras}, "replica_id": "rust-h-1", "artifact_env": null}}"#
    ))
}

#[test]
fn every_flag_absent_gets_its_default_and_the_answer_names_every_flag() {
    let a = replica(r#"["--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "3"]"#, "[]").unwrap();
    assert!(
        a.starts_with(
            r#"{"command":"replica","target":"http://127.0.0.1:9/","endpoint_id":"ep","events":3,"concurrency":8,"#
        ),
        "{a}"
    );
    assert!(
        a.contains(r#""replica_id":"rust-h-1""#)
            && a.contains(r#""rollout_poll_ms":500"#)
            && a.contains(r#""class":"storm""#),
        "{a}"
    );
}

#[test]
fn a_language_extra_the_host_does_not_honour_is_refused_by_name() {
    let base = r#"["--target", "http://h/", "--endpoint-id", "ep", "--events", "1", "--class", "x"]"#;
    assert_eq!(
        replica(base, "[]").unwrap_err(),
        "--class: not supported by this language's replica (a language extra)"
    );
    assert!(replica(base, r#"["--class"]"#).unwrap().contains(r#""class":"x""#));
}

#[test]
fn help_and_version_win_over_any_bad_argument() {
    assert_eq!(replica(r#"["--no-such", "--help"]"#, "[]").unwrap(), r#"{"command":"help"}"#);
    assert_eq!(replica(r#"["--version", "--events", "x"]"#, "[]").unwrap(), r#"{"command":"version"}"#);
}

#[test]
fn the_usage_names_every_flag_of_its_table_and_the_flag_list_has_each_once() {
    let text = usage("replica");
    for f in super::REPLICA {
        assert!(text.contains(f.name), "{}", f.name);
    }
    let names = flag_names();
    assert!(names.contains(&"--from-ms") && names.iter().filter(|n| **n == "--store").count() == 1);
}
