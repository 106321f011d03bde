//! A manifolds run: the saddle (shot as `orbits find` shoots a period-k orbit, then polished
//! by Newton on the map the curves are grown with), its four branches, their intersections,
//! the splitting over the window, the first tangency in a parameter, the turnstile's lobes
//! where the map preserves area, and the Melnikov prediction of the driven damped pendulum.

use super::table::{ManifoldsRun, TangencySearch};
use crate::analysis::manifold::grow::{grow, grow_observed, Curve, INTERRUPTED};
use crate::analysis::manifold::intersect::{intersections, Intersection};
use crate::analysis::manifold::lobe::lobe_area;
use crate::analysis::manifold::map::Iterate;
use crate::analysis::manifold::melnikov::Melnikov;
use crate::analysis::manifold::saddle::saddle;
use crate::analysis::manifold::section::SectionMap;
use crate::analysis::manifold::tangency::{first_tangency, splitting, Splitting, Tangency};
use crate::analysis::manifold::{Branch, FlowMap, ManifoldError, PlaneMap, Saddle, P2};
use crate::analysis::map::{MapData, MapHeader};
use crate::analysis::periodic::{find, Closure, Guess, PeriodicError};
use crate::analysis::poincare::{orbit as section_orbit, Section, SectionOptions};
use crate::error::FieldError;
use crate::integrate::Direction;
use crate::kinds::orbits::run::{nearest_return, strobe};
use crate::kinds::orbits::table::OrbitStart;
use crate::kinds::{Input, RunError};
use crate::model::System;
use crate::model::{Chain, ParameterError};
use crate::observe::{Cancel, Control, Observer};
use std::f64::consts::TAU;

/// The four branches' names, in the order they are kept: unstable along ±v_u, stable ±v_s.
pub const BRANCHES: [(&str, bool, f64); 4] = [
    ("unstable_plus", true, 1.0),
    ("unstable_minus", true, -1.0),
    ("stable_plus", false, 1.0),
    ("stable_minus", false, -1.0),
];

/// An intersection with the branches it joins.
#[derive(Debug, Clone)]
pub struct Crossing {
    /// Indices into [`BRANCHES`] of its unstable and stable branch.
    pub unstable: usize,
    pub stable: usize,
    pub at: Intersection,
}

/// The turnstile's lobes between q0, q1, q2 (adjacent intersections of unstable_plus and
/// stable_minus one turn on, q2 = P^k(q0) checked).
#[derive(Debug, Clone, PartialEq)]
pub struct Lobes {
    pub points: [P2; 3],
    pub areas: [f64; 2],
    /// |P^k(q0) − q2|.
    pub closure: f64,
}

/// What a manifolds run found.
#[derive(Debug, Clone)]
pub struct ManifoldsResult {
    /// The state the search started from.
    pub seed: Vec<f64>,
    pub return_distance: Option<f64>,
    pub drive_period: f64,
    /// The shooting's orbit point and multipliers (re, im).
    pub shot: P2,
    pub shot_multipliers: Vec<(f64, f64)>,
    pub saddle: Saddle,
    pub branches: Vec<Branch>,
    pub crossings: Vec<Crossing>,
    /// The splitting of unstable_plus and stable_minus one turn on, over the window (None:
    /// not measurable there, with the reason).
    pub splitting: Result<Splitting, String>,
    pub tangency: Option<Tangency>,
    pub lobes: Result<Lobes, String>,
    pub melnikov: Result<Melnikov, String>,
    /// Applications of the map, over all branches.
    pub evaluations: u64,
    /// `Some` for a conservative two-link chain's Poincaré map (then `drive_period` is NaN).
    pub shell: Option<ShellFound>,
    /// The map the figure draws the manifolds over (`map_file`).
    pub background: Option<Background>,
    /// False when a stop request ended the growth: the branches are those so far, and
    /// nothing (intersections, splitting, tangency, lobes) is computed from them.
    pub complete: bool,
}

