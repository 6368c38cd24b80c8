//! The schedule chart: expected and worst-case attempt offsets against the
//! window, one panel per class.

use plotters::prelude::*;

use super::legend::{legend, Corner};
use super::{backend, err, PALETTE};

/// One class's schedule, as the engine planned it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleSeries {
    pub class: String,
    pub window_ms: u64,
    pub limited_by: String,
    /// Expected offset of each attempt (ms).
    pub expected_ms: Vec<u64>,
    /// Offset of each attempt with every delay on its ceiling (ms).
    pub worst_ms: Vec<u64>,
}

/// Seconds, minutes or hours, whichever reads best for `max_ms`.
fn unit(max_ms: u64) -> (f64, &'static str) {
    if max_ms >= 3 * 3_600_000 {
        (3_600_000.0, "h")
    } else if max_ms >= 3 * 60_000 {
        (60_000.0, "min")
    } else {
        (1000.0, "s")
    }
}

/// An SVG with one panel per class.
pub fn schedule_svg(classes: &[ScheduleSeries]) -> Result<String, String> {
    let mut buf = String::new();
    let n = classes.len().max(1);
    {
        let root = backend::svg(&mut buf, (380 * n as u32, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        for (panel, c) in root.split_evenly((1, n)).iter().zip(classes) {
            let top = c.window_ms.max(*c.worst_ms.last().unwrap_or(&0));
            let (scale, u) = unit(top);
            let ymax = top as f64 / scale * 1.08;
            let xmax = c.expected_ms.len().max(2) as f64 + 0.5;
            let title = format!("{} ({} attempts, limited by {})", c.class, c.expected_ms.len(), c.limited_by);
            let mut chart = ChartBuilder::on(panel)
                .caption(title, ("sans-serif", 15))
                .margin(12)
                .x_label_area_size(34)
                .y_label_area_size(48)
                .build_cartesian_2d(0.5f64..xmax, 0f64..ymax.max(1e-9))
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc("attempt")
                .y_desc(format!("offset ({u})"))
                .light_line_style(WHITE.mix(0.0))
                .draw()
                .map_err(err)?;
            let pts =
                |v: &[u64]| v.iter().enumerate().map(|(i, o)| ((i + 1) as f64, *o as f64 / scale)).collect::<Vec<_>>();
            let w = c.window_ms as f64 / scale;
            chart.draw_series(LineSeries::new(vec![(0.5, w), (xmax, w)], PALETTE[6].stroke_width(2))).map_err(err)?;
            let mut rows = vec![("window".to_string(), PALETTE[6])];
            for (k, (name, v)) in [("expected", &c.expected_ms), ("worst case", &c.worst_ms)].into_iter().enumerate() {
                let color = PALETTE[k];
                let p = pts(v);
                chart.draw_series(LineSeries::new(p.clone(), color.stroke_width(2))).map_err(err)?;
                rows.push((name.to_string(), color));
                chart.draw_series(p.into_iter().map(|xy| Circle::new(xy, 3, color.filled()))).map_err(err)?;
            }
            legend(&chart.plotting_area().strip_coord_spec(), &rows, Corner::UpperLeft)?;
        }
        root.present().map_err(err)?;
    }
    Ok(buf)
}
