//! Group `measure/chaotic_fraction`: the chaotic fraction of energy shells, its counts, bounds,
//! convergence and ladder.

use super::{write_record, H5Out, StoreError};
use crate::analysis::convergence::Trend;
use crate::analysis::measure::chaotic::{ChaoticOptions, ShellFraction};
use crate::analysis::orbit::{SALI_CHAOTIC, SALI_REGULAR};
use crate::finding::{Attr, Record};
use crate::integrate::Method;

/// How `pendula measure --chaotic-fraction` draws its starts (the attribute `sampling`).
pub const CHAOTIC_SAMPLING: &str = "Liouville measure on the energy shell: θ ∝ √det M (E−V)^(N/2−1) by rejection, momenta uniform on the kinetic ellipsoid";

/// What a chaotic-fraction run was: the model, the sample counts and the SALI run of each start.
#[derive(Debug, Clone)]
pub struct ChaoticRun {
    /// The model's short name (preset or `custom`).
    pub model: String,
    pub links: usize,
    /// Starts per energy shell.
    pub samples: usize,
    pub seed: u64,
    pub options: ChaoticOptions,
    /// Every shell asked for was measured (`false`: a stop left the shells finished before
    /// it; the attribute `complete = 0`).
    pub complete: bool,
}

impl ChaoticRun {
    /// The fixed step of the integrator (NaN for an adaptive one).
    pub fn dt(&self) -> f64 {
        match self.options.method {
            Method::Rk4 { dt } => dt,
            _ => f64::NAN,
        }
    }
}

/// Writes group `measure/chaotic_fraction` ([`chaotic_record`]).
pub fn write_chaotic_fraction(
    out: &H5Out,
    run: &ChaoticRun,
    rows: &[ShellFraction],
) -> Result<(), StoreError> {
    write_record(out, None, &chaotic_record(run, rows))
}

/// Group `measure` holding `chaotic_fraction`: over the dimension `energy` (J) the counts of
/// chaotic, regular, undecided and failed starts, the fraction chaotic/(chaotic + regular) with
/// its Wilson 95 % bounds and the rejection sampler's proposals; the run as attributes.
pub fn chaotic_record(run: &ChaoticRun, rows: &[ShellFraction]) -> Record {
    let mut m = Record::new("measure");
    m.attr("what", "chaotic-fraction");
    let mut g = Record::new("chaotic_fraction");
    run_attrs(&mut g, run);
    let e: Vec<f64> = rows.iter().map(|r| r.energy).collect();
    g.coord("energy", e, "J", "energy of the shell H(θ, p) = E");
    shell_counts(&mut g, rows);
    shell_fraction(&mut g, rows);
    ladder(&mut g, rows);
    m.group(g);
    m
}

/// The run as attributes of the group: the model, the sampling, the integration and the
/// SALI thresholds that classify a start.
fn run_attrs(g: &mut Record, run: &ChaoticRun) {
    let o = &run.options;
    g.attr("complete", run.complete);
    g.attr("model", run.model.as_str())
        .attr("links", run.links as i64)
        .attr("samples", run.samples as i64)
        .attr("seed", run.seed as i64)
        .attr("t_end", o.indicators.time)
        .attr("dt", run.dt())
        .attr("tau", o.indicators.tau)
        .attr("integrator", o.method.name())
        .attr("deviation_vectors", o.indicators.k as i64)
        .attr("sali_chaotic", SALI_CHAOTIC)
        .attr("sali_regular", SALI_REGULAR)
        .attr("sampling", CHAOTIC_SAMPLING)
        .attr(
            "fraction_rule",
            "chaotic / (chaotic + regular): SALI < sali_chaotic by t_end is chaotic, SALI > sali_regular over the run's second half regular, else undecided (not in the fraction)",
        );
}