/// A map of `pendula map` that the figure draws the manifolds over: one of this very chain,
/// over (θ, θ̇) at release (t = 0, the stroboscopic map's phase), read as a map figure reads
/// it.
#[derive(Debug, Clone)]
pub struct Background {
    pub file: String,
    pub header: MapHeader,
    pub data: MapData,
}

/// Reads and checks `run.map_file` before any work, so that a wrong map costs no growth.
fn background(chain: &Chain, run: &ManifoldsRun) -> Result<Option<Background>, RunError> {
    let Some(file) = run.map_file.as_deref() else {
        return Ok(None);
    };
    let field = "manifolds.map_file";
    let (reader, _) = crate::kinds::orbits::run::model_map(chain, file, field)?;
    let h = &reader.header;
    if (h.x_name.as_str(), h.y_name.as_str()) != ("theta1", "omega1") {
        return Err(RunError::Input(FieldError::new(
            field,
            format!(
                "{file}: its axes are ({}, {}); the manifolds lie in the stroboscopic section's (theta1, omega1) at release (map.x = \"theta1\", map.y = \"omega1\")",
                h.x_name, h.y_name
            ),
        )));
    }
    let data = reader
        .read_for_figure()
        .map_err(|e| RunError::Input(e.refusal(field)))?;
    Ok(Some(Background {
        file: file.to_string(),
        header: reader.header.clone(),
        data,
    }))
}

/// What the Poincaré map of a conservative two-link chain adds to a result.
#[derive(Debug, Clone)]
pub struct ShellFound {
    /// The shell's energy (J).
    pub energy: f64,
    /// The section's link i and the plane's link j (0-based), θ_i = `value` crossed in
    /// `direction`.
    pub link: usize,
    pub plane: usize,
    pub value: f64,
    pub direction: Direction,
    /// The hyperbolic orbit's period (s) and its crossings of the section per period (the
    /// saddle is a fixed point of P^returns).
    pub period: f64,
    pub returns: usize,
    /// The orbit's start as the shooting converged (θ, θ̇).
    pub orbit_x0: Vec<f64>,
    /// max |E(x) − E| (J) over every branch point's reconstructed state.
    pub energy_error: f64,
}

fn failed(e: ManifoldError) -> RunError {
    match e {
        ManifoldError::Invalid(f) => RunError::Input(f),
        ManifoldError::Failed(m) => RunError::Failed(format!("manifolds: {m}")),
        ManifoldError::Interrupted => RunError::Interrupted,
    }
}

fn shot_error(e: PeriodicError) -> RunError {
    match e {
        PeriodicError::Invalid(f) => RunError::Input(f),
        PeriodicError::Interrupted => RunError::Interrupted,
        PeriodicError::Run(a) => RunError::Analysis(a),
        other => RunError::Failed(format!(
            "manifolds: the saddle's orbit was not found ({other}); start nearer it (initial.theta, initial.omega, manifolds.start)"
        )),
    }
}

/// The seed of the saddle's search (as `orbits` seeds a driven orbit).
fn seed(
    spec: &Input<'_>,
    chain: &Chain,
    run: &ManifoldsRun,
    t: f64,
    obs: &mut dyn Observer,
) -> Result<(Vec<f64>, Option<f64>), RunError> {
    match run.start {
        OrbitStart::Settle { periods } => {
            Ok((strobe(chain, spec, spec.x0, t, periods, obs, |_| {})?, None))
        }
        OrbitStart::Return { transient, scan } => {
            let x = strobe(chain, spec, spec.x0, t, transient, obs, |_| {})?;
            let mut samples = x.clone();
            strobe(chain, spec, &x, t, scan, obs, |y| {
                samples.extend_from_slice(y)
            })?;
            let (i, d) = nearest_return(&samples, 2, 1, run.k);
            Ok((samples[2 * i..2 * i + 2].to_vec(), Some(d)))
        }
        _ => Ok((spec.x0.to_vec(), None)),
    }
}

