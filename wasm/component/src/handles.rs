//! The compiled-policy table behind the WIT `u32` handles.
//!
//! A handle is `generation << 16 | slot`: the slot indexes the table, the
//! generation (1..=65535, bumped when a slot is freed) makes a discarded
//! handle, or a copy of it, refused after its slot is reused. Handle 0 is
//! never issued. At most 65535 live policies: the table is bounded.

use alloc::vec::Vec;
use core::cell::RefCell;

use retry_policy_core::compiled::CompiledPolicy;
use retry_policy_core::{ErrorCode, PolicyError};

const MAX_SLOTS: usize = 1 << 16;

struct Slot {
    generation: u16,
    policy: Option<CompiledPolicy>,
}

pub struct Table {
    slots: RefCell<Vec<Slot>>,
}

// SAFETY: a component instance runs on one thread and never re-enters its
// exports (its imports cannot call back), so the RefCell is never shared.
unsafe impl Sync for Table {}

pub static TABLE: Table = Table { slots: RefCell::new(Vec::new()) };

fn stale() -> PolicyError {
    PolicyError::new(ErrorCode::InvalidInput, "handle", "not a live compiled policy (never issued, or discarded)")
}

impl Table {
    /// Keep `policy`; its handle.
    pub fn insert(&self, policy: CompiledPolicy) -> Result<u32, PolicyError> {
        let mut slots = self.slots.borrow_mut();
        let index = match slots.iter().position(|s| s.policy.is_none()) {
            Some(i) => i,
            None if slots.len() < MAX_SLOTS - 1 => {
                slots.push(Slot { generation: 1, policy: None });
                slots.len() - 1
            }
            None => {
                return Err(PolicyError::new(
                    ErrorCode::InvalidInput,
                    "handle",
                    "65535 compiled policies are live: discard the ones swapped out",
                ))
            }
        };
        let slot = &mut slots[index];
        slot.policy = Some(policy);
        Ok((u32::from(slot.generation) << 16) | index as u32)
    }

    /// Run `f` on the policy behind `handle`.
    pub fn with<T>(
        &self,
        handle: u32,
        f: impl FnOnce(&CompiledPolicy) -> Result<T, PolicyError>,
    ) -> Result<T, PolicyError> {
        let slots = self.slots.borrow();
        match slots.get((handle & 0xffff) as usize) {
            Some(Slot { generation, policy: Some(p) }) if u32::from(*generation) == handle >> 16 => f(p),
            _ => Err(stale()),
        }
    }

    /// Forget the policy behind `handle` (a stale handle changes nothing).
    pub fn remove(&self, handle: u32) {
        let mut slots = self.slots.borrow_mut();
        if let Some(slot) = slots.get_mut((handle & 0xffff) as usize) {
            if slot.policy.is_some() && u32::from(slot.generation) == handle >> 16 {
                slot.policy = None;
                slot.generation = if slot.generation == u16::MAX { 1 } else { slot.generation + 1 };
            }
        }
    }
}
