//! Reading a `Retry-After` header (RFC 9110 §10.2.3), the same way in every
//! host: a delay in seconds, or an IMF-fixdate. Anything else is "not
//! usable" (`None`), and the decision then ignores the header.
//!
//! * Spaces and horizontal tabs at both ends are stripped (nothing else:
//!   a newline or a no-break space makes the value unusable).
//! * ASCII digits only: that many seconds. No sign, no fraction, no
//!   Unicode digits. A huge value saturates at 2^53 - 1 ms (exact in every
//!   host's numbers).
//! * Exactly `Sun, 06 Nov 1994 08:49:37 GMT`: any of the seven day names
//!   (it need not match the date), a two-digit day that exists in that month
//!   (Gregorian leap years), `Jan`..`Dec` in that case, a four-digit year,
//!   hour 00-23, minute 00-59, second 00-60 (a leap second counts as 60 s),
//!   `GMT`. The delay is from `now_ms` to that instant, 0 if it is past.
//!
//! Work is linear in the header's length and never allocates.

/// The largest delay returned: 2^53 - 1 ms.
pub const MAX_RETRY_AFTER_MS: u64 = (1 << 53) - 1;

const DAYS: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
const MONTHS: [&[u8; 3]; 12] =
    [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];

/// The header's value in milliseconds from `now_ms`, or `None` when unusable.
pub fn parse_retry_after(header: &str, now_ms: u64) -> Option<u64> {
    let v = header.as_bytes();
    let is_ws = |b: &u8| *b == b' ' || *b == b'\t';
    let start = v.iter().position(|b| !is_ws(b))?;
    let end = v.iter().rposition(|b| !is_ws(b))? + 1;
    let v = &v[start..end];
    if v.iter().all(u8::is_ascii_digit) {
        return Some(seconds(v));
    }
    let instant_ms = imf_fixdate_ms(v)?;
    let delay = instant_ms - i128::from(now_ms);
    Some(u64::try_from(delay.clamp(0, i128::from(MAX_RETRY_AFTER_MS))).unwrap_or(MAX_RETRY_AFTER_MS))
}

/// `digits * 1000`, saturating at 2^53 - 1.
fn seconds(digits: &[u8]) -> u64 {
    let mut s: u64 = 0;
    for d in digits {
        s = s.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        if s > MAX_RETRY_AFTER_MS {
            return MAX_RETRY_AFTER_MS;
        }
    }
    s.saturating_mul(1000).min(MAX_RETRY_AFTER_MS)
}

/// Two or four ASCII digits as a number.
fn num(b: &[u8]) -> Option<i64> {
    b.iter().try_fold(0i64, |n, d| d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0')))
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian; Howard
/// Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` as Unix milliseconds (may be negative).
fn imf_fixdate_ms(v: &[u8]) -> Option<i128> {
    // 29 bytes, fixed positions.
    if v.len() != 29 {
        return None;
    }
    let fixed = [(3, b','), (4, b' '), (7, b' '), (11, b' '), (16, b' '), (19, b':'), (22, b':'), (25, b' ')];
    if fixed.iter().any(|&(i, c)| v[i] != c) || &v[26..29] != b"GMT" {
        return None;
    }
    if !DAYS.iter().any(|d| &v[0..3] == *d) {
        return None;
    }
    let day = num(&v[5..7])?;
    let month = MONTHS.iter().position(|m| &v[8..11] == *m)? as i64 + 1;
    let year = num(&v[12..16])?;
    let (hour, minute, second) = (num(&v[17..19])?, num(&v[20..22])?, num(&v[23..25])?);
    if day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Some(i128::from(secs) * 1000)
}
