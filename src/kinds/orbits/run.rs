//! An orbits run: the seed, the first orbit, its branches or the orbit diagram, on the family
//! the spec's parameter defines ([`SpecFamily`]).

use super::fields::renamed;
use super::table::{OrbitClosure, OrbitStart, OrbitsAction, OrbitsRun, SpecFamily};
use crate::analysis::map::MapKind;
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::analysis::periodic::{
    continue_branch, find, orbit_diagram, orbit_error, stroboscopic, switch_branch_point,
    switch_period_doubling, Bifurcation, BifurcationKind, Branch, ContinuationOptions, Family,
    Guess, OrbitDiagram, OrbitError, PeriodicError, PeriodicOrbit,
};
use crate::error::FieldError;
use crate::kinds::{Input, RunError};
use crate::model::{Chain, System};
use crate::observe::Observer;
use crate::store::map::MapReader;
use std::f64::consts::TAU;

/// What an orbits run found.
#[derive(Debug, Clone)]
pub struct OrbitsResult {
    pub action: OrbitsAction,
    /// The state the search started from (after `settle`, the nearest return, or the mode
    /// seed).
    pub seed: Vec<f64>,
    /// `start = "return"`: how far the seed's k-th stroboscopic iterate lands from it (max norm,
    /// angles modulo 2π).
    pub return_distance: Option<f64>,
    /// `start = "map"`: the map's pixel the seed started from.
    pub map_pixel: Option<MapPixel>,
    /// The first orbit (find, continue).
    pub orbit: Option<PeriodicOrbit>,
    /// Its period's and multipliers' error bars (the tolerance ladder and a Newton step).
    pub orbit_error: Option<OrbitError>,
    /// The parameter's value at the first orbit (continue).
    pub start_parameter: Option<f64>,
    /// The branch (continued both ways: two, `… up` and `… down`) and the period-doubled
    /// branches after it, each with its label (`period-1`, `period-2`, …; for an autonomous
    /// family `family`).
    pub branches: Vec<(String, Branch)>,
    pub diagram: Option<OrbitDiagram>,
    /// The drive period (s) of a driven chain at the spec's parameter value.
    pub drive_period: Option<f64>,
    /// False when a stop request ended a branch early.
    pub complete: bool,
    /// What `orbits.follow` found beside its branches: a pitchfork's mirror half, a
    /// Neimark–Sacker point's torus, a branch point it could not switch at.
    pub notes: Vec<String>,
    /// `action = "curve"`: the bifurcation curves and the stability chart.
    pub curves: Option<super::curves::Curves>,
}

/// The pixel of a final-state map that seeded the search (`start = "map"`).
#[derive(Debug, Clone, PartialEq)]
pub struct MapPixel {
    /// Row (along the map's y axis) and column (x), from 0.
    pub row: usize,
    pub col: usize,
    /// When the map saw it settle on the attractor (s).
    pub settle_time: f64,
    /// Its start state, before the transient drive periods.
    pub start: Vec<f64>,
}

/// The map file `file` (the map kinds' HDF5) opened and checked for a run on `chain`: the spec
/// it records must be a map's, of this very chain (a map of another chain says nothing about
/// this one's phase space). Refusals name `field`. Returns the reader and the recorded spec.
pub(crate) fn model_map(
    chain: &Chain,
    file: &str,
    field: &str,
) -> Result<(MapReader, crate::spec::Spec), RunError> {
    let bad = |m: String| RunError::Input(FieldError::new(field, m));
    let reader = MapReader::open(std::path::Path::new(file))
        .map_err(|e| RunError::Input(e.refusal(field)))?;
    let text = reader.spec_text();
    if text.is_empty() {
        return Err(bad(format!(
            "{file}: records no spec to rebuild its grid from"
        )));
    }
    let map_spec = crate::spec::parse(&text, file)
        .and_then(|f| f.validate())
        .map_err(|e| bad(format!("{file}: its recorded spec: {e}")))?;
    if crate::kinds::map::spec_options(&map_spec).is_none() {
        return Err(bad(format!("{file}: not a map file")));
    }
    let map_chain = map_spec
        .model
        .planar()
        .ok_or_else(|| bad(format!("{file}: not a planar chain's map")))?;
    if map_chain.params() != chain.params() {
        return Err(bad(format!(
            "{file}: the map was computed for another model; give this spec the map's [model]"
        )));
    }
    Ok((reader, map_spec))
}

