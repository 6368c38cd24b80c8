//! SVG charts with `plotters` (SVG backend only, no font rasteriser: text
//! stays SVG `<text>`): the schedule against the window, the retry share
//! over time against the ratio, and stop reasons over time. Text is sized
//! by [`backend::Measured`], so every target (native, Node, the browser)
//! draws the same bytes.

pub mod backend;
mod health;
mod legend;
mod schedule;
mod storm;

pub use health::health_svg;
pub use schedule::{schedule_svg, ScheduleSeries};
pub use storm::{share_svg, stops_svg};

use plotters::style::RGBColor;

/// Line colours, in order (colour-blind-safe Okabe-Ito).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

pub(crate) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}
