//! The delivery engines behind the WIT `engine-*` handles (docs/engine.md).
//!
//! A handle is `generation << 8 | slot` (slot < 64, generation 1..=2^24-1,
//! bumped when a slot is freed), so a closed handle, or a copy of it, is
//! refused after its slot is reused. Handle 0 is never issued. At most 64
//! live engines: the table is bounded, and each engine bounds itself.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use retry_policy_core::engine::{wire, Engine, EngineError};

const MAX_ENGINES: usize = 64;
const MAX_GENERATION: u32 = (1 << 24) - 1;

struct Slot {
    generation: u32,
    engine: Option<Box<Engine>>,
}

pub struct Engines {
    slots: RefCell<Vec<Slot>>,
}

// SAFETY: a component instance runs on one thread and never re-enters its
// exports (its imports cannot call back), so the RefCell is never shared.
unsafe impl Sync for Engines {}

pub static ENGINES: Engines = Engines { slots: RefCell::new(Vec::new()) };

fn err(e: &EngineError) -> String {
    wire::error_text(e)
}

fn stale() -> String {
    err(&EngineError::InvalidInput {
        field: String::from("handle"),
        message: String::from("not a live engine (never opened, or closed)"),
    })
}

impl Engines {
    /// Open an engine on the JSON `config`.
    pub fn open(&self, config: &str) -> Result<u32, String> {
        let value = retry_policy_core::json::parse(config).map_err(|e| err(&EngineError::Policy(e)))?;
        let config = wire::config(&value).map_err(|e| err(&e))?;
        let engine = Engine::new(config).map_err(|e| err(&e))?;
        let mut slots = self.slots.borrow_mut();
        let index = match slots.iter().position(|s| s.engine.is_none()) {
            Some(i) => i,
            None if slots.len() < MAX_ENGINES => {
                slots.push(Slot { generation: 1, engine: None });
                slots.len() - 1
            }
            None => {
                return Err(err(&EngineError::InvalidInput {
                    field: String::from("handle"),
                    message: String::from("64 engines are open: close one first"),
                }))
            }
        };
        let slot = &mut slots[index];
        slot.engine = Some(Box::new(engine));
        Ok((slot.generation << 8) | index as u32)
    }

    /// Run `f` on the engine behind `handle`.
    pub fn with<T>(&self, handle: u32, f: impl FnOnce(&mut Engine) -> T) -> Result<T, String> {
        let mut slots = self.slots.borrow_mut();
        match slots.get_mut((handle & 0xff) as usize) {
            Some(Slot { generation, engine: Some(e) }) if *generation == handle >> 8 => Ok(f(e)),
            _ => Err(stale()),
        }
    }

    /// Forget the engine behind `handle` (a stale handle changes nothing).
    pub fn close(&self, handle: u32) {
        let mut slots = self.slots.borrow_mut();
        if let Some(slot) = slots.get_mut((handle & 0xff) as usize) {
            if slot.engine.is_some() && slot.generation == handle >> 8 {
                slot.engine = None;
                slot.generation = if slot.generation == MAX_GENERATION { 1 } else { slot.generation + 1 };
            }
        }
    }
}