/// The start state of the pixel of class `attractor` in the final-state map `file` that settled
/// first (the deepest in its basin, where the map's clock is cleanest). The map's grid is
/// rebuilt from the spec the file records, and its model must be this spec's: a map of another
/// chain seeds nothing meaningful.
fn map_pixel(chain: &Chain, file: &str, attractor: &str) -> Result<MapPixel, RunError> {
    let bad = |m: String| RunError::Input(FieldError::new("orbits.map_file", m));
    let refused = |e: crate::store::StoreError| RunError::Input(e.refusal("orbits.map_file"));
    let (reader, map_spec) = model_map(chain, file, "orbits.map_file")?;
    let opts = crate::kinds::map::spec_options(&map_spec).expect("model_map checked it");
    let map_chain = map_spec.model.planar().expect("model_map checked it");
    if !matches!(opts.kind, MapKind::FinalState { .. }) {
        return Err(bad(format!(
            "{file}: a {} map; the seed needs a final-state map (its attractors)",
            opts.kind.id().name()
        )));
    }
    check_grid(&opts.grid, &reader.header, file)?;
    let n = chain.links();
    let legend = opts.kind.legend(n);
    let Some(&(class, _, _)) = legend.iter().find(|l| l.1 == attractor) else {
        let periodic: Vec<&str> = legend
            .iter()
            .map(|l| l.1.as_str())
            .filter(|w| w.starts_with("period_"))
            .collect();
        return Err(RunError::Input(FieldError::new(
            "orbits.attractor",
            format!(
                "`{attractor}` is not a class of {file} (its periodic classes: {})",
                periodic.join(", ")
            ),
        )));
    };
    let data = reader.read_all().map_err(refused)?;
    let best = (0..data.class.len())
        .filter(|&p| data.class[p] == class && data.value[p].is_finite())
        .min_by(|&a, &b| data.value[a].total_cmp(&data.value[b]));
    let Some(p) = best else {
        return Err(RunError::Input(FieldError::new(
            "orbits.attractor",
            format!("no pixel of {file} settled on `{attractor}`"),
        )));
    };
    let (row, col) = (p / data.width, p % data.width);
    let mut start = vec![0.0; 2 * n];
    if !opts.grid.start(map_chain, row, col, &mut start) {
        return Err(bad(format!(
            "{file}: pixel ({row}, {col}) has no start on the map's energy shell"
        )));
    }
    Ok(MapPixel {
        row,
        col,
        settle_time: data.value[p],
        start,
    })
}

