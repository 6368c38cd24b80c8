//! The exposition against docs/metrics.md (the page's tables are read
//! here, the same comparison the cross-host test makes): every family,
//! type, label name, closed label set (at 0 from the start) and bucket,
//! and nothing else under `webhook_*`. Then the counters move as the
//! worker's calls say.

use std::collections::{BTreeMap, BTreeSet};

use retry_policy_host::ArtifactInfo;

use super::*;

/// One family as the doc or the exposition describes it.
#[derive(Debug, Default, PartialEq)]
struct Family {
    kind: String,
    /// Label name -> its closed set of values (empty: open).
    labels: BTreeMap<String, BTreeSet<String>>,
    buckets: Vec<f64>,
}

const DOC: &str = include_str!("../../../../docs/metrics.md");

/// The kinds of fleet/transport-kinds.json, read here (not through the constants).
fn table_kinds() -> BTreeSet<String> {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../../../fleet/transport-kinds.json")).expect("the table is JSON");
    table["kinds"]
        .as_array()
        .expect("a list of kinds")
        .iter()
        .map(|k| k["kind"].as_str().unwrap().to_string())
        .collect()
}

/// The families table and the bucket list of docs/metrics.md, by sample
/// name (`webhook_attempts_total`).
fn doc_families() -> BTreeMap<String, Family> {
    let mut out = BTreeMap::new();
    for row in DOC.lines().filter(|l| l.starts_with("| `webhook_")) {
        let row = row.replace("\\|", "\u{1}");
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`').to_string();
        let ticked = |s: &str| s.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>();
        let mut labels = BTreeMap::new();
        match cells[3].split_once(" = ") {
            Some((label_name, values)) => {
                let values: BTreeSet<String> = if values.contains("every kind in `fleet/transport-kinds.json`") {
                    table_kinds()
                } else {
                    ticked(values).into_iter().collect()
                };
                labels.insert(ticked(label_name).remove(0), values);
            }
            None => labels.extend(ticked(cells[3]).into_iter().map(|l| (l, BTreeSet::new()))),
        }
        out.insert(name, Family { kind: cells[2].to_string(), labels, buckets: Vec::new() });
    }
    let buckets = DOC.split("### Buckets").nth(1).unwrap_or_default();
    for bullet in buckets.split("\n* `").skip(1) {
        let bullet = bullet.split("\n\n").next().unwrap_or_default();
        let (name, bounds) = bullet.split_once("`:").unwrap_or_default();
        let bounds = bounds.split(',').map(|b| b.trim().parse::<f64>().expect("a bucket bound in the doc")).collect();
        out.get_mut(name).expect("a bucket list of a family in the table").buckets = bounds;
    }
    out
}

/// `name{a="x",b="y"} value` -> (name, labels).
fn parse_sample(line: &str) -> (String, Vec<(String, String)>) {
    let Some((name, rest)) = line.split_once('{') else {
        return (line.split(' ').next().unwrap_or_default().to_string(), Vec::new());
    };
    let mut labels = Vec::new();
    let mut rest = rest;
    while let Some((key, after)) = rest.split_once("=\"") {
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = after.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '"' => {
                    end = i + 1;
                    break;
                }
                c => value.push(c),
            }
        }
        labels.push((key.trim_start_matches(',').to_string(), value));
        rest = &after[end..];
        if rest.starts_with('}') {
            break;
        }
    }
    (name.to_string(), labels)
}

/// The exposition's families, by sample name, from its TYPE lines and samples.
fn exposed_families(text: &str) -> BTreeMap<String, Family> {
    let mut out = BTreeMap::new();
    let mut types = BTreeMap::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("# TYPE ") {
            let (name, kind) = t.split_once(' ').expect("# TYPE name type");
            let sample_name = if kind == "counter" { format!("{name}_total") } else { name.to_string() };
            types.insert(name.to_string(), sample_name.clone());
            out.insert(sample_name, Family { kind: kind.to_string(), ..Family::default() });
        } else if !line.starts_with('#') && !line.is_empty() {
            let (sample, labels) = parse_sample(line);
            let base = ["_total", "_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| sample.strip_suffix(s).filter(|b| types.contains_key(*b)))
                .unwrap_or(&sample);
            let family = out.get_mut(&types[base]).unwrap_or_else(|| panic!("a sample with no TYPE: {line}"));
            for (k, v) in labels {
                if k == "le" {
                    if v != "+Inf" {
                        family.buckets.push(v.parse().expect("a bucket bound"));
                    }
                } else {
                    family.labels.entry(k).or_default().insert(v);
                }
            }
        }
    }
    out
}

