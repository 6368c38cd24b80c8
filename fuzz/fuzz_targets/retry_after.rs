//! `parse_retry_after` never panics, never exceeds 2^53 - 1, ignores
//! surrounding spaces and tabs, and agrees with an independent reference
//! for delay-seconds and IMF-fixdate (counting days year by year, a
//! different algorithm from the core's).
#![no_main]
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use retry_policy_core::parse_retry_after;
use retry_policy_core::retry_after::MAX_RETRY_AFTER_MS;

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Unix seconds of an IMF-fixdate, or None.
fn reference_imf(v: &str) -> Option<i64> {
    let b = v.as_bytes();
    if b.len() != 29 || !v.is_ascii() {
        return None;
    }
    if !["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(&&v[0..3]) {
        return None;
    }
    if &v[3..5] != ", " || &b[7..8] != b" " || &b[11..12] != b" " || &b[16..17] != b" " || &v[25..29] != " GMT" {
        return None;
    }
    if &b[19..20] != b":" || &b[22..23] != b":" {
        return None;
    }
    let n = |s: &str| -> Option<i64> { s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok())? };
    let day = n(&v[5..7])?;
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = months.iter().position(|m| *m == &v[8..11])? as i64 + 1;
    let year = n(&v[12..16])?;
    let (h, mi, s) = (n(&v[17..19])?, n(&v[20..22])?, n(&v[23..25])?);
    let mdays = [31, if leap(year) { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if day < 1 || day > mdays[month as usize - 1] || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut days: i64 = 0;
    if year >= 1970 {
        for y in 1970..year {
            days += if leap(y) { 366 } else { 365 };
        }
    } else {
        for y in year..1970 {
            days -= if leap(y) { 366 } else { 365 };
        }
    }
    days += mdays[..month as usize - 1].iter().sum::<i64>() + day - 1;
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

fn reference(header: &str, now_ms: u64) -> Option<u64> {
    let v = header.trim_matches(|c| c == ' ' || c == '\t');
    if v.is_empty() {
        return None;
    }
    if v.bytes().all(|c| c.is_ascii_digit()) {
        let secs = v.bytes().try_fold(0u128, |n, d| Some((n * 10 + u128::from(d - b'0')).min(1 << 70)))?;
        return Some((secs * 1000).min(u128::from(MAX_RETRY_AFTER_MS)) as u64);
    }
    let at_ms = i128::from(reference_imf(v)?) * 1000;
    Some((at_ms - i128::from(now_ms)).clamp(0, i128::from(MAX_RETRY_AFTER_MS)) as u64)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(now_ms) = retry_policy_fuzz_ops::edge_u64(&mut u) else { return };
    let structured = u.arbitrary::<bool>().unwrap_or(false);
    let header = if structured {
        let Ok(d) = retry_policy_fuzz_ops::imf_date(&mut u) else { return };
        d
    } else {
        String::from_utf8_lossy(u.take_rest()).into_owned()
    };
    let got = parse_retry_after(&header, now_ms);
    if let Some(ms) = got {
        assert!(ms <= MAX_RETRY_AFTER_MS);
    }
    assert_eq!(got, reference(&header, now_ms), "{header:?} at {now_ms}");
    let padded = format!(" \t{header}\t ");
    assert_eq!(parse_retry_after(&padded, now_ms), got, "padding changed {header:?}");
});
