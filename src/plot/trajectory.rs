//! The `simulate` figure: angles, energy balance and the integrator's energy error against time.

use super::timeseries::{draw_timeseries, Figure, Panel, Series};
use super::PlotError;
use crate::analysis::Trajectory;
use std::path::Path;

/// Draws a trajectory: θ_j(t) for every link (unwrapped), E(t) beside E(0) + W(t) when the chain
/// is forced or damped, and the relative energy-balance error on a log axis.
pub fn draw_trajectory(tr: &Trajectory, title: &str, path: &Path) -> Result<(), PlotError> {
    let n = tr.theta.ncols();
    let thetas: Vec<Vec<f64>> = (0..n).map(|j| tr.theta.column(j).to_vec()).collect();
    let angle_series = thetas
        .iter()
        .enumerate()
        .map(|(j, y)| Series {
            label: format!("θ{}", j + 1),
            x: &tr.t,
            y,
            band: None,
        })
        .collect();
    let forced = tr.work.iter().any(|&w| w != 0.0);
    let balance: Vec<f64> = tr.work.iter().map(|w| tr.energy[0] + w).collect();
    // A conservative run's E(t) is constant to ~1e-12: plot its deviation, which is readable.
    let deviation: Vec<f64> = tr.energy.iter().map(|e| e - tr.energy[0]).collect();
    let mut energy_series = vec![Series {
        label: if forced { "E(t)".into() } else { String::new() },
        x: &tr.t,
        y: if forced { &tr.energy } else { &deviation },
        band: None,
    }];
    if forced {
        energy_series.push(Series {
            label: "E(0) + W(t)".into(),
            x: &tr.t,
            y: &balance,
            band: None,
        });
    }
    let err = tr.energy_error();
    let mut panels = vec![
        Panel {
            y_label: "angle θ / rad".into(),
            series: angle_series,
            log_y: false,
        },
        Panel {
            y_label: if forced {
                "energy / J".into()
            } else {
                "E(t) − E(0) / J".into()
            },
            series: energy_series,
            log_y: false,
        },
    ];
    // A log axis needs something positive; an exact integrator run may have none.
    if err.iter().any(|&e| e > 0.0) {
        panels.push(Panel {
            y_label: "|E − E(0) − W| / E_scale".into(),
            series: vec![Series {
                label: String::new(),
                x: &tr.t,
                y: &err,
                band: None,
            }],
            log_y: true,
        });
    }
    let fig = Figure {
        title: format!("{title} ({})", tr.method.name()),
        x_label: "time t / s".into(),
        panels,
        log_x: false,
        size: (1200, 900),
    };
    draw_timeseries(&fig, path)
}