fn artifact(sha256: &str) -> ArtifactInfo {
    ArtifactInfo {
        sha256: sha256.into(),
        abi: "webhook:retry-policy@1.0.0".into(),
        abi_version: 2,
        size_bytes: 0,
        source: retry_policy_host::ArtifactSource::Bytes,
        document_version: None,
        document_json: None,
        health_classes: Vec::new(),
        build: None,
    }
}

#[test]
fn a_fresh_exposition_has_exactly_the_families_types_labels_and_buckets_of_docs_metrics_md() {
    let m = Metrics::default();
    m.set_policy_info(&artifact("ab12"), "v7");
    let text = m.render();
    assert!(text.ends_with("# EOF\n"), "OpenMetrics text ends with # EOF:\n{text}");
    let mut exposed = exposed_families(&text);
    exposed.retain(|name, _| name.starts_with("webhook_"));
    let mut doc = doc_families();
    assert_eq!(doc.len(), 17, "the doc's table was read: {doc:?}");
    // Open label sets (policy_info's) are compared by name; closed ones by every value.
    for (name, family) in doc.iter_mut() {
        for (label, values) in family.labels.iter_mut() {
            if values.is_empty() {
                *values = exposed[name].labels[label].clone();
            }
        }
    }
    assert_eq!(exposed.keys().collect::<Vec<_>>(), doc.keys().collect::<Vec<_>>(), "{text}");
    for (name, want) in &doc {
        assert_eq!(&exposed[name], want, "{name}\n{text}");
    }
    for line in text.lines().filter(|l| l.starts_with("webhook_") && !l.starts_with("webhook_policy_info")) {
        assert!(line.ends_with(" 0") || line.ends_with(" 0.0"), "everything starts at 0: {line}");
    }
}

#[test]
fn the_transport_errors_family_has_every_kind_of_fleet_transport_kinds_json() {
    let kinds = table_kinds();
    assert_eq!(kinds.len(), 14, "{kinds:?}");
    let text = Metrics::default().render();
    for kind in &kinds {
        assert!(text.contains(&format!("webhook_transport_errors_total{{kind=\"{kind}\"}} 0\n")), "{kind}\n{text}");
    }
}

