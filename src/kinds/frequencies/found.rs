//! What a frequency analysis found, described for the front ends: the group `frequencies`,
//! the JSON summary, the text report, the spectrum figure and a sweep's scalars.
//!
//! The group: each link's lines (link × term), the fundamental frequencies, the combination of
//! them explaining each line (link × term × fundamental; `explained` 1 where one is within the
//! attribute `combination_tolerance`, else the line is unexplained: its combination 0 and
//! residual NaN), and those of the two halves of the run (half × fundamental) with the
//! diffusion index. Every variable has CF `units` and `long_name` over named dimensions; a
//! missing entry (a link with fewer lines, a half with fewer fundamentals) is NaN, or 0 in the
//! integer combinations with `valid` false.

use super::FrequenciesRun;
use crate::analysis::frequency::{LineOut, OrbitFrequencies, Verdict, ERROR_RULE, VERDICT_RULE};
use crate::finding::{Figure, Finding, Line, Panel, Record, RunPart, Scalar};
use crate::format::{f64_json, format_value};
use crate::integrate::Stats;
use crate::kinds::Found;
use crate::plot::PlotError;
use ndarray::{Array2, Array3};
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// How the threshold `combination_tolerance` is set, as the file states it.
pub const TOLERANCE_RULE: &str = "1e-7 * omega_ref: a combination sum_i k_i omega_i (sum |k_i| <= combination_order) explains a line when it lies within it; a line no combination comes that close to is unexplained (no label). Far above NAFF's frequency error on a torus (~1e-12..1e-10 relative, times the order), far below the window's resolution 2 pi / T";

/// What a frequency analysis found.
#[derive(Debug, Clone)]
pub struct FrequenciesResult {
    /// The run's title (the figure's).
    pub title: String,
    /// The settings it ran with.
    pub run: FrequenciesRun,
    /// ω_ref of the libration signals (rad/s) and whether it was derived (the lowest
    /// small-oscillation frequency) rather than given.
    pub omega_ref: f64,
    pub omega_ref_derived: bool,
    /// Samples analysed and their interval (s).
    pub samples: usize,
    pub dt_out: f64,
    pub orbit: OrbitFrequencies,
    /// The threshold (rad/s) within which a combination explains a line:
    /// [`super::IDENTIFY_TOLERANCE`]·ω_ref.
    pub tolerance: f64,
    /// The largest relative energy error over the samples (of the integration).
    pub max_relative_energy_error: f64,
    pub stats: Stats,
    /// Whether the integration reached t_end. A stop during the integration or the analysis
    /// ends the run with [`crate::kinds::RunError::Interrupted`] instead (the analysis of the
    /// samples so far would take seconds after the stop), so a result has it true.
    pub complete: bool,
}

impl FrequenciesResult {
    /// The warning when fundamentals are listed for an orbit whose verdict is chaotic: they
    /// are the strongest lines of a drifting spectrum, not frequencies of a torus.
    pub fn chaotic_warning(&self) -> Option<String> {
        let o = &self.orbit;
        (o.verdict == Verdict::Chaotic && !o.fundamentals.is_empty()).then(|| {
            format!(
                "warning: the diffusion verdict is chaotic (index {} at T, ladder slope {} per decade of T): \
                 the fundamentals listed are the strongest lines of a drifting spectrum, not frequencies of a torus",
                format_value(o.diffusion_index, 3),
                format_value(o.ladder_slope, 2)
            )
        })
    }

    /// The time of the last sample analysed (s).
    fn t_end(&self) -> f64 {
        (self.samples - 1) as f64 * self.dt_out
    }

    fn omega_ref_source(&self) -> &'static str {
        if self.omega_ref_derived {
            "lowest small-oscillation frequency"
        } else {
            "given"
        }
    }
}

