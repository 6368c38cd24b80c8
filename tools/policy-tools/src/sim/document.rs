//! The document every simulated replica's engine is opened on: the
//! policy's classes (with a variant's budget overrides applied) and their
//! `health` sections, written out in full as the journal writes a policy
//! (`policy-core`'s `policy_to_value`), so the engine reads exactly the
//! policies the run reports.

use retry_policy_core::health::Health;
use retry_policy_core::journal::json_text::to_text;
use retry_policy_core::journal::record::policy_to_value;
use retry_policy_core::json::Value;
use retry_policy_core::Policy;

use super::scenario::Variant;
use crate::DecisionSource;

/// The class policies with the variant's budget overrides.
pub fn policies(classes: &[(String, Policy)], v: &Variant) -> Vec<(String, Policy)> {
    classes
        .iter()
        .map(|(n, p)| {
            let mut p = *p;
            p.budget.ratio = v.ratio.unwrap_or(p.budget.ratio);
            p.budget.min_sample = v.min_sample.unwrap_or(p.budget.min_sample);
            p.budget.sliding = v.sliding.unwrap_or(p.budget.sliding);
            p.budget.window_ms = v.budget_window_ms.unwrap_or(p.budget.window_ms);
            (n.clone(), p)
        })
        .collect()
}

/// The document's JSON text: `classes` in order, each with its section
/// from `health` (same order; none: format 2 for that class).
pub fn engine_document(version: &str, classes: &[(String, Policy)], health: &[Option<Health>]) -> String {
    let classes = classes
        .iter()
        .enumerate()
        .map(|(i, (name, p))| (name.clone(), policy_to_value(p, health.get(i).copied().flatten().as_ref())))
        .collect();
    to_text(&Value::Object(vec![("version".into(), version.into()), ("classes".into(), Value::Object(classes))]))
}

/// [`engine_document`], read back by `source` (the component in the CLI):
/// the classes and sections it reads must be the ones the run reports.
pub fn checked_document(
    source: &mut dyn DecisionSource,
    version: &str,
    classes: &[(String, Policy)],
    health: &[Option<Health>],
) -> Result<(), String> {
    let text = engine_document(version, classes, health);
    let read = source.load_health_document(&text).map_err(|e| format!("the simulated document: {e}"))?;
    let sections: Vec<Option<Health>> = read.health.iter().map(|(_, h)| *h).collect();
    if read.document.classes != classes || sections != health {
        return Err("the simulated document did not read back as the policies it was written from".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::health::HealthDocument;

    #[test]
    fn the_document_reads_back_as_the_same_classes_and_sections() {
        let doc = r#"{"version":"x","classes":{"a":{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000},
            "budget":{"ratio":0.07}},"b":{"window_ms":90000,"backoff":{"base_ms":500,"factor":1.5,"cap_ms":4000,"jitter":"equal"}}}}"#;
        let classes = HealthDocument::from_json(doc).unwrap().document.classes;
        let health = vec![Some(Health::default()), None];
        let doc = HealthDocument::from_json(&engine_document("v1", &classes, &health)).unwrap();
        assert_eq!(doc.document.version, "v1");
        assert_eq!(doc.document.classes, classes);
        assert_eq!(doc.health, vec![("a".to_string(), Some(Health::default())), ("b".to_string(), None)]);
    }
}
