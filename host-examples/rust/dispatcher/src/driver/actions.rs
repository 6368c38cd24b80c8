//! The engine's actions, performed in order: journal lines appended and
//! synced before the batch's sends start; sends and store calls to the I/O
//! threads; terminal actions, holds, counters and the gauge to the tallies
//! and `/metrics`; warnings to stderr.

use serde::Deserialize;
use serde_json::{json, Value};

use retry_policy_host::PolicyInstance;

use super::io::{log, SendJob};
use super::{refusal_text, Driver, Stop};
use crate::clock::thread_cpu_ns;

/// The engine's refusal of an `admit` past `max_open` (docs/engine.md section 2).
pub(super) const AT_CAPACITY: &str = "at_capacity";

/// An input the engine refused: its index in the batch, its code, and
/// `code: message` (its `Display`).
pub(super) struct Refused {
    pub index: usize,
    pub code: String,
    pub text: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Driver {
    /// One crossing: the batch in, its actions done; the engine's refusals
    /// of inputs (each logged but `at_capacity`).
    pub(super) fn feed(&mut self, batch: Vec<Value>) -> Result<Vec<Refused>, String> {
        let text = Value::Array(batch).to_string();
        let out = self.cross(|inst, h| inst.engine_feed(h, &text)).map_err(|e| format!("policy artifact: {e}"))?;
        self.act(&out.map_err(|e| format!("engine: {}", refusal_text(&e)))?)
    }

    /// One boundary crossing into the engine, counted with this thread's
    /// CPU time inside it (the JSON in and out and the component call).
    pub(super) fn cross<T>(&mut self, call: impl FnOnce(&mut PolicyInstance, u32) -> T) -> T {
        let cpu = thread_cpu_ns();
        let out = call(&mut self.inst, self.handle);
        self.tally.crossings += 1;
        self.tally.engine_cpu_ns += thread_cpu_ns().saturating_sub(cpu);
        out
    }

    /// A batch's answer: journal lines first (appended, then synced once),
    /// then every other action in order.
    pub(super) fn act(&mut self, answer: &str) -> Result<Vec<Refused>, String> {
        let v: Value = serde_json::from_str(answer).map_err(|e| format!("engine answered no JSON: {e}"))?;
        let mut errors = Vec::new();
        for e in v["errors"].as_array().into_iter().flatten() {
            let code = e["error"].as_str().unwrap_or("?").to_string();
            let text = format!("{code}: {}", e["message"].as_str().unwrap_or_default());
            // An admission offered with inputs that did not free a place: taken again later.
            if code != AT_CAPACITY {
                log(&format!("engine refused an input: {text}"));
            }
            errors.push(Refused { index: e["index"].as_u64().unwrap_or(u64::MAX) as usize, code, text });
        }
        let outputs = v["outputs"].as_array().map(Vec::as_slice).unwrap_or_default();
        if let Some(j) = self.journal.as_mut() {
            // A migrated snapshot's truncate is not about the journal file.
            for o in outputs.iter().filter(|o| !(self.migrating && o["action"] == "journal_truncate")) {
                j.apply(o)?;
            }
            j.sync()?;
        }
        for o in outputs {
            self.output(o);
        }
        self.timeout_at = v["timeout_ms"].as_u64();
        Ok(errors)
    }

    fn output(&mut self, o: &Value) {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        match o["action"].as_str().unwrap_or_default() {
            "journal" | "journal_truncate" | "journal_compact" => {}
            "resumed" if self.migrating => {}
            "resumed" => {
                let n = o["ids"].as_array().map_or(0, Vec::len) as u64;
                self.tally.resumed += n;
            }
            "send" => match SendJob::deserialize(o) {
                Ok(job) => {
                    self.endpoint_of.entry(job.event_id.clone()).or_insert_with(|| job.endpoint_id.clone());
                    self.sends.insert((job.event_id.clone(), job.attempt));
                    self.pool.send(job);
                }
                Err(_) => log(&format!("engine: a send action without its fields: {o}")),
            },
            "store_call" => {
                let argv: Vec<String> =
                    o["argv"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_string)).collect();
                let call_id = o["call_id"].as_u64().unwrap_or(0);
                if self.redis.is_some() {
                    self.calls += 1;
                    self.pool.store(call_id, text(&o["key"]), argv);
                } else {
                    // Not reachable with `memory_store` (the engine answers its own calls).
                    log("engine asked for a store call without a store: answered failed");
                    let now = self.last_now;
                    let _ = self.feed(vec![json!({"op": "store", "now_ms": now, "call_id": call_id, "failed": true})]);
                }
            }
            "delivered" => {
                let event_id = text(&o["event_id"]);
                let endpoint_id = self.endpoint_of.remove(&event_id).unwrap_or_default();
                let attempts = o["attempts"].as_u64().unwrap_or(0);
                let at_ms = self.last_now;
                self.stopped(Stop { event_id, endpoint_id, reason: "delivered".into(), attempts, at_ms });
            }
            "dead_letter" => {
                let dl = &o["dead_letter"];
                let event_id = text(&dl["event_id"]);
                self.endpoint_of.remove(&event_id);
                let (endpoint_id, reason) = (text(&dl["endpoint_id"]), text(&dl["stop_reason"]));
                let (attempts, at_ms) = (dl["attempts"].as_u64().unwrap_or(0), self.last_now);
                self.stopped(Stop { event_id, endpoint_id, reason, attempts, at_ms });
            }
            "hold" => *self.tally.holds.entry(text(&o["reason"])).or_default() += 1,
            "count" => {
                let label = o["label"].as_object().and_then(|m| m.iter().next());
                let label = label.map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default()));
                let (name, delta) = (o["name"].as_str().unwrap_or_default(), o["delta"].as_u64().unwrap_or(0));
                if let Err(e) = self.metrics.count(name, label, delta) {
                    log(&e);
                }
            }
            "gauge" => {
                let value = o["value"].as_u64().unwrap_or(0);
                self.tally.held = value;
                if let Err(e) = self.metrics.gauge(o["name"].as_str().unwrap_or_default(), value) {
                    log(&e);
                }
            }
            "replayed" => self.tally.replayed = Some(o.clone()),
            "snapshot" => self.snapshot = Some(text(&o["journal"])),
            "drained" => self.drained = true,
            "warn" => log(&format!("engine: {}", text(&o["message"]))),
            other => log(&format!("engine: unknown action {other}")),
        }
    }

    fn stopped(&mut self, stop: Stop) {
        *self.tally.stops.entry(stop.reason.clone()).or_default() += 1;
        if self.config.record_stops {
            self.tally.stop_log.push(stop);
        }
    }

    pub(super) fn sync(&mut self) -> Result<(), String> {
        match self.journal.as_mut() {
            Some(j) => j.sync().map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }
}