impl FrequenciesResult {
    /// Each link's lines over (link, term) and their combinations over (…, fundamental).
    fn record_lines(&self, g: &mut Record, terms: usize, nf: usize) {
        let o = &self.orbit;
        let n = o.links.len();
        let signal: Vec<u8> = o.links.iter().map(|l| l.signal as u8).collect();
        g.var(
            "signal",
            &["link"],
            signal,
            "1",
            "the link's analysed signal",
        )
        .var_attr("flag_values", crate::finding::Attr::U8s(vec![0, 1]))
        .var_attr("flag_meanings", "libration circulation");
        let at = |j: usize, k: usize| o.links.get(j).and_then(|l| l.lines.get(k));
        let line = |f: &dyn Fn(&LineOut) -> f64| {
            Array2::from_shape_fn((n, terms), |(j, k)| at(j, k).map_or(f64::NAN, f))
        };
        g.var(
            "frequency",
            &["link", "term"],
            line(&|l| l.frequency),
            "rad s-1",
            "angular frequency of the line (signed: negative turns clockwise)",
        )
        .var(
            "amplitude",
            &["link", "term"],
            line(&|l| l.amplitude),
            "1",
            "modulus of the line's complex amplitude (rad for a libration signal, 1 for exp(i theta))",
        )
        .var(
            "phase",
            &["link", "term"],
            line(&|l| l.phase),
            "rad",
            "phase of the line at t = 0",
        )
        .var(
            "combination_residual",
            &["link", "term"],
            line(&|l| l.combination.as_ref().map_or(f64::NAN, |c| c.residual)),
            "rad s-1",
            "line frequency minus the combination of the fundamentals explaining it (NaN: unexplained)",
        );
        let combination = Array3::from_shape_fn((n, terms, nf), |(j, k, i)| {
            at(j, k)
                .and_then(|l| l.combination.as_ref())
                .and_then(|c| c.k.get(i))
                .map_or(0i64, |&c| c as i64)
        });
        g.var(
            "combination",
            &["link", "term", "fundamental"],
            combination,
            "1",
            "integer coefficients k of the combination sum_i k_i omega_i explaining the line (0 where no line or unexplained)",
        );
        let explained = Array2::from_shape_fn((n, terms), |(j, k)| {
            u8::from(at(j, k).is_some_and(|l| l.combination.is_some()))
        });
        g.var(
            "explained",
            &["link", "term"],
            explained,
            "1",
            "1 where a combination lies within combination_tolerance of the line, 0 where none does (unexplained) or no line",
        );
        let valid = Array2::from_shape_fn((n, terms), |(j, k)| u8::from(at(j, k).is_some()));
        g.var(
            "valid",
            &["link", "term"],
            valid,
            "1",
            "1 where the link has this line",
        );
    }

    /// The fundamental frequencies of the whole run and of its halves.
    fn record_fundamentals(&self, g: &mut Record, nf: usize) {
        let o = &self.orbit;
        let pad = |v: &[f64]| -> Vec<f64> {
            (0..nf)
                .map(|i| v.get(i).copied().unwrap_or(f64::NAN))
                .collect()
        };
        g.var(
            "fundamental_frequency",
            &["fundamental"],
            pad(&o.fundamentals),
            "rad s-1",
            "fundamental frequency of the whole run",
        )
        .var_attr("ancillary_variables", "fundamental_frequency_error")
        .var(
            "fundamental_frequency_error",
            &["fundamental"],
            pad(&o.fundamental_error),
            "rad s-1",
            "window-law error of the fundamental frequency (attribute error_rule)",
        )
        .var(
            "half_difference",
            &["fundamental"],
            pad(&o.half_difference),
            "rad s-1",
            "|omega(first half) - omega(second half)|: the two-half difference of the angular frequency",
        );
        let halves = Array2::from_shape_fn((2, nf), |(h, i)| {
            let v = if h == 0 {
                &o.first_half
            } else {
                &o.second_half
            };
            v.get(i).copied().unwrap_or(f64::NAN)
        });
        g.var(
            "half_fundamental_frequency",
            &["half", "fundamental"],
            halves,
            "rad s-1",
            "fundamental frequency of each half of the run",
        );
    }
}

