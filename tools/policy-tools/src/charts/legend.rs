//! The legend box, drawn from plain elements. plotters' own series labels
//! size their text with the font backend directly (not through the drawing
//! backend), which on `wasm32-unknown-unknown` needs a DOM; this one sizes
//! it with [`text_size`](super::backend::text_size), like the rest.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::backend::text_size;
use super::err;

const FONT: (&str, u32) = ("sans-serif", 12);
const MARGIN: i32 = 10;
const SWATCH: i32 = 30;
const ROW: i32 = 15;

/// Where the box sits in the plotting area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    UpperLeft,
    UpperRight,
}

/// A legend: one row per `(label, colour)`, a short line of the colour then the label.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[(String, RGBColor)],
    corner: Corner,
) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    let text_w = rows.iter().map(|(l, _)| text_size(l, f64::from(FONT.1)).0).max().unwrap_or(0) as i32;
    let (w, h) = (text_w + SWATCH + 2 * MARGIN, ROW * rows.len() as i32 + 2 * MARGIN - (ROW - 10));
    let (area_w, _) = area.dim_in_pixel();
    let x = match corner {
        Corner::UpperLeft => 5,
        Corner::UpperRight => area_w as i32 - w - 5,
    };
    let y = 5;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], WHITE.mix(0.85).filled())).map_err(err)?;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], BLACK.mix(0.3))).map_err(err)?;
    for (i, (label, color)) in rows.iter().enumerate() {
        let top = y + MARGIN + ROW * i as i32;
        let mid = top + 5;
        area.draw(&PathElement::new(vec![(x + MARGIN, mid), (x + MARGIN + 18, mid)], color)).map_err(err)?;
        area.draw(&Text::new(label.clone(), (x + MARGIN + SWATCH, top), FONT.into_font())).map_err(err)?;
    }
    Ok(())
}