/// The grid the map's recorded spec rebuilds must be the one the file's own arrays were written
/// on (the reader has checked the coordinate arrays against the header's window and sizes): a
/// spec text edited after the run (its resolution, window or base state) would map a pixel to
/// a start outside the map's window.
fn check_grid(
    grid: &crate::analysis::map::Grid,
    h: &crate::analysis::map::MapHeader,
    file: &str,
) -> Result<(), RunError> {
    let bad = |what: &str, spec: String, arrays: String| {
        RunError::Input(FieldError::new(
            "orbits.map_file",
            format!(
                "{file}: its recorded spec's {what} ({spec}) disagrees with the file's arrays ({arrays}); the spec text was edited or belongs to another map"
            ),
        ))
    };
    if (grid.width, grid.height) != (h.width, h.height) {
        return Err(bad(
            "resolution",
            format!("{} × {}", grid.width, grid.height),
            format!("{} × {}", h.width, h.height),
        ));
    }
    let window = [grid.x.lo, grid.x.hi, grid.y.lo, grid.y.hi];
    if window
        .iter()
        .zip(&h.window)
        .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err(bad(
            "window",
            format!("{window:?}"),
            format!("{:?}", h.window),
        ));
    }
    if grid.base.len() != h.base_state.len()
        || grid
            .base
            .iter()
            .zip(&h.base_state)
            .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err(bad(
            "base state",
            format!("{:?}", grid.base),
            format!("{:?}", h.base_state),
        ));
    }
    let shells = (grid.shell.map(|s| s.energy), h.shell.as_ref().map(|s| s.0));
    if shells.0.map(f64::to_bits) != shells.1.map(f64::to_bits) {
        return Err(bad(
            "energy shell",
            format!("{:?}", shells.0),
            format!("{:?}", shells.1),
        ));
    }
    Ok(())
}

/// A periodic-orbit failure in the spec's words: bad input names the spec's field, a Newton
/// that did not converge says which fields to change.
fn spec_error(e: PeriodicError) -> RunError {
    match e {
        PeriodicError::Invalid(_) => RunError::Input(renamed(
            &e,
            &[
                ("x0", "initial.theta"),
                ("period", "orbits.period"),
                ("energy", "orbits.energy"),
                ("k", "orbits.drive_periods"),
                ("switch", "orbits.doublings"),
            ],
        )),
        PeriodicError::NotConverged(m) if m.starts_with("the Floquet multipliers") => {
            RunError::Failed(format!("orbits: {m}"))
        }
        PeriodicError::NotConverged(m) => {
            let why = match m.strip_prefix("Newton did not converge ") {
                Some(rest) => rest.to_string(),
                None => format!("({m})"),
            };
            RunError::Failed(format!(
                "orbits: Newton did not converge {why}; start nearer an orbit (initial.theta, orbits.start), or raise orbits.segments or orbits.max_iterations"
            ))
        }
        PeriodicError::Unverified(m) => {
            RunError::Failed(format!("orbits: Newton converged on no orbit: {m}"))
        }
        PeriodicError::Interrupted => RunError::Interrupted,
        PeriodicError::Run(a) => RunError::Analysis(a),
    }
}

/// The seed state and period guess (`drive`: the chain's drive period, if it is driven).
fn seed(
    spec: &Input<'_>,
    chain: &Chain,
    run: &OrbitsRun,
    obs: &mut dyn Observer,
    drive: Option<f64>,
    return_distance: &mut Option<f64>,
    pixel: &mut Option<MapPixel>,
) -> Result<(Vec<f64>, Option<f64>), RunError> {
    let n = chain.links();
    match run.start {
        OrbitStart::Initial => Ok((spec.x0.to_vec(), run.period_guess)),
        OrbitStart::Mode { mode, amplitude } => {
            let m = modes_at(chain, &Equilibrium::hanging(n))?;
            let shape = m.shapes.column(mode);
            let scale = amplitude / shape.amax();
            let mut x = vec![0.0; 2 * n];
            for (xi, v) in x.iter_mut().zip(shape.iter()) {
                *xi = scale * v;
            }
            let guess = run.period_guess.or(Some(TAU / m.omega2[mode].sqrt()));
            Ok((x, guess))
        }
        OrbitStart::Settle { periods } => {
            let t = drive.expect("settle is refused for an undriven chain");
            let x = strobe(chain, spec, spec.x0, t, periods, obs, |_| {})?;
            Ok((x, None))
        }
        OrbitStart::Map { periods } => {
            let m = run.map_seed.as_ref().expect("start = map has its map seed");
            let found = map_pixel(chain, &m.file, &m.attractor)?;
            let t = drive.expect("map is refused for an undriven chain");
            let x = strobe(chain, spec, &found.start, t, periods, obs, |_| {})?;
            *pixel = Some(found);
            Ok((x, None))
        }
        OrbitStart::Return { scan, .. } if drive.is_none() => {
            section_return(spec, chain, &run.shooting, scan, obs, return_distance)
        }
        OrbitStart::Return { transient, scan } => {
            let t = drive.expect("a driven chain");
            let k = match run.closure {
                OrbitClosure::Driven { k } => k,
                _ => unreachable!("return is refused for an undriven chain"),
            };
            let x = strobe(chain, spec, spec.x0, t, transient, obs, |_| {})?;
            let mut samples = x.clone();
            strobe(chain, spec, &x, t, scan, obs, |y| {
                samples.extend_from_slice(y)
            })?;
            let (i, d) = nearest_return(&samples, 2 * n, n, k);
            let seed = samples[i * 2 * n..(i + 1) * 2 * n].to_vec();
            *return_distance = Some(d);
            Ok((seed, None))
        }
    }
}