/// The starts of each shell by verdict, and the sampler's proposals, over `energy`.
fn shell_counts(g: &mut Record, rows: &[ShellFraction]) {
    type Count = fn(&ShellFraction) -> i64;
    let counts: [(&str, Count, &str); 5] = [
        ("chaotic", |r| r.chaotic as i64, "starts classified chaotic"),
        ("regular", |r| r.regular as i64, "starts classified regular"),
        (
            "undecided",
            |r| r.undecided as i64,
            "starts with neither verdict by t_end (includes failed)",
        ),
        (
            "failed",
            |r| r.failed as i64,
            "undecided starts whose integration failed (NaN/Inf)",
        ),
        (
            "proposals",
            |r| r.proposals as i64,
            "θ proposals of the rejection sampler (acceptance = samples / proposals)",
        ),
    ];
    for (name, f, what) in counts {
        let v: Vec<i64> = rows.iter().map(f).collect();
        g.var(name, &["energy"], v.as_slice(), "1", what);
    }
}

/// The chaotic fraction of each shell with its Wilson bounds and its convergence verdict.
fn shell_fraction(g: &mut Record, rows: &[ShellFraction]) {
    type Real = fn(&ShellFraction) -> f64;
    let reals: [(&str, Real, &str); 3] = [
        (
            "fraction",
            |r| r.fraction,
            "chaotic fraction chaotic / (chaotic + regular) (NaN when both are 0)",
        ),
        (
            "wilson_lo",
            |r| r.wilson.0,
            "lower bound of the Wilson 95 % interval of the fraction",
        ),
        (
            "wilson_hi",
            |r| r.wilson.1,
            "upper bound of the Wilson 95 % interval of the fraction",
        ),
    ];
    for (name, f, what) in reals {
        let v: Vec<f64> = rows.iter().map(f).collect();
        g.var(name, &["energy"], v.as_slice(), "1", what);
    }
    g.var(
        "trend",
        &["energy"],
        rows.iter()
            .map(|r| r.trend.code())
            .collect::<Vec<u8>>()
            .as_slice(),
        "1",
        "the fraction's convergence: the fraction at t_end/2 against the Wilson interval at t_end",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3]))
    .var_attr("flag_meanings", Trend::MEANINGS);
    g.attr(
        "convergence_rule",
        crate::analysis::convergence::FRACTION_RULE,
    );
}

/// The ladder: the same starts judged on the prefixes t_end/2^j of their runs (nothing when
/// no shell has one).
fn ladder(g: &mut Record, rows: &[ShellFraction]) {
    let levels = rows.iter().map(|r| r.ladder.len()).max().unwrap_or(0);
    if levels > 0 {
        let times: Vec<f64> = (0..levels)
            .map(|j| {
                rows.iter()
                    .find_map(|r| r.ladder.get(j).map(|l| l.time))
                    .unwrap_or(f64::NAN)
            })
            .collect();
        g.coord(
            "ladder_time",
            times,
            "s",
            "end of the prefix of every start's run that the ladder judges (t_end/2^j)",
        );
        let table = |f: &dyn Fn(&crate::analysis::measure::chaotic::Rung) -> f64| {
            ndarray::Array2::from_shape_fn((rows.len(), levels), |(i, j)| {
                rows[i].ladder.get(j).map_or(f64::NAN, f)
            })
        };
        type Get<'a> = &'a dyn Fn(&crate::analysis::measure::chaotic::Rung) -> f64;
        let ladder: [(&str, &str, Get); 5] = [
            (
                "ladder_fraction",
                "chaotic fraction of the starts judged at ladder_time",
                &|l| l.fraction,
            ),
            (
                "ladder_wilson_lo",
                "lower Wilson 95 % bound at ladder_time",
                &|l| l.wilson.0,
            ),
            (
                "ladder_wilson_hi",
                "upper Wilson 95 % bound at ladder_time",
                &|l| l.wilson.1,
            ),
            ("ladder_chaotic", "starts chaotic by ladder_time", &|l| {
                l.chaotic as f64
            }),
            ("ladder_regular", "starts regular by ladder_time", &|l| {
                l.regular as f64
            }),
        ];
        for (name, what, f) in ladder {
            g.var(name, &["energy", "ladder_time"], table(f), "1", what);
        }
    }
}
