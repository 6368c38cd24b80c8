//! The classes a policy document must define for the dispatcher's events:
//! checked when the document is loaded and before an artifact whose
//! embedded document the dispatcher runs is swapped in.

use retry_policy_core::{ErrorCode, PolicyError};
use retry_policy_host::{document_classes, PolicyDocument};

/// `Ok` when `doc` defines every class of `needed`, else `unknown_event_class`
/// naming the first missing one and what there is.
pub fn has_classes<'a>(doc: &PolicyDocument, mut needed: impl Iterator<Item = &'a str>) -> Result<(), PolicyError> {
    let classes: Vec<String> = document_classes(doc).into_iter().map(|(c, _)| c).collect();
    let Some(missing) = needed.find(|n| !classes.iter().any(|c| c == n)) else { return Ok(()) };
    let mut known: Vec<&str> = classes.iter().map(String::as_str).collect();
    known.sort_unstable();
    Err(PolicyError::new(
        ErrorCode::UnknownEventClass,
        "classes",
        format!("policy document has no event class `{missing}` (it has: {})", known.join(", ")),
    ))
}