/// An undriven chain's near-return seed: from [initial], `scan` crossings of θ₁ = 0 (upward)
/// on DOP853's dense output; the crossing whose next one lands nearest (max norm, angles modulo
/// 2π), and the time to it as the period guess.
pub(crate) fn section_return(
    spec: &Input<'_>,
    chain: &Chain,
    shooting: &crate::analysis::periodic::ShootingOptions,
    scan: u64,
    obs: &mut dyn Observer,
    return_distance: &mut Option<f64>,
) -> Result<(Vec<f64>, Option<f64>), RunError> {
    use crate::analysis::poincare::{section_orbits, Section, SectionEnd, SectionOptions};
    let n = chain.links();
    let opts = SectionOptions {
        crossings: scan as usize,
        t_end: f64::INFINITY,
        rtol: shooting.rtol,
        atol: shooting.atol,
        ..SectionOptions::default()
    };
    let section = Section::angle(0, 0.0, crate::integrate::Direction::Rising);
    let (mut orbits, finished) = section_orbits(chain, &section, &[spec.x0.to_vec()], &opts, obs);
    if !finished {
        return Err(RunError::Interrupted);
    }
    let o = orbits.pop().expect("one orbit");
    if let SectionEnd::Failed(m) = &o.end {
        return Err(RunError::Failed(m.clone()));
    }
    if o.states.len() < 2 {
        return Err(FieldError::new(
            "initial.theta",
            format!(
                "the orbit from [initial] crossed θ₁ = 0 upward {} time(s): a near return needs two",
                o.states.len()
            ),
        )
        .into());
    }
    let flat: Vec<f64> = o.states.concat();
    let (i, d) = nearest_return(&flat, 2 * n, n, 1);
    *return_distance = Some(d);
    Ok((o.states[i].clone(), Some(o.t[i + 1] - o.t[i])))
}

/// The state after `periods` drive periods (`t` each) from `x0`, handing each period's end to
/// `each` ([`stroboscopic::iterates`] with the spec's integrator).
pub(crate) fn strobe(
    chain: &Chain,
    spec: &Input<'_>,
    x0: &[f64],
    t: f64,
    periods: u64,
    obs: &mut dyn Observer,
    each: impl FnMut(&[f64]),
) -> Result<Vec<f64>, RunError> {
    stroboscopic::iterates(chain, spec.method, x0, t, periods, obs, each).map_err(spec_error)
}

/// The stroboscopic sample `i` (of `samples`, rows of `dim`, the first `angles` of each
/// angles) whose k-th successor is nearest to it, angles compared modulo 2π (max norm), and that
/// distance.
pub(crate) fn nearest_return(samples: &[f64], dim: usize, angles: usize, k: usize) -> (usize, f64) {
    let rows = samples.len() / dim;
    let mut best = (0, f64::INFINITY);
    for i in 0..rows.saturating_sub(k) {
        let (a, b) = (
            &samples[i * dim..(i + 1) * dim],
            &samples[(i + k) * dim..(i + k + 1) * dim],
        );
        let d = (0..dim)
            .map(|j| {
                let d = b[j] - a[j];
                if j < angles {
                    crate::analysis::periodic::shooting::wrap_angle(d).abs()
                } else {
                    d.abs()
                }
            })
            .fold(0.0, f64::max);
        if d < best.1 {
            best = (i, d);
        }
    }
    best
}

