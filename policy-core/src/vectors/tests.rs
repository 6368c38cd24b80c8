use super::*;

/// Every case of every vector file under tests/vectors (formats 1-3).
fn files() -> [(&'static str, &'static str); 21] {
    macro_rules! v {
        ($($f:literal),*) => { [$(($f, include_str!(concat!("../../../tests/vectors/", $f)))),*] };
    }
    v!(
        "bounds.json",
        "budget.json",
        "classify.json",
        "decide.json",
        "delay.json",
        "format3-documents.json",
        "format3-gate.json",
        "format3-pacer.json",
        "format3-settle.json",
        "format3-store.json",
        "plan.json",
        "random-budget.json",
        "random-decide.json",
        "random-delay.json",
        "random-plan.json",
        "random-resume.json",
        "random-retry-after.json",
        "random-step.json",
        "resume.json",
        "retry-after.json",
        "step.json"
    )
}

#[test]
fn every_vector_case_passes_natively_through_the_shared_runner() {
    let mut passed = 0;
    for (file, text) in files() {
        let doc = crate::json::parse(text).expect("JSON");
        let (kind, cases) = file_cases(&doc).expect(file);
        for (i, case) in cases.iter().enumerate() {
            check_case(&mut Native, kind, case).unwrap_or_else(|e| panic!("{file}: {}: {e}", case_name(case, i)));
            passed += 1;
        }
    }
    assert!(passed >= 1000, "{passed}");
}

#[test]
fn a_wrong_expectation_fails_naming_what_differs() {
    let case = r#"{"name": "x", "op": "classify_status", "input": {"status": 503}, "expect": {"outcome": "terminal"}}"#;
    let e = check_case_text("1", case).unwrap_err();
    assert!(e.contains("retryable"), "{e}");
}

#[test]
fn an_unknown_field_is_a_broken_vector() {
    let case = r#"{"name": "x", "op": "classify_status", "input": {"status": 503}, "expect": {}, "extra": 1}"#;
    assert!(check_case_text("1", case).unwrap_err().starts_with("broken vector"));
    assert!(check_case_text("7", "{}").unwrap_err().starts_with("broken vector"));
}
