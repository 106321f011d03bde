//! What a Poincaré section run found, described for the front ends: the JSON summary, the
//! text report, the section figure and a sweep's scalars (its group: [`super::record`]).

use crate::analysis::poincare::{
    self, chaos_criterion, PoincareOptions, PoincareResult, Section, SectionEnd, Shell,
};
use crate::finding::{Finding, Record, Scalar};
use crate::kinds::Found;
use crate::model::Chain;
use crate::plot::{PlotError, PoincareFigure};
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// A section's crossings with what they were computed on.
#[derive(Debug, Clone)]
pub struct PoincareSection {
    /// The run's title (the figure's).
    pub title: String,
    pub chain: Chain,
    pub opts: PoincareOptions,
    pub result: PoincareResult,
    /// The run's wall time (s), for the crossings per second of the summary and the report
    /// ([`Finding::timed`]; 0 until a front end tells it).
    pub wall: f64,
}

impl PoincareSection {
    /// Largest section residual |g| over all crossings (angles mod 2π).
    fn max_residual(&self) -> f64 {
        let n = self.chain.links();
        let mut m = 0.0f64;
        for x in self
            .result
            .shells
            .iter()
            .flat_map(|s| &s.orbits)
            .flat_map(|o| &o.states)
        {
            let g = match &self.opts.section {
                Section::Coordinate { index, value, .. } if *index < n => {
                    poincare::wrap_angle(x[*index] - value)
                }
                Section::Coordinate { index, value, .. } => x[*index] - value,
                Section::Hyperplane { normal, offset, .. } => {
                    normal.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - offset
                }
                Section::Stroboscopic { .. } => 0.0,
            };
            m = m.max(g.abs());
        }
        m
    }

    /// Crossings found per second of the run.
    fn rate(&self) -> f64 {
        self.result.crossings() as f64 / self.wall.max(1e-9)
    }
}

/// Crossings, orbits stopped at t_end, skipped points, and (chaotic, not shown chaotic) orbits.
fn shell_stats(s: &Shell, threshold: f64) -> (usize, usize, usize, Option<(usize, usize)>) {
    let crossings = s.orbits.iter().map(|o| o.len()).sum();
    let short = s
        .orbits
        .iter()
        .filter(|o| o.end != SectionEnd::Complete)
        .count();
    (crossings, short, s.skipped.len(), s.chaos_counts(threshold))
}

/// ", 3 chaotic and 37 not shown chaotic within T = 100–5000 s (chaotic: λ(T) > 0.05 s⁻¹)".
fn chaos_text(s: &Shell, counts: Option<(usize, usize)>, threshold: f64) -> String {
    let within = s.lyapunov_times().map_or(String::new(), |t| {
        format!(" within {}", poincare::describe_times(t))
    });
    counts.map_or(String::new(), |(c, n)| {
        format!(
            ", {c} {} and {n} {}{within} (chaotic: λ(T) > {threshold} s⁻¹)",
            poincare::CHAOTIC_CLASS,
            poincare::NOT_SHOWN_CHAOTIC_CLASS
        )
    })
}

impl Finding for PoincareSection {
    fn group(&self) -> &'static str {
        "poincare"
    }

    fn complete(&self) -> bool {
        self.result.complete
    }

    fn record(&self) -> Record {
        super::record::section(self)
    }

    fn summary(&self) -> serde_json::Value {
        let (chain, opts, r) = (&self.chain, &self.opts, &self.result);
        json!({
            "links": chain.links(),
            "section": opts.section.describe(chain),
            "options": opts,
            "chaos_criterion": opts.orbit.lyapunov.then(|| chaos_criterion(opts.chaos_threshold)),
            "complete": r.complete,
            "shells": r.shells.iter().map(|sh| {
                let (c, short, skipped, counts) = shell_stats(sh, opts.chaos_threshold);
                json!({
                    "energy": sh.energy,
                    "orbits": sh.orbits.len(),
                    "crossings": c,
                    "stopped_at_t_max": short,
                    "skipped_unreachable": skipped,
                    "chaotic_orbits": counts.map(|c| c.0),
                    "not_shown_chaotic_orbits": counts.map(|c| c.1),
                    "lyapunov_time_range": sh.lyapunov_times().map(|(a, b)| [a, b]),
                    "lyapunov": sh.orbits.iter().map(|o| o.lyapunov).collect::<Vec<_>>(),
                })
            }).collect::<Vec<_>>(),
            "crossings": r.crossings(),
            "max_section_residual": self.max_residual(),
            "max_relative_energy_error": r.max_energy_error(),
            "crossings_per_s": self.rate(),
        })
    }

    fn report(&self) -> String {
        let (chain, opts, r) = (&self.chain, &self.opts, &self.result);
        let mut s = String::new();
        let _ = writeln!(s, "section {}", opts.section.describe(chain));
        for (k, sh) in r.shells.iter().enumerate() {
            let (c, short, skipped, counts) = shell_stats(sh, opts.chaos_threshold);
            let chaotic = chaos_text(sh, counts, opts.chaos_threshold);
            if let Section::Stroboscopic { .. } = opts.section {
                // No energy shell: the drive is what the section samples.
                let forcing = crate::spec::describe_run(chain.params(), None);
                let _ = writeln!(
                    s,
                    "stroboscopic section ({}): {} orbits, {c} samples, {short} stopped at t_end{chaotic}",
                    forcing.trim_start_matches(", "),
                    sh.orbits.len(),
                );
                continue;
            }
            let e = sh.energy.map_or("-".into(), |e| format!("{e:.6} J"));
            let _ = writeln!(
                s,
                "shell {}: E = {e}, {} orbits, {c} crossings, {short} stopped at t_end, {skipped} unreachable points skipped{chaotic}",
                k + 1,
                sh.orbits.len(),
            );
        }
        let _ = writeln!(
            s,
            "max |section residual| {:.2e}, max relative energy error {:.2e}, {:.0} crossings/s ({:.2} s)",
            self.max_residual(),
            r.max_energy_error(),
            self.rate(),
            self.wall
        );
        s
    }

    fn scalars(&self) -> Vec<Scalar> {
        let c: Vec<f64> = self
            .result
            .shells
            .iter()
            .map(|sh| sh.orbits.iter().map(|o| o.len()).sum::<usize>() as f64)
            .collect();
        vec![
            Scalar::vector(
                "crossings",
                "shell",
                c,
                "1",
                "section crossings found on each shell",
            ),
            Scalar::one(
                "energy_error_max",
                self.result.max_energy_error(),
                "1",
                "largest relative energy error over the orbits",
            ),
        ]
    }

    fn timed(&mut self, wall: f64) {
        self.wall = wall;
    }

    fn interrupted(&self, _written: bool) -> String {
        "interrupted; the crossings so far were written, marked incomplete".into()
    }
}

/// The section figure; none when no orbit crossed (a run stopped before the first crossing).
impl Found for PoincareSection {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        if self.result.crossings() > 0 {
            crate::plot::draw_poincare(
                &PoincareFigure::of_result(&self.title, &self.chain, &self.opts, &self.result),
                path,
            )?;
        }
        Ok(())
    }
}