impl Finding for FrequenciesResult {
    fn group(&self) -> &'static str {
        "frequencies"
    }

    fn complete(&self) -> bool {
        self.complete
    }

    fn record(&self) -> Record {
        let o = &self.orbit;
        let n = o.links.len();
        let mut g = Record::new("frequencies");
        g.run_part(RunPart::Names)
            .attr("complete", self.complete)
            .attr("omega_ref", self.omega_ref)
            .attr("omega_ref_source", self.omega_ref_source())
            .attr(
                "signal",
                "theta_j - i omega_j / omega_ref (libration), exp(i theta_j) (circulation)",
            )
            .attr("window_order", i64::from(self.run.window_order))
            .attr("terms", self.run.terms as i64)
            .attr("combination_order", i64::from(self.run.combination_order))
            .attr("combination_tolerance", self.tolerance)
            .attr("combination_tolerance_rule", TOLERANCE_RULE)
            .attr("samples", self.samples as i64)
            .attr("dt_out", self.dt_out)
            .attr("t_end", self.t_end())
            .attr("diffusion", o.diffusion)
            .attr("diffusion_index", o.diffusion_index)
            .attr("diffusion_error", o.diffusion_error)
            .attr("diffusion_index_error", o.diffusion_index_error)
            .attr("error_rule", ERROR_RULE)
            .attr(
                "diffusion_index_ladder",
                crate::finding::Attr::F64s(o.ladder.to_vec()),
            )
            .attr("ladder_slope", o.ladder_slope)
            .attr("verdict_rule", VERDICT_RULE)
            .attr("max_relative_energy_error", self.max_relative_energy_error)
            .run_part(RunPart::Method)
            .index("link", n, "link index, counted from the pivot")
            .run_part(RunPart::Model)
            .run_part(RunPart::InitialState);
        let terms = o.links.iter().map(|l| l.lines.len()).max().unwrap_or(0);
        let nf = o
            .fundamentals
            .len()
            .max(o.first_half.len())
            .max(o.second_half.len());
        g.index(
            "term",
            terms,
            "line of the link's signal, in the order found (strongest first)",
        )
        .index("fundamental", nf, "fundamental frequency, ascending")
        .coord(
            "half",
            vec![1i64, 2],
            "1",
            "half of the run: 1 first, 2 second",
        );
        self.record_lines(&mut g, terms, nf);
        self.record_fundamentals(&mut g, nf);
        // The verdict: a scalar CF flag variable (its words in flag_meanings), with the ladder
        // it was read from as the attribute diffusion_index_ladder.
        let flags: Vec<u8> = Verdict::ALL.iter().map(|v| v.flag()).collect();
        g.var(
            "verdict",
            &[] as &[&str],
            ndarray::arr0(o.verdict.flag()),
            "1",
            "the diffusion ladder's verdict (rule: attribute verdict_rule)",
        )
        .var_attr("flag_values", crate::finding::Attr::U8s(flags))
        .var_attr("flag_meanings", Verdict::FLAG_MEANINGS);
        if let Some(w) = self.chaotic_warning() {
            g.attr("warning", w.as_str());
        }
        g
    }

    fn summary(&self) -> serde_json::Value {
        let o = &self.orbit;
        let links: Vec<serde_json::Value> = o
            .links
            .iter()
            .map(|l| {
                json!({
                    "signal": l.signal.name(),
                    "frequency": l.lines.iter().map(|x| x.frequency).collect::<Vec<_>>(),
                    "amplitude": l.lines.iter().map(|x| x.amplitude).collect::<Vec<_>>(),
                    "phase": l.lines.iter().map(|x| x.phase).collect::<Vec<_>>(),
                    // null where the line is unexplained (no combination within the tolerance).
                    "combination": l.lines.iter().map(|x| x.combination.as_ref().map(|c| c.k.clone())).collect::<Vec<_>>(),
                    "combination_residual": l.lines.iter().map(|x| x.combination.as_ref().map(|c| c.residual)).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "omega_ref": self.omega_ref,
            "omega_ref_source": self.omega_ref_source(),
            "window_order": self.run.window_order,
            "terms": self.run.terms,
            "combination_order": self.run.combination_order,
            "combination_tolerance": self.tolerance,
            "combination_tolerance_rule": TOLERANCE_RULE,
            "samples": self.samples,
            "dt_out": self.dt_out,
            "t_end": self.t_end(),
            "fundamentals": o.fundamentals,
            "fundamental_error": o.fundamental_error.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
            "half_difference": o.half_difference,
            "error_rule": ERROR_RULE,
            "first_half": o.first_half,
            "second_half": o.second_half,
            "diffusion": f64_json(o.diffusion),
            "diffusion_index": f64_json(o.diffusion_index),
            "diffusion_error": f64_json(o.diffusion_error),
            "diffusion_index_error": f64_json(o.diffusion_index_error),
            "diffusion_index_ladder": o.ladder.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
            "ladder_t": [self.t_end() / 4.0, self.t_end() / 2.0, self.t_end()],
            "ladder_slope": f64_json(o.ladder_slope),
            "verdict": o.verdict.name(),
            "verdict_rule": VERDICT_RULE,
            "warning": self.chaotic_warning(),
            "links": links,
            "max_relative_energy_error": self.max_relative_energy_error,
            "steps": self.stats.steps,
            "rhs_evaluations": self.stats.evals,
            "complete": self.complete,
        })
    }

    fn report(&self) -> String {
        let o = &self.orbit;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "frequency analysis: {} samples, dt = {} s, ω_ref = {:.6} rad/s",
            self.samples, self.dt_out, self.omega_ref
        );
        for (i, f) in o.fundamentals.iter().enumerate() {
            let e = o.fundamental_error.get(i).copied().unwrap_or(f64::NAN);
            let _ = writeln!(
                s,
                "  ω{} = {f:.12} ± {e:.1e} rad/s (period {:.9} s)",
                subscript(i + 1),
                2.0 * std::f64::consts::PI / f
            );
        }
        let _ = writeln!(
            s,
            "  diffusion between the halves: {:.3e} ± {:.1e} rad/s (index {:.2} ± {:.2})",
            o.diffusion, o.diffusion_error, o.diffusion_index, o.diffusion_index_error
        );
        let [a, b, c] = o.ladder;
        let _ = writeln!(
            s,
            "  ladder: index {} at T/4, {} at T/2, {} at T = {:.1} s (slope {} per decade of T): {}",
            format_value(a, 3),
            format_value(b, 3),
            format_value(c, 3),
            self.t_end(),
            format_value(o.ladder_slope, 2),
            o.verdict.name()
        );
        let _ = writeln!(s, "  verdict rule: {VERDICT_RULE}");
        if let Some(w) = self.chaotic_warning() {
            let _ = writeln!(s, "  {w}");
        }
        let _ = writeln!(s, "  error bars: {ERROR_RULE}");
        let _ = writeln!(
            s,
            "  a line is explained by a combination within {:.1e} rad/s (order <= {}); else unexplained",
            self.tolerance, self.run.combination_order
        );
        for (j, l) in o.links.iter().enumerate() {
            let _ = writeln!(s, "  link {} ({}):", j + 1, l.signal.name());
            for x in &l.lines {
                let label = match &x.combination {
                    Some(c) => format!("k = {:?}  (residual {:.1e})", c.k, c.residual),
                    None => "unexplained".to_string(),
                };
                let _ = writeln!(
                    s,
                    "    ω = {:+.12}  a = {:.3e}  φ = {:+.6}  {label}",
                    x.frequency, x.amplitude, x.phase
                );
            }
        }
        s
    }

    fn warnings(&self) -> Vec<String> {
        self.chaotic_warning().into_iter().collect()
    }

    fn scalars(&self) -> Vec<Scalar> {
        // Named as in the single run's file: the dimension `fundamental` indexes the variable
        // `fundamental_frequency` (a variable of its dimension's name would be taken for its
        // coordinate, which HDF5 refuses for a 2-d variable).
        vec![
            Scalar::vector(
                "fundamental_frequency",
                "fundamental",
                self.orbit.fundamentals.clone(),
                "rad s-1",
                "fundamental frequencies of the whole run, ascending",
            ),
            Scalar::vector(
                "fundamental_frequency_error",
                "fundamental",
                self.orbit.fundamental_error.clone(),
                "rad s-1",
                "window-law error of the fundamental frequencies",
            ),
            Scalar::one(
                "diffusion_index",
                self.orbit.diffusion_index,
                "1",
                "log10 |omega(first half) - omega(second half)| (rad/s)",
            ),
            Scalar::one(
                "diffusion_index_error",
                self.orbit.diffusion_index_error,
                "1",
                "error of the diffusion index (the halves' window-law errors propagated)",
            ),
        ]
    }
}