/// Runs the orbits of `run` on `spec`'s chain, from its start and with its integrator.
pub fn run(
    spec: &Input<'_>,
    run: &OrbitsRun,
    obs: &mut dyn Observer,
) -> Result<OrbitsResult, RunError> {
    let chain = spec.planar(super::KIND.name)?;
    let drive = chain.params().drive.period_of_fields()?;
    let mut return_distance = None;
    let mut map_pixel = None;
    let branch_file = run.curve.as_ref().and_then(|c| c.branch_file.clone());
    let (x0, guess) = match branch_file {
        // The bifurcations are the file's: no orbit is sought here.
        Some(_) => (spec.x0.to_vec(), None),
        None => seed(
            spec,
            chain,
            run,
            obs,
            drive,
            &mut return_distance,
            &mut map_pixel,
        )?,
    };
    let mut result = OrbitsResult {
        action: run.action,
        seed: x0.clone(),
        return_distance,
        map_pixel,
        orbit: None,
        orbit_error: None,
        start_parameter: None,
        branches: vec![],
        diagram: None,
        drive_period: drive,
        complete: true,
        notes: vec![],
        curves: None,
    };
    if let Some(file) = branch_file {
        let located = super::curves::located_in_file(chain, run, &file)?;
        let c = super::curves::curves(run, chain, &located, Some(file), obs)?;
        result.complete = c.complete;
        result.curves = Some(c);
        return Ok(result);
    }
    let seed_energy = chain.energy(0.0, &x0);
    let energy = match run.closure {
        OrbitClosure::Energy(Some(e)) => e,
        _ => seed_energy,
    };
    let family = SpecFamily { run, chain, energy };
    if run.action == OrbitsAction::Diagram {
        let opts = run
            .diagram
            .as_ref()
            .expect("a diagram spec has its options");
        let d = orbit_diagram(&family, opts, &obs.cancel()).map_err(spec_error)?;
        // An interrupted diagram is written like an interrupted branch: what was finished,
        // marked incomplete.
        result.complete = d.complete;
        result.diagram = Some(d);
        return Ok(result);
    }
    // The first orbit, at the parameter's value in the spec.
    let p0 = run.parameter_start(chain, energy);
    let (sys, closure) = match p0 {
        Some(p) => family.at(p),
        None => family.at(f64::NAN),
    }
    .map_err(spec_error)?;
    let period = guess.unwrap_or_else(|| drive.unwrap_or(1.0));
    let orbit = find(
        &sys,
        &Guess {
            x0: x0.clone(),
            period,
        },
        closure,
        &run.shooting,
        &obs.cancel(),
    )
    .map_err(spec_error)?;
    result.orbit_error =
        Some(orbit_error(&sys, &orbit, closure, &run.shooting, &obs.cancel()).map_err(spec_error)?);
    result.orbit = Some(orbit.clone());
    if run.action == OrbitsAction::Find {
        return Ok(result);
    }
    let p0 = p0.expect("continue has a parameter");
    if !(run.continuation.min..=run.continuation.max).contains(&p0) {
        return Err(FieldError::new(
            "orbits.range",
            format!(
                "the start value {} = {p0} lies outside [{}, {}]",
                run.parameter.as_ref().map_or("", |q| q.name.as_str()),
                run.continuation.min,
                run.continuation.max
            ),
        )
        .into());
    }
    result.start_parameter = Some(p0);
    continue_both_ways(&mut result, &family, &orbit, p0, run, drive, obs)?;
    let primary = result.branches.len();
    follow_doublings(&mut result, &family, run, drive, obs)?;
    follow_bifurcations(&mut result, &family, run, drive, primary, obs)?;
    if run.action == OrbitsAction::Curve && result.complete {
        let located = super::curves::located_on(&result.branches);
        let c = super::curves::curves(run, chain, &located, None, obs)?;
        result.complete = c.complete;
        result.curves = Some(c);
    }
    Ok(result)
}