#[test]
fn the_engines_count_actions_move_counters_under_their_labels_and_nothing_else_makes_a_series() {
    let m = Metrics::default();
    let stop = Some(("stop_reason", "retry_budget_exhausted"));
    m.count("webhook_deadletter_total", stop, 2).unwrap();
    m.count("webhook_delivered_total", None, 1).unwrap();
    m.count("webhook_endpoint_disable_signals_total", None, 1).unwrap();
    m.count("webhook_attempts_total", Some(("kind", "first")), 1).unwrap();
    m.count("webhook_attempts_total", Some(("kind", "retry")), 2).unwrap();
    for kind in ["destination_refused", "read_timeout", "credentials_unavailable"] {
        m.count("webhook_transport_errors_total", Some(("kind", kind)), 1).unwrap();
    }
    m.count("webhook_holds_total", Some(("reason", "circuit_open")), 3).unwrap();
    m.count("webhook_probe_calls_total", Some(("granted", "error")), 1).unwrap();
    m.gauge("webhook_held_events", 4).unwrap();
    assert!(m.count("webhook_transport_errors_total", Some(("kind", "not_a_kind")), 1).is_err());
    assert!(m.count("webhook_deadletter_total", Some(("stop_reason", "delivered")), 1).is_err());
    assert!(m.count("webhook_delivered_total", Some(("kind", "first")), 1).is_err(), "no label on a plain counter");
    assert!(m.count("webhook_attempts_total", None, 1).is_err(), "a labelled counter needs its label");
    assert!(m.count("webhook_nonsense_total", None, 1).is_err());
    assert!(m.gauge("webhook_in_flight", 1).is_err(), "the host's own gauge is not the engine's");
    let text = m.render();
    for want in [
        "webhook_deadletter_total{stop_reason=\"retry_budget_exhausted\"} 2\n",
        "webhook_deadletter_total{stop_reason=\"budget_unavailable\"} 0\n",
        "webhook_delivered_total 1\n",
        "webhook_endpoint_disable_signals_total 1\n",
        "webhook_attempts_total{kind=\"first\"} 1\n",
        "webhook_attempts_total{kind=\"retry\"} 2\n",
        "webhook_transport_errors_total{kind=\"destination_refused\"} 1\n",
        "webhook_transport_errors_total{kind=\"read_timeout\"} 1\n",
        "webhook_transport_errors_total{kind=\"credentials_unavailable\"} 1\n",
        "webhook_holds_total{reason=\"circuit_open\"} 3\n",
        "webhook_probe_calls_total{granted=\"error\"} 1\n",
        "webhook_held_events 4\n",
    ] {
        assert!(text.contains(want), "{want}{text}");
    }
    assert!(!text.contains("stop_reason=\"delivered\""), "delivered is not a dead letter");
    assert!(!text.contains("not_a_kind"), "not a transport kind: no series");
    assert_eq!(m.counter("webhook_attempts_total", Some(("kind", "retry"))), 2);
}

#[test]
fn a_delivery_is_in_flight_while_it_runs_and_timed_unless_nothing_was_sent() {
    let m = Metrics::default();
    let d = m.delivery(|| {
        assert_eq!(m.in_flight(), 1);
        Delivery::Response { status: 200, retry_after: None }
    });
    assert_eq!(d, Delivery::Response { status: 200, retry_after: None });
    m.delivery(|| Delivery::Failed("read_timeout"));
    m.delivery(|| Delivery::Failed("destination_refused"));
    m.delivery(|| Delivery::NotSent);
    assert_eq!(m.in_flight(), 0);
    let text = m.render();
    assert!(text.contains("webhook_delivery_duration_seconds_count 2\n"), "{text}");
    assert!(text.contains("webhook_in_flight 0\n"), "{text}");
}

#[test]
fn every_store_call_is_timed() {
    let m = Metrics::default();
    for ms in [1, 2, 300] {
        m.store_duration(std::time::Duration::from_millis(ms));
    }
    let text = m.render();
    assert!(text.contains("webhook_budget_store_duration_seconds_count 3\n"), "{text}");
}

#[test]
fn the_policy_info_series_is_replaced_on_a_swap_never_duplicated() {
    let m = Metrics::default();
    assert!(!m.render().contains("webhook_policy_info{"), "no series before the dispatcher sets it");
    m.set_policy_info(&artifact("old"), "1");
    m.set_policy_info(&artifact("new"), "");
    let text = m.render();
    let series: Vec<_> = text.lines().filter(|l| l.starts_with("webhook_policy_info{")).collect();
    assert_eq!(
        series,
        ["webhook_policy_info{artifact_sha256=\"new\",abi=\"webhook:retry-policy@1.0.0\",document_version=\"\"} 1"]
    );
    m.policy_reload(false);
    assert_eq!(m.policy_reloads(), (0, 1));
}

#[test]
fn metrics_are_served_over_http_as_openmetrics() {
    let m = Arc::new(Metrics::default());
    let server = m.serve("127.0.0.1:0").unwrap();
    let mut conn = std::net::TcpStream::connect(server.addr()).unwrap();
    use std::io::{Read, Write};
    write!(conn, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
    let mut reply = String::new();
    conn.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.to_ascii_lowercase().contains("content-type: application/openmetrics-text"), "{reply}");
    assert!(reply.contains("webhook_in_flight 0\n") && reply.ends_with("# EOF\n"), "{reply}");
}
