//! The comparison chart (`simulate --compare-health --out DIR`): per
//! endpoint, requests per second to it under format 2 and under health,
//! with the goal's post-recovery bound as a line, and the events held over
//! time (both runs: format 2 holds none).

use plotters::prelude::*;

use super::legend::{legend, Corner};
use super::{backend, err, PALETTE};
use crate::sim::compare::{pattern, Comparison};
use crate::sim::figures::Figures;

const PANEL_H: u32 = 250;

fn line<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    ydesc: &str,
    lines: &[(String, Vec<f64>)],
    goal: Option<(String, f64)>,
    xmax: f64,
) -> Result<(), String> {
    let top = goal.as_ref().map_or(1.0, |(_, y)| *y);
    let ymax = lines.iter().flat_map(|(_, v)| v.iter()).fold(top.max(1.0), |m, x| m.max(*x)) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..xmax.max(1.0), 0f64..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("virtual time (s)")
        .y_desc(ydesc)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let mut rows = Vec::new();
    for (k, (label, v)) in lines.iter().enumerate() {
        let color = PALETTE[k % 6];
        let pts: Vec<(f64, f64)> = v.iter().enumerate().map(|(t, y)| (t as f64, *y)).collect();
        chart.draw_series(LineSeries::new(pts, color.stroke_width(1))).map_err(err)?;
        rows.push((label.clone(), color));
    }
    if let Some((label, y)) = goal {
        chart.draw_series(LineSeries::new(vec![(0.0, y), (xmax, y)], PALETTE[6].stroke_width(2))).map_err(err)?;
        rows.push((label, PALETTE[6]));
    }
    legend(&chart.plotting_area().strip_coord_spec(), &rows, Corner::UpperRight)
}

fn requests(f: &Figures) -> Vec<f64> {
    f.series.iter().map(|s| s.requests as f64).collect()
}

fn held(f: &Figures) -> Vec<f64> {
    f.series.iter().map(|s| s.held as f64).collect()
}

/// One SVG: two panels per endpoint (requests/s, events held), both runs.
pub fn health_svg(c: &Comparison) -> Result<String, String> {
    let n = c.scenario.endpoints.len().max(1);
    let mut buf = String::new();
    {
        let root = backend::svg(&mut buf, (900, PANEL_H * 2 * n as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let panels = root.split_evenly((2 * n, 1));
        let xmax = c.format2.endpoints.iter().chain(&c.health.endpoints).map(|f| f.series.len()).max().unwrap_or(1);
        for (i, ep) in c.scenario.endpoints.iter().enumerate() {
            let (a, b) = (&c.format2.endpoints[i], &c.health.endpoints[i]);
            let name = format!("{}: {} ({} / {})", ep.id, pattern(&ep.failure), c.scenario.name, c.policy_source);
            let req = [("format 2".to_string(), requests(a)), ("health".to_string(), requests(b))];
            // The goal (compare::goals): after a recovery at most (1 + multiple) x normal
            // plus floor_per_s per replica.
            let r = c.section.release;
            let bound = b.normal_per_s * (1.0 + r.multiple) + r.floor_per_s * f64::from(c.health.replicas);
            let goal = Some((format!("goal: <= {bound:.1}/s after a recovery"), bound));
            line(&panels[2 * i], &format!("{name}: requests/s"), "requests per second", &req, goal, xmax as f64)?;
            let h = [("format 2".to_string(), held(a)), ("health".to_string(), held(b))];
            line(&panels[2 * i + 1], &format!("{}: events held", ep.id), "events held", &h, None, xmax as f64)?;
        }
        root.present().map_err(err)?;
    }
    Ok(buf)
}