impl FrequenciesResult {
    /// Each link's spectrum as stems (amplitude against angular frequency, log amplitude), one
    /// panel per link, with the fundamental angular frequencies ωᵢ (and their mirrors at −ωᵢ)
    /// marked by ticks below the stems' foot: above them, the ticks sat where the legend goes
    /// and it was drawn over them (issue 52).
    pub fn figure(&self) -> Figure {
        let r = &self.orbit;
        let caption = format!(
            "NAFF, Hann p = {}, {} samples, T = {:.3} s, diffusion index {} ± {}, {}{}",
            self.run.window_order,
            self.samples,
            self.t_end(),
            format_value(r.diffusion_index, 3),
            format_value(r.diffusion_index_error, 2),
            r.verdict.name(),
            if self.complete { "" } else { ", stopped early" }
        );
        let amps = || {
            r.links
                .iter()
                .flat_map(|l| l.lines.iter().map(|x| x.amplitude))
        };
        let least = amps().filter(|a| *a > 0.0).fold(f64::INFINITY, f64::min);
        // Stems rise from a decade below the weakest line.
        let floor = if least.is_finite() {
            least / 10.0
        } else {
            1e-16
        };
        // Each fundamental and its mirror −ω are marked by a tick under the stems' foot (from
        // 10^−0.9 to 10^−0.3 of it): the upper corners stay free for the legend.
        let (tick_lo, tick_hi) = (floor * 10f64.powf(-0.9), floor * 10f64.powf(-0.3));
        let panels = r
            .links
            .iter()
            .enumerate()
            .map(|(j, l)| {
                let mut x = Vec::with_capacity(3 * l.lines.len());
                let mut y = Vec::with_capacity(3 * l.lines.len());
                for line in &l.lines {
                    x.extend([line.frequency, line.frequency, f64::NAN]);
                    y.extend([floor, line.amplitude.max(floor), f64::NAN]);
                }
                let mut lines = vec![Line {
                    label: format!("link {} ({})", j + 1, l.signal.name()),
                    x,
                    y,
                }];
                for (i, &f) in r.fundamentals.iter().enumerate() {
                    lines.push(Line {
                        label: format!(
                            "ω{k} = {} ± {:.1e} rad/s (ticks at ±ω{k})",
                            format_value(f, 10),
                            r.fundamental_error.get(i).copied().unwrap_or(f64::NAN),
                            k = subscript(i + 1)
                        ),
                        x: vec![f, f, f64::NAN, -f, -f],
                        y: vec![tick_lo, tick_hi, f64::NAN, tick_lo, tick_hi],
                    });
                }
                Panel {
                    y_label: format!("amplitude, link {}", j + 1),
                    lines,
                    log_y: true,
                }
            })
            .collect();
        Figure {
            title: format!("{} ({caption})", self.title),
            x_label: "angular frequency ω / (rad/s)".into(),
            panels,
            log_x: false,
            size: (1200, 500 + 250 * r.links.len().min(4) as u32),
        }
    }
}

impl Found for FrequenciesResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_figure(&self.figure(), path)
    }
}

/// `n` in subscript digits (ω₁, ω₁₂).
fn subscript(n: usize) -> String {
    n.to_string()
        .chars()
        .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c))
        .collect()
}
