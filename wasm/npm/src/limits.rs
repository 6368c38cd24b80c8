//! Bounds on a simulation, so a page or a script gets a `ToolError` rather
//! than a wasm memory trap: the virtual time per variant and the expected
//! number of events. The CLI (native memory) has none; the shipped
//! scenarios are far inside these.

use policy_tools::sim::Scenario;

use crate::errors::ToolError;

/// Arrivals plus drain, per variant: two days of virtual time.
pub const MAX_VIRTUAL_S: u64 = 2 * 86_400;
/// Expected new events per variant (rate x arrival seconds, summed).
pub const MAX_EVENTS: f64 = 2_000_000.0;

pub fn check(s: &Scenario) -> Result<(), ToolError> {
    let span = s.duration_s.saturating_add(s.drain_s);
    if span > MAX_VIRTUAL_S {
        return Err(ToolError::new(
            "invalid_scenario",
            format!("duration_s + drain_s is {span} s; the JS tools simulate at most {MAX_VIRTUAL_S} s"),
        ));
    }
    let events: f64 = s
        .traffic
        .iter()
        .map(|t| {
            let to = t.to_s.unwrap_or(s.duration_s).min(s.duration_s);
            t.rate_per_s * to.saturating_sub(t.from_s) as f64
        })
        .sum();
    if events > MAX_EVENTS {
        return Err(ToolError::new(
            "invalid_scenario",
            format!("the traffic makes about {events:.0} events; the JS tools simulate at most {MAX_EVENTS:.0}"),
        ));
    }
    Ok(())
}