/// The saddle of `chain`'s map from `guess`, its four branches (module docs).
fn branches<M: PlaneMap>(
    map: &M,
    sd: &Saddle,
    run: &ManifoldsRun,
    which: &[usize],
    cancel: &Cancel,
) -> Result<Vec<Branch>, ManifoldError> {
    let mut w = map.work();
    which
        .iter()
        .map(|&i| {
            let (_, unstable, side) = BRANCHES[i];
            let c = Curve::new(map, sd, unstable, side, run.growth.d0, &mut w)?;
            grow(map, &c, &run.growth, cancel)
        })
        .collect()
}

/// The four branches of the run itself, with a progress bar in units of the resolution's
/// length of arclength (each branch's `arclength` / `resolution` of them). A stop request
/// ends the branch under way with the points refined so far (`ended` = "interrupted") and
/// grows no further branch; returns whether all four went to the end.
fn observed_branches<M: PlaneMap>(
    map: &M,
    sd: &Saddle,
    run: &ManifoldsRun,
    obs: &mut dyn Observer,
) -> Result<(Vec<Branch>, bool), ManifoldError> {
    let cancel = obs.cancel();
    let g = &run.growth;
    let per = (g.arclength / g.resolution).ceil().max(1.0);
    obs.start(4 * per as u64, "resolution lengths");
    let mut w = map.work();
    let mut grown = Vec::with_capacity(4);
    let mut complete = true;
    for (i, &(_, unstable, side)) in BRANCHES.iter().enumerate() {
        let c = Curve::new(map, sd, unstable, side, g.d0, &mut w)?;
        let done = i as f64 * per;
        let mut stop = false;
        let b = grow_observed(map, &c, g, &cancel, &mut |l| {
            let at = (done + (l / g.resolution).min(per)) as u64;
            stop |= obs.advance(at) == Control::Stop;
        })?;
        complete &= b.ended != INTERRUPTED && !stop;
        grown.push(b);
        if !complete {
            break;
        }
    }
    obs.finish();
    Ok((grown, complete))
}

/// What an interrupted run keeps: its branches so far, nothing computed from them.
fn interrupted(r: &mut ManifoldsResult) {
    r.complete = false;
    r.crossings.clear();
    r.tangency = None;
    r.splitting = Err("not measured: the run was interrupted".into());
    r.lobes = Err("not computed: the run was interrupted".into());
}

/// The splitting of unstable_plus and stable_minus one turn on (module docs of
/// [`crate::analysis::manifold::tangency`]).
fn split<M: PlaneMap>(
    map: &M,
    sd: &Saddle,
    u: &Branch,
    s: &Branch,
    run: &ManifoldsRun,
) -> Result<Splitting, ManifoldError> {
    let th = sd.point[0];
    splitting(
        map,
        u,
        s,
        [TAU, 0.0],
        [th + run.window[0], th + run.window[1]],
        24,
    )
}

/// The chain with the tangency's parameter at `p`, checked as a spec's chain.
fn chain_at(
    chain: &Chain,
    t: &TangencySearch,
    p: f64,
    preset: bool,
) -> Result<Chain, ManifoldError> {
    let bad = |m: String| ManifoldError::invalid("manifolds.parameter", m);
    let set = match t.parameter.set(chain, p) {
        Err(ParameterError::Model(e)) => Err(e),
        Err(other) => return Err(bad(other.to_string())),
        Ok(c) => Ok(c),
    };
    crate::spec::checked_chain(set, preset).map_err(|e| bad(format!("at {} = {p}: {e}", t.name)))
}

/// The drive period of `chain` (s).
fn period_of(chain: &Chain) -> Result<f64, RunError> {
    chain
        .params()
        .drive
        .period_of_fields()?
        .ok_or_else(|| FieldError::new("model.drive", "the chain is not driven").into())
}

