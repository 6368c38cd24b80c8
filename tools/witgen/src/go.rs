//! Emitter for the go host (not written yet).

use anyhow::{bail, Result};

use crate::wit::Wit;
use crate::Generated;

pub fn emit(_wit: &Wit) -> Result<Vec<Generated>> {
    bail!("the go emitter is not written yet")
}
