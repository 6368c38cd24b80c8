//! The storm charts: retry share against the ratio, stop reasons over time.

use plotters::prelude::*;

use super::legend::{legend, Corner};
use super::{backend, err, PALETTE};
use crate::sim::series::DEAD;
use crate::sim::Run;

fn frame<'a, DB: DrawingBackend + 'a>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    xmax: f64,
    ymax: f64,
    ydesc: &str,
) -> Result<
    ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>,
    String,
> {
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..xmax.max(1.0), 0f64..ymax.max(1e-9))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("virtual time (s)")
        .y_desc(ydesc)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Retry share per second of the failing endpoints, one line per run, and the ratio.
pub fn share_svg(title: &str, runs: &[Run]) -> Result<String, String> {
    let mut buf = String::new();
    {
        let root = backend::svg(&mut buf, (900, 380)).into_drawing_area();
        let xmax = runs.iter().map(|r| r.series.0.len()).max().unwrap_or(1) as f64;
        let mut chart = frame(&root, title, xmax, 1.0, "retry share of failing endpoints")?;
        let mut rows = Vec::new();
        for (k, run) in runs.iter().enumerate() {
            let color = PALETTE[k % 6];
            let pts: Vec<(f64, f64)> = run
                .series
                .0
                .iter()
                .enumerate()
                .filter(|(_, s)| s.failing_attempts > 0)
                .map(|(t, s)| (t as f64, s.failing_share()))
                .collect();
            chart.draw_series(LineSeries::new(pts, color.stroke_width(1))).map_err(err)?;
            let how = if run.sliding { "sliding" } else { "fixed" };
            rows.push((format!("{} ({} x{}, {how})", run.variant, run.scope.as_str(), run.replicas), color));
        }
        let ratio = runs.first().map_or(0.1, |r| r.ratio);
        chart
            .draw_series(LineSeries::new(vec![(0.0, ratio), (xmax, ratio)], PALETTE[6].stroke_width(2)))
            .map_err(err)?;
        rows.push((format!("ratio {ratio}"), PALETTE[6]));
        legend(&chart.plotting_area().strip_coord_spec(), &rows, Corner::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(buf)
}

/// Dead letters per second by stop reason, for one run.
pub fn stops_svg(title: &str, run: &Run) -> Result<String, String> {
    let mut buf = String::new();
    {
        let root = backend::svg(&mut buf, (900, 380)).into_drawing_area();
        let s = &run.series.0;
        let ymax = s.iter().flat_map(|x| x.dead.iter()).copied().max().unwrap_or(1) as f64 * 1.1;
        let mut chart = frame(&root, title, s.len() as f64, ymax.max(1.0), "dead letters per second")?;
        let mut rows = Vec::new();
        for (i, reason) in DEAD.iter().enumerate() {
            if s.iter().all(|x| x.dead[i] == 0) {
                continue;
            }
            let color = PALETTE[i];
            let pts: Vec<(f64, f64)> = s.iter().enumerate().map(|(t, x)| (t as f64, x.dead[i] as f64)).collect();
            chart.draw_series(LineSeries::new(pts, color.stroke_width(1))).map_err(err)?;
            rows.push((reason.as_str().to_string(), color));
        }
        legend(&chart.plotting_area().strip_coord_spec(), &rows, Corner::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(buf)
}