/// Runs the manifolds of `run` on `spec`'s chain.
pub fn run(
    spec: &Input<'_>,
    run: &ManifoldsRun,
    obs: &mut dyn Observer,
) -> Result<ManifoldsResult, RunError> {
    let chain = spec.planar(super::KIND.name)?;
    if run.shell.is_some() {
        return run_shell(spec, chain, run, obs);
    }
    let t = period_of(chain)?;
    let background = background(chain, run)?;
    let cancel = obs.cancel();
    let (x0, return_distance) = seed(spec, chain, run, t, obs)?;
    // The orbit as `orbits find` shoots it.
    let orbit = find(
        chain,
        &Guess {
            x0: x0.clone(),
            period: run.k as f64 * t,
        },
        Closure::Driven {
            drive_period: t,
            k: run.k,
        },
        &run.shooting,
        &cancel,
    )
    .map_err(shot_error)?;
    let base = FlowMap::new(chain, t, run.integration).map_err(failed)?;
    let map = Iterate {
        map: &base,
        k: run.k,
    };
    let sd = saddle(&map, [orbit.x0[0], orbit.x0[1]], run.newton_tolerance, 40).map_err(failed)?;
    let (grown, complete) = observed_branches(&map, &sd, run, obs).map_err(failed)?;
    let evaluations = grown.iter().map(|b| b.evaluations).sum();
    // An interrupted run keeps its branches and computes nothing from them ([`interrupted`]).
    let (crossings, splitting, tangency, lobes) = if complete {
        let crossings = all_crossings(&map, &grown, run.intersection_tolerance).map_err(failed)?;
        let splitting = split(&map, &sd, &grown[0], &grown[3], run).map_err(|e| e.to_string());
        let tangency = match &run.tangency {
            None => None,
            Some(ts) => Some(tangency(chain, ts, run, sd.point, &cancel).map_err(failed)?),
        };
        let lobes = lobes(&map, &sd, chain, &grown, &crossings);
        (crossings, splitting, tangency, lobes)
    } else {
        (Vec::new(), Err(String::new()), None, Err(String::new()))
    };
    let mut r = ManifoldsResult {
        seed: x0,
        return_distance,
        drive_period: t,
        shot: [orbit.x0[0], orbit.x0[1]],
        shot_multipliers: multipliers(&orbit),
        saddle: sd,
        branches: grown,
        crossings,
        splitting,
        tangency,
        lobes,
        melnikov: Melnikov::of_chain(chain),
        evaluations,
        shell: None,
        background,
        complete: true,
    };
    if !complete {
        interrupted(&mut r);
    }
    Ok(r)
}

/// The shooting's Floquet multipliers as (re, im).
fn multipliers(orbit: &crate::analysis::periodic::PeriodicOrbit) -> Vec<(f64, f64)> {
    orbit
        .floquet
        .multipliers
        .iter()
        .map(|m| (m.re, m.im))
        .collect()
}

/// Every unstable × stable pair's intersections, with the lattice shifts −1, 0, 1.
fn all_crossings<M: PlaneMap>(
    map: &M,
    grown: &[Branch],
    tolerance: f64,
) -> Result<Vec<Crossing>, ManifoldError> {
    let lattice: &[i32] = &[-1, 0, 1];
    let mut crossings = Vec::new();
    for u in 0..2 {
        for s in 2..4 {
            for at in intersections(map, &grown[u], &grown[s], lattice, tolerance)? {
                crossings.push(Crossing {
                    unstable: u,
                    stable: s,
                    at,
                });
            }
        }
    }
    Ok(crossings)
}

/// How long the section map waits for a return, in orbit periods: a manifold point far from
/// the orbit can linger (near the shell's edge the section's angle moves slowly).
const MAX_RETURN_PERIODS: f64 = 50.0;