/// A branch's label: `period-k` of a driven chain's orbit of k drive periods (`drive`: the
/// drive period), `family` of an autonomous one.
fn label(o: &PeriodicOrbit, drive: Option<f64>) -> String {
    match drive {
        Some(t) => format!("period-{}", (o.period / t).round() as u64),
        None => "family".to_string(),
    }
}

/// The branch through `orbit` at `p0`, continued up (and down, for `direction = "both"`).
fn continue_both_ways(
    result: &mut OrbitsResult,
    family: &SpecFamily<'_>,
    orbit: &PeriodicOrbit,
    p0: f64,
    run: &OrbitsRun,
    drive: Option<f64>,
    obs: &mut dyn Observer,
) -> Result<(), RunError> {
    let first = continue_branch(family, orbit, p0, &run.shooting, &run.continuation, obs)
        .map_err(spec_error)?;
    result.complete = first.ended != "interrupted";
    if run.both_ways {
        result
            .branches
            .push((format!("{} up", label(orbit, drive)), first));
        if result.complete {
            let down = crate::analysis::periodic::ContinuationOptions {
                increasing: false,
                ..run.continuation
            };
            let other = continue_branch(family, orbit, p0, &run.shooting, &down, obs)
                .map_err(spec_error)?;
            result.complete = other.ended != "interrupted";
            result
                .branches
                .push((format!("{} down", label(orbit, drive)), other));
        }
    } else {
        result.branches.push((label(orbit, drive), first));
    }
    Ok(())
}

/// The period-doubled branches (`orbits.doublings` levels): each switched onto at the first
/// period doubling of the branch before it.
fn follow_doublings(
    result: &mut OrbitsResult,
    family: &SpecFamily<'_>,
    run: &OrbitsRun,
    drive: Option<f64>,
    obs: &mut dyn Observer,
) -> Result<(), RunError> {
    for level in 0..run.doublings {
        if !result.complete {
            break;
        }
        // The first doubling on the first branch(es), then on each doubled branch.
        let from = if level == 0 {
            0
        } else {
            result.branches.len() - 1
        };
        let Some(pd) = result.branches[from..]
            .iter()
            .flat_map(|(_, b)| &b.bifurcations)
            .find(|b| b.kind == BifurcationKind::PeriodDoubling)
            .cloned()
        else {
            break;
        };
        // A cascade's windows shrink by Feigenbaum's δ ≈ 4.67 per doubling: each doubled
        // branch is followed with steps a fifth, then a quarter per level, of the first's.
        let next = doubled_options(&run.continuation, level);
        let doubled =
            switch_period_doubling(family, &pd, &run.shooting, &next, obs).map_err(spec_error)?;
        result.complete = doubled.ended != "interrupted";
        let name = doubled
            .points
            .first()
            .map_or_else(|| "doubled".to_string(), |p| label(&p.orbit, drive));
        result.branches.push((name, doubled));
    }
    Ok(())
}

/// The options of the doubled branch `level` levels below the first: a cascade's windows shrink
/// by Feigenbaum's δ ≈ 4.67 per doubling, so each doubled branch is followed with steps a fifth,
/// then a quarter per level, of the first's.
fn doubled_options(c: &ContinuationOptions, level: usize) -> ContinuationOptions {
    let max_step = c.max_step / (5.0 * 4f64.powi(level as i32));
    ContinuationOptions {
        max_step,
        step: c.step.min(max_step / 20.0),
        min_step: c.min_step.min(1e-12),
        ..*c
    }
}

