//! Durations for humans.

/// `855000` -> `14m15s`, `86400000` -> `24h00m00s`, `1500` -> `1s+500ms`.
pub fn ms(ms: u64) -> String {
    let s = ms / 1000;
    let frac = ms % 1000;
    let base = if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, (s % 3600) / 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    };
    if frac == 0 {
        base
    } else {
        format!("{base}+{frac}ms")
    }
}

/// A share as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}