/// The manifolds of a conservative two-link chain's hyperbolic orbit on the Poincaré section
/// of `poincare` (module docs of [`crate::analysis::manifold::section`]): the orbit shot at
/// the shell's energy, its first crossing of the section as the seed of Newton on P^k (k its
/// crossings per period), the four branches and their intersections.
fn run_shell(
    spec: &Input<'_>,
    chain: &Chain,
    run: &ManifoldsRun,
    obs: &mut dyn Observer,
) -> Result<ManifoldsResult, RunError> {
    let sh = run.shell.as_ref().expect("a shell run");
    let cancel = obs.cancel();
    let mut return_distance = None;
    let (x0, guess) = match run.start {
        OrbitStart::Return { scan, .. } => {
            let (x, p) = crate::kinds::orbits::run::section_return(
                spec,
                chain,
                &run.shooting,
                scan,
                obs,
                &mut return_distance,
            )?;
            (x, p.expect("a section return has a period guess"))
        }
        _ => (
            spec.x0.to_vec(),
            sh.period.expect("validated: start = initial has a period"),
        ),
    };
    let energy = sh.energy.unwrap_or_else(|| chain.energy(0.0, &x0));
    let orbit = find(
        chain,
        &Guess {
            x0: x0.clone(),
            period: guess,
        },
        Closure::Energy(energy),
        &run.shooting,
        &cancel,
    )
    .map_err(shot_error)?;
    let period = orbit.period;
    let tol = match run.integration {
        crate::analysis::manifold::MapIntegration::Adaptive(t) => t,
        crate::analysis::manifold::MapIntegration::Fixed(_) => {
            return Err(
                FieldError::new("manifolds.steps_per_period", "applies to a driven chain").into(),
            )
        }
    };
    let map = SectionMap::new(
        chain,
        sh.link,
        sh.value,
        sh.direction,
        energy,
        tol,
        MAX_RETURN_PERIODS * period,
    )
    .map_err(failed)?;
    // The orbit's crossings over two periods: the first is the saddle's seed, and those within
    // one period after it (the return at t₁ + T excluded) make k.
    let section = Section::angle(sh.link, sh.value, sh.direction);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let count = std::sync::atomic::AtomicU64::new(0);
    let o = section_orbit(
        chain,
        &section,
        &orbit.x0,
        &SectionOptions {
            crossings: 1000,
            t_end: 2.0 * period,
            rtol: tol,
            atol: tol,
            ..SectionOptions::default()
        },
        &stop,
        &count,
    );
    let Some(&t1) = o.t.first() else {
        return Err(RunError::Failed(format!(
            "manifolds: the orbit of period {period:.6} s does not cross the section {}; choose manifolds.section, value or direction",
            section.describe(chain)
        )));
    };
    let k =
        o.t.iter()
            .filter(|&&t| t > t1 && t < t1 + period * (1.0 - 1e-6))
            .count()
            + 1;
    let base_point = map.point(&o.states[0]);
    let it = Iterate { map: &map, k };
    let sd = saddle(&it, base_point, run.newton_tolerance, 40).map_err(failed)?;
    let (mut grown, complete) = observed_branches(&it, &sd, run, obs).map_err(failed)?;
    for b in &mut grown {
        cut_at_discontinuity(b, run.growth.resolution);
    }
    let evaluations = grown.iter().map(|b| b.evaluations).sum();
    let mut energy_error = 0.0f64;
    for b in &grown {
        for p in b.points() {
            let x = map.state(p).map_err(failed)?;
            energy_error = energy_error.max((chain.energy(0.0, &x) - energy).abs());
        }
    }
    let crossings = if complete {
        all_crossings(&it, &grown, run.intersection_tolerance).map_err(failed)?
    } else {
        Vec::new()
    };
    let lobes = shell_lobes(&it, &grown, &crossings);
    let mut r = ManifoldsResult {
        seed: x0,
        return_distance,
        drive_period: f64::NAN,
        shot: base_point,
        shot_multipliers: multipliers(&orbit),
        saddle: sd,
        branches: grown,
        crossings,
        splitting: Err("the splitting over a window of θ is the driven pendulum's measure".into()),
        tangency: None,
        lobes,
        melnikov: Err("the Melnikov form is of the driven damped pendulum".into()),
        evaluations,
        shell: Some(ShellFound {
            energy,
            link: sh.link,
            plane: 1 - sh.link,
            value: sh.value,
            direction: sh.direction,
            period,
            returns: k,
            orbit_x0: orbit.x0.clone(),
            energy_error,
        }),
        background: None,
        complete: true,
    };
    if !complete {
        interrupted(&mut r);
    }
    Ok(r)
}

