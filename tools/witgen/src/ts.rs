//! Emitter for the ts host (not written yet).

use anyhow::{bail, Result};

use crate::wit::Wit;
use crate::Generated;

pub fn emit(_wit: &Wit) -> Result<Vec<Generated>> {
    bail!("the ts emitter is not written yet")
}