/// `orbits.follow`: the new branches born at the located bifurcations of the first `primary`
/// branches, of the kinds it names, each labelled by its kind and its count (`branch-point-1`,
/// `period-doubling-2`). A period doubling's doubled branch is switched onto as `doublings`
/// does (the first one is skipped where `doublings` already followed it); a branch point's new
/// branch is a pitchfork's, its mirror half noted rather than continued twice (a branch point
/// that is no pitchfork is noted, not switched); a Neimark–Sacker point is noted with the
/// command that studies its torus.
fn follow_bifurcations(
    result: &mut OrbitsResult,
    family: &SpecFamily<'_>,
    run: &OrbitsRun,
    drive: Option<f64>,
    primary: usize,
    obs: &mut dyn Observer,
) -> Result<(), RunError> {
    let f = run.follow;
    if !f.any() {
        return Ok(());
    }
    let name = run.parameter.as_ref().map_or("", |q| q.name.as_str());
    let located: Vec<Bifurcation> = result.branches[..primary]
        .iter()
        .flat_map(|(_, b)| b.bifurcations.iter().cloned())
        .collect();
    let (mut doublings, mut points, mut tori) = (0, 0, 0);
    for bif in located {
        if !result.complete {
            break;
        }
        let at = format!("{name} = {}", bif.parameter);
        match bif.kind {
            BifurcationKind::PeriodDoubling if f.period_doubling => {
                doublings += 1;
                if run.doublings > 0 && doublings == 1 {
                    continue;
                }
                let opts = doubled_options(&run.continuation, 0);
                let b = switch_period_doubling(family, &bif, &run.shooting, &opts, obs)
                    .map_err(spec_error)?;
                result.complete = b.ended != "interrupted";
                let period = b
                    .points
                    .first()
                    .map_or_else(String::new, |p| format!(" {}", label(&p.orbit, drive)));
                result
                    .branches
                    .push((format!("period-doubling-{doublings}{period}"), b));
            }
            BifurcationKind::BranchPoint if f.branch_point => {
                points += 1;
                let tag = format!("branch-point-{points}");
                match switch_branch_point(family, &bif, &run.shooting, &run.continuation, obs) {
                    Ok(sw) => {
                        result.complete = sw.branch.ended != "interrupted"
                            && sw.other.as_ref().is_none_or(|o| o.ended != "interrupted");
                        let what = if sw.mirror {
                            format!(
                                "a symmetry-breaking pitchfork; its other half (along −c) is this one's mirror image θ → −θ (their first points {:.1e} apart), not continued twice",
                                sw.mirror_distance
                            )
                        } else {
                            format!(
                                "a pitchfork whose halves are not mirror images ({:.1e} apart): both continued",
                                sw.mirror_distance
                            )
                        };
                        result.notes.push(format!("{tag} at {at}: {what}"));
                        match sw.other {
                            None => result.branches.push((tag, sw.branch)),
                            Some(o) => {
                                result.branches.push((format!("{tag} +c"), sw.branch));
                                result.branches.push((format!("{tag} -c"), o));
                            }
                        }
                    }
                    Err(PeriodicError::Unverified(why) | PeriodicError::NotConverged(why)) => {
                        result
                            .notes
                            .push(format!("{tag} at {at}: not switched: {why}"));
                    }
                    Err(e) => return Err(spec_error(e)),
                }
            }
            BifurcationKind::NeimarkSacker if f.neimark_sacker => {
                tori += 1;
                result.notes.push(format!(
                    "neimark-sacker-{tori} at {at}: a torus is born (multiplier {:+.6} {:+.6}i); nothing is continued here: `pendula frequencies` studies the quasi-periodic motion near this orbit",
                    bif.multiplier[0], bif.multiplier[1]
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