/// A Poincaré map is discontinuous where orbits graze the section (the return time jumps to
/// a later crossing): neighbours on either side stay apart however finely their domain
/// parameters are split. The branch is kept up to its first such pair (`ended` =
/// "discontinuity"), so that no curve or intersection spans the jump.
fn cut_at_discontinuity(b: &mut Branch, resolution: f64) {
    if let Some(i) = b
        .nodes
        .windows(2)
        .position(|w| crate::analysis::manifold::dist(w[0].point, w[1].point) > resolution)
    {
        b.nodes.truncate(i + 1);
        b.arclength.truncate(i + 1);
        b.ended = "discontinuity";
        b.unresolved = 0;
    }
}

/// The turnstile of the Poincaré map: not located yet (see the README).
fn shell_lobes<M: PlaneMap>(
    _map: &M,
    _grown: &[Branch],
    _crossings: &[Crossing],
) -> Result<Lobes, String> {
    Err("the lobes of the two-link map are not computed".into())
}

/// The first tangency: the signed distance of unstable_plus and stable_minus one turn on, as
/// the parameter varies, the saddle followed by Newton from the nearer end's.
fn tangency(
    chain: &Chain,
    ts: &TangencySearch,
    run: &ManifoldsRun,
    start: P2,
    cancel: &Cancel,
) -> Result<Tangency, ManifoldError> {
    first_tangency(ts.range, ts.tolerance, start, |p, guess| {
        if cancel.is_set() {
            return Err(ManifoldError::Interrupted);
        }
        let c = chain_at(chain, ts, p, run.preset)?;
        let t = c
            .params()
            .drive
            .period_of_fields()
            .map_err(ManifoldError::Invalid)?
            .ok_or_else(|| {
                ManifoldError::invalid("manifolds.parameter", "the chain lost its drive")
            })?;
        let base = FlowMap::new(&c, t, run.integration)?;
        let map = Iterate {
            map: &base,
            k: run.k,
        };
        let sd = saddle(&map, guess, run.newton_tolerance, 40)?;
        let b = branches(&map, &sd, run, &[0, 3], cancel)?;
        let sp = split(&map, &sd, &b[0], &b[1], run)?;
        Ok((sp.distance, sd.point))
    })
}

/// The lobes of the turnstile where the map preserves area (no damping): between the
/// intersections q0 (the one of unstable_plus and stable_minus one turn on nearest the middle
/// of the turn, θ* + π), q1 and q2 next along the unstable branch.
fn lobes<M: PlaneMap>(
    map: &M,
    sd: &Saddle,
    chain: &Chain,
    grown: &[Branch],
    crossings: &[Crossing],
) -> Result<Lobes, String> {
    if !chain.params().damping.is_zero() {
        return Err("the map of a damped chain does not preserve area".into());
    }
    let xs: Vec<&Intersection> = crossings
        .iter()
        .filter(|c| c.unstable == 0 && c.stable == 3 && c.at.shift == 1)
        .map(|c| &c.at)
        .collect();
    let mid = sd.point[0] + std::f64::consts::PI;
    let i0 = (0..xs.len())
        .min_by(|&a, &b| {
            (xs[a].point[0] - mid)
                .abs()
                .total_cmp(&(xs[b].point[0] - mid).abs())
        })
        .ok_or("no intersections of unstable_plus with stable_minus one turn on")?;
    if i0 + 2 >= xs.len() {
        return Err(format!(
            "{} intersections of unstable_plus with stable_minus one turn on: too few past the middle for two lobes (raise manifolds.arclength)",
            xs.len()
        ));
    }
    let (q0, q1, q2) = (xs[i0], xs[i0 + 1], xs[i0 + 2]);
    let mut w = map.work();
    let p0 = map
        .apply(q0.point, false, &mut w)
        .map_err(|e| e.to_string())?;
    let closure = (p0[0] - q2.point[0]).hypot(p0[1] - q2.point[1]);
    let shift = [TAU, 0.0];
    let a01 = lobe_area(map, &grown[0], &grown[3], shift, q0, q1).map_err(|e| e.to_string())?;
    let a12 = lobe_area(map, &grown[0], &grown[3], shift, q1, q2).map_err(|e| e.to_string())?;
    Ok(Lobes {
        points: [q0.point, q1.point, q2.point],
        areas: [a01, a12],
        closure,
    })
}
