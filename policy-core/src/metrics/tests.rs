//! The table against the page people read (docs/metrics.md) and the kinds
//! file hosts map their errors to (`fleet/transport-kinds.json`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{DEAD_LETTER_REASONS, FAMILIES, HOLD_REASONS};
use crate::classify::TRANSPORT_KINDS;
use crate::decide::StopReason;
use crate::health::HoldReason;
use crate::json::{parse, Value};

const PAGE: &str = include_str!("../../../docs/metrics.md");
const KINDS: &str = include_str!("../../../fleet/transport-kinds.json");

/// The words between backticks in `text`, in order.
fn ticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(String::from).collect()
}

/// docs/metrics.md's families table: (name, type, labels column).
fn page_rows() -> Vec<(String, String, String)> {
    let table = PAGE.split("## Families").nth(1).expect("a Families section").split("\n### ").next().unwrap_or("");
    table
        .lines()
        .filter(|l| l.starts_with("| `webhook_"))
        .map(|l| {
            // `\|` inside a cell is an escaped bar, not a column's edge.
            let row = l.replace("\\|", "/");
            let cells: Vec<&str> = row.split('|').collect();
            (ticked(cells[1]).remove(0), cells[2].trim().to_string(), cells[3].to_string())
        })
        .collect()
}

#[test]
fn the_table_names_the_page_s_families_in_its_order_with_their_types() {
    let rows = page_rows();
    let page: Vec<(&str, &str)> = rows.iter().map(|(n, t, _)| (n.as_str(), t.as_str())).collect();
    let table: Vec<(&str, &str)> = FAMILIES.iter().map(|f| (f.name, f.kind.as_str())).collect();
    assert_eq!(table, page);
}

#[test]
fn every_family_has_the_page_s_labels_and_closed_values() {
    for ((name, _, labels), f) in page_rows().iter().zip(FAMILIES.iter()) {
        let words = ticked(labels);
        match f.labels {
            [] => assert!(words.is_empty(), "{name}: the page has labels {words:?}"),
            [one] if labels.contains("every kind in") => {
                assert_eq!(words[0], one.name, "{name}");
                assert_eq!(one.values, Some(&TRANSPORT_KINDS[..]), "{name}");
            }
            [one] => {
                assert_eq!(words[0], one.name, "{name}");
                let values: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                assert_eq!(one.values.expect("closed on the page"), &values[..], "{name}");
            }
            open => {
                let names: Vec<&str> = open.iter().map(|l| l.name).collect();
                assert_eq!(words, names, "{name}");
                assert!(open.iter().all(|l| l.values.is_none()), "{name}");
            }
        }
    }
}

#[test]
fn histograms_have_the_page_s_buckets_and_nothing_else_has_any() {
    let section = PAGE.split("### Buckets").nth(1).expect("a Buckets section");
    for f in FAMILIES {
        let Some(at) = section.find(&alloc::format!("`{}`:", f.name)) else {
            assert!(f.buckets_s.is_empty(), "{} has buckets the page does not list", f.name);
            continue;
        };
        let text = section[at..]
            .split(":")
            .nth(1)
            .unwrap_or("")
            .split("\n\n")
            .next()
            .unwrap_or("")
            .split("\n*")
            .next()
            .unwrap_or("");
        let page: Vec<f64> = text.split(',').map(|b| b.trim().parse().expect("a number")).collect();
        assert_eq!(f.buckets_s, &page[..], "{}", f.name);
    }
}

#[test]
fn the_transport_kinds_are_the_kinds_file_s_in_its_order() {
    let doc = parse(KINDS).expect("JSON");
    let Some(Value::Array(kinds)) = doc.get("kinds") else { panic!("no kinds") };
    let names: Vec<&str> = kinds.iter().map(|k| k.get("kind").and_then(Value::as_str).expect("a kind")).collect();
    assert_eq!(names, TRANSPORT_KINDS);
}

#[test]
fn the_closed_reasons_are_the_enums_words() {
    let stops: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).filter(|r| *r != "delivered").collect();
    assert_eq!(stops, DEAD_LETTER_REASONS);
    let holds: Vec<&str> = HoldReason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(holds, HOLD_REASONS);
}
