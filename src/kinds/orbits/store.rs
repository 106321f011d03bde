//! Group `orbits`: a periodic orbit (subgroup `orbit`), its branches (`branch_1`, `branch_2`, …:
//! one row per point) with the located bifurcations (`bifurcations`), or an orbit diagram
//! (`diagram`). Every variable has CF `units` and `long_name`, over named dimensions.

use super::run::OrbitsResult;
use crate::analysis::periodic::{Branch, Floquet, OrbitDiagram, PeriodicOrbit};
use crate::spec::orbits::OrbitClosure;
use crate::spec::OrbitsRun;
use crate::store::{
    link_coord, write_method, write_model, GroupWriter, H5Out, RunInfo, StoreError,
};
use ndarray::{Array2, Array4};

/// The stability codes of `stability` variables, as CF flag meanings.
const STABILITY_MEANINGS: &str = "stable unstable elliptic hyperbolic complex_unstable";
/// The bifurcation kinds of `kind`, as CF flag meanings.
const KIND_MEANINGS: &str = "fold branch_point period_doubling neimark_sacker krein_collision";

pub fn write_orbits(
    out: &H5Out,
    run: &RunInfo<'_>,
    spec: &OrbitsRun,
    result: &OrbitsResult,
) -> Result<(), StoreError> {
    let g = out.group("orbits")?;
    let n = run.chain.links();
    g.attr_str("title", run.title)?;
    g.attr_str("model", run.model_name)?;
    g.attr_str("action", result.action.name())?;
    g.attr_bool("complete", result.complete)?;
    g.attr_str(
        "closure",
        match spec.closure {
            OrbitClosure::Driven { .. } => "driven",
            OrbitClosure::Energy(_) => "energy",
            OrbitClosure::Period(_) => "period",
        },
    )?;
    if let OrbitClosure::Driven { k } = spec.closure {
        g.attr_i64("drive_periods", k as i64)?;
    }
    if let Some(t) = result.drive_period {
        g.attr_f64("drive_period", t)?;
    }
    if let Some(p) = &spec.parameter {
        g.attr_str("parameter", &p.name)?;
        g.attr_str("parameter_units", &p.units)?;
    }
    if let Some(d) = result.return_distance {
        g.attr_f64("seed_return_distance", d)?;
    }
    if let Some(m) = &result.map_pixel {
        // start = "map": which pixel of the map seeded the search, and its own start.
        if let Some(seed) = &spec.map_seed {
            g.attr_str("seed_map_file", &seed.file)?;
            g.attr_str("seed_attractor", &seed.attractor)?;
        }
        g.attr_i64("seed_map_row", m.row as i64)?;
        g.attr_i64("seed_map_col", m.col as i64)?;
        g.attr_f64("seed_map_settle_time", m.settle_time)?;
        g.attr_f64s("seed_map_start", &m.start)?;
    }
    if let Some(p) = result.start_parameter {
        g.attr_f64("start_parameter", p)?;
    }
    let s = &spec.shooting;
    g.attr_i64("segments", s.segments as i64)?;
    g.attr_f64("newton_tolerance", s.tolerance)?;
    write_method(&g, run.method)?;
    link_coord(&g, n)?;
    write_model(&g, run.chain)?;
    // The seed: [initial], the settled state or the mode seed.
    g.initial_state(&result.seed)?;
    if let Some(o) = &result.orbit {
        write_orbit(&g.group("orbit")?, o, n)?;
    }
    let units = spec.parameter.as_ref().map_or("1", |p| p.units.as_str());
    for (i, (label, b)) in result.branches.iter().enumerate() {
        let bg = g.group(&format!("branch_{}", i + 1))?;
        write_branch(&bg, label, b, n, units)?;
    }
    if !result.branches.is_empty() {
        write_bifurcations(&g.group("bifurcations")?, &result.branches, n, units)?;
    }
    if let Some(d) = &result.diagram {
        let dg = g.group("diagram")?;
        write_diagram(&dg, d, spec, units)?;
    }
    Ok(())
}

/// Coordinate `name` counting 1..=`n` (units `1`): the one home of the index coordinates
/// below.
fn count_coord(
    g: &GroupWriter<'_>,
    name: &str,
    n: usize,
    long_name: &str,
) -> Result<(), StoreError> {
    g.coord_i64(name, &(1..=n as i64).collect::<Vec<_>>(), "1", long_name)?;
    Ok(())
}

fn state_coord(g: &GroupWriter<'_>, n: usize) -> Result<(), StoreError> {
    count_coord(
        g,
        "state_component",
        2 * n,
        "component of the state: theta_1..theta_N (rad), then omega_1..omega_N (rad/s)",
    )
}

fn multiplier_coord(g: &GroupWriter<'_>, m: usize) -> Result<(), StoreError> {
    count_coord(
        g,
        "multiplier",
        m,
        "non-trivial Floquet multiplier, by modulus, largest first",
    )
}

/// One orbit: its start, period, multipliers, checks, monodromy, shape and Newton history.
fn write_orbit(g: &GroupWriter<'_>, o: &PeriodicOrbit, n: usize) -> Result<(), StoreError> {
    let dim = 2 * n;
    state_coord(g, n)?;
    link_coord(g, n)?;
    orbit_attrs(g, o)?;
    trivial_multipliers(g, &o.floquet)?;
    g.var(
        "x0",
        &["state_component"],
        o.x0.as_slice(),
        "1",
        "start of the orbit (rad, rad/s; a driven orbit at drive phase 0)",
    )?;
    g.var(
        "turns",
        &["link"],
        o.turns.as_slice(),
        "1",
        "net turns of each angle per period",
    )?;
    multipliers(g, &o.floquet)?;
    monodromy(g, o, dim)?;
    orbit_shape(g, o, dim)?;
    newton_history(g, o)
}

/// The orbit's numbers and the verification of its closure and multipliers, as attributes.
fn orbit_attrs(g: &GroupWriter<'_>, o: &PeriodicOrbit) -> Result<(), StoreError> {
    let f = &o.floquet;
    g.attr_f64("period", o.period)?;
    g.attr_f64("energy", o.energy)?;
    g.attr_str("stability", f.stability.name())?;
    g.attr_f64("determinant", f.determinant)?;
    g.attr_f64("liouville", f.liouville)?;
    g.attr_f64("liouville_error", f.liouville_error)?;
    g.attr_f64("reciprocal_error", f.reciprocal_error.unwrap_or(f64::NAN))?;
    // max |mu| of the non-trivial multipliers; NaN: the orbit has none (a one-link
    // autonomous orbit's two multipliers are both trivial).
    g.attr_f64("largest_modulus", f.largest_modulus)?;
    g.attr_i64("evaluations", o.evaluations as i64)?;
    // The verification (see the variables' long names).
    g.attr_f64("closure_residual", o.closure_residual)?;
    g.attr_f64("closure_tolerance", o.closure_tolerance)?;
    g.attr_f64("trivial_tolerance", o.trivial_tolerance)?;
    Ok(())
}

/// The trivial multipliers of an autonomous orbit (none for a driven one) over `trivial`.
fn trivial_multipliers(g: &GroupWriter<'_>, f: &Floquet) -> Result<(), StoreError> {
    let t = f.trivial.len();
    count_coord(
        g,
        "trivial",
        t,
        "trivial Floquet multiplier of an autonomous orbit: 1 along the flow, 2 across the energy shells (none for a driven orbit)",
    )?;
    g.var(
        "trivial_multiplier_real",
        &["trivial"],
        f.trivial.iter().map(|m| m.re).collect::<Vec<_>>().as_slice(),
        "1",
        "real part of the trivial Floquet multiplier (exactly +1 for a true orbit; verified within attribute trivial_tolerance)",
    )?;
    g.var(
        "trivial_multiplier_imag",
        &["trivial"],
        f.trivial
            .iter()
            .map(|m| m.im)
            .collect::<Vec<_>>()
            .as_slice(),
        "1",
        "imaginary part of the trivial Floquet multiplier",
    )?;
    Ok(())
}

/// The non-trivial multipliers over `multiplier`, with their Floquet exponents.
fn multipliers(g: &GroupWriter<'_>, f: &Floquet) -> Result<(), StoreError> {
    let m = f.multipliers.len();
    multiplier_coord(g, m)?;
    let col = |h: fn(&crate::analysis::periodic::Multiplier) -> f64| {
        f.multipliers.iter().map(h).collect::<Vec<f64>>()
    };
    g.var(
        "multiplier_real",
        &["multiplier"],
        col(|x| x.re).as_slice(),
        "1",
        "real part of the Floquet multiplier",
    )?;
    g.var(
        "multiplier_imag",
        &["multiplier"],
        col(|x| x.im).as_slice(),
        "1",
        "imaginary part of the Floquet multiplier",
    )?;
    g.var(
        "floquet_exponent",
        &["multiplier"],
        col(|x| x.exponent).as_slice(),
        "s-1",
        "Floquet exponent ln|mu| / T",
    )?;
    Ok(())
}

/// The monodromy matrix over (state_component, state_component_k).
fn monodromy(g: &GroupWriter<'_>, o: &PeriodicOrbit, dim: usize) -> Result<(), StoreError> {
    count_coord(
        g,
        "state_component_k",
        dim,
        "component of the state (second matrix axis)",
    )?;
    let mono = Array2::from_shape_fn((dim, dim), |(i, j)| o.monodromy[(i, j)]);
    g.var(
        "monodromy",
        &["state_component", "state_component_k"],
        &mono,
        "1",
        "monodromy matrix d x(T) / d x(0) (mixed units: s and s-1 between angle and rate rows)",
    )?;
    Ok(())
}

/// The state along one period over (time, state_component).
fn orbit_shape(g: &GroupWriter<'_>, o: &PeriodicOrbit, dim: usize) -> Result<(), StoreError> {
    let samples = o.shape.len() / dim;
    let times: Vec<f64> = (0..samples)
        .map(|i| o.period * i as f64 / (samples - 1).max(1) as f64)
        .collect();
    g.coord("time", &times, "s", "time along the orbit from its start")?;
    let shape =
        Array2::from_shape_vec((samples, dim), o.shape.clone()).map_err(|e| StoreError::Dims {
            var: "shape".into(),
            what: e.to_string(),
        })?;
    g.var(
        "shape",
        &["time", "state_component"],
        &shape,
        "1",
        "state along one period (rad, rad/s; angles unwrapped)",
    )?;
    Ok(())
}

/// The shooting's residual at each Newton iterate.
fn newton_history(g: &GroupWriter<'_>, o: &PeriodicOrbit) -> Result<(), StoreError> {
    g.coord_i64(
        "iteration",
        &(0..o.residuals.len() as i64).collect::<Vec<_>>(),
        "1",
        "Newton iteration",
    )?;
    g.var(
        "newton_residual",
        &["iteration"],
        o.residuals.as_slice(),
        "1",
        "max-norm residual of the shooting equations at each Newton iterate",
    )?;
    Ok(())
}

/// A branch: one row per point.
fn write_branch(
    g: &GroupWriter<'_>,
    label: &str,
    b: &Branch,
    n: usize,
    units: &str,
) -> Result<(), StoreError> {
    let p = b.points.len();
    g.attr_str("label", label)?;
    g.attr_str("ended", &b.ended)?;
    count_coord(
        g,
        "point",
        p,
        "point along the branch, in continuation order",
    )?;
    state_coord(g, n)?;
    link_coord(g, n)?;
    let m = b
        .points
        .iter()
        .map(|q| q.orbit.floquet.multipliers.len())
        .max()
        .unwrap_or(0);
    multiplier_coord(g, m)?;
    write_branch_numbers(g, b, units)?;
    write_branch_states(g, b, n, m)
}

/// A branch's numbers per point: the parameter, arclength, period, energy, the largest
/// multiplier modulus and the verification of each orbit.
fn write_branch_numbers(g: &GroupWriter<'_>, b: &Branch, units: &str) -> Result<(), StoreError> {
    let per = |f: &dyn Fn(&PeriodicOrbit) -> f64| -> Vec<f64> {
        b.points.iter().map(|q| f(&q.orbit)).collect()
    };
    let params: Vec<f64> = b.points.iter().map(|q| q.parameter).collect();
    g.var(
        "parameter",
        &["point"],
        params.as_slice(),
        units,
        "the continued parameter",
    )?;
    let arc: Vec<f64> = b.points.iter().map(|q| q.arclength).collect();
    g.var(
        "arclength",
        &["point"],
        arc.as_slice(),
        "1",
        "pseudo-arclength from the branch's start",
    )?;
    g.var(
        "period",
        &["point"],
        per(&|o| o.period).as_slice(),
        "s",
        "period of the orbit",
    )?;
    g.var(
        "energy",
        &["point"],
        per(&|o| o.energy).as_slice(),
        "J",
        "energy at the orbit's start",
    )?;
    g.var(
        "largest_modulus",
        &["point"],
        per(&|o| o.floquet.largest_modulus).as_slice(),
        "1",
        "largest |mu| over the non-trivial multipliers (> 1: unstable; NaN: the orbit has no non-trivial multiplier)",
    )?;
    g.var(
        "closure_residual",
        &["point"],
        per(&|o| o.closure_residual).as_slice(),
        "1",
        "max |x(T) - x0| (angles less whole turns) of one integration over the period from x0, independent of the shooting (rad, rad/s)",
    )?;
    g.var(
        "closure_tolerance",
        &["point"],
        per(&|o| o.closure_tolerance).as_slice(),
        "1",
        "what closure_residual was verified against",
    )?;
    // The trivial multipliers (along the flow, across the energy shells) of an autonomous
    // family; NaN for a driven one, which has none.
    for (i, name) in [(0, "trivial_along_flow"), (1, "trivial_across_shells")] {
        g.var(
            name,
            &["point"],
            per(&|o| o.floquet.trivial.get(i).map_or(f64::NAN, |m| m.re)).as_slice(),
            "1",
            if i == 0 {
                "trivial Floquet multiplier along the flow (exactly +1 for a true orbit; NaN: driven)"
            } else {
                "trivial Floquet multiplier across the energy shells (exactly +1 for a true orbit; NaN: driven)"
            },
        )?;
    }
    g.var(
        "trivial_tolerance",
        &["point"],
        per(&|o| o.trivial_tolerance).as_slice(),
        "1",
        "what |mu - 1| of each trivial multiplier was verified against (NaN: driven)",
    )?;
    g.var(
        "liouville_error",
        &["point"],
        per(&|o| o.floquet.liouville_error).as_slice(),
        "1",
        "relative error of det M against exp(integral of tr J dt)",
    )?;
    Ok(())
}

/// A branch's stability, start states, turns and multipliers per point (`m` multipliers).
fn write_branch_states(
    g: &GroupWriter<'_>,
    b: &Branch,
    n: usize,
    m: usize,
) -> Result<(), StoreError> {
    let (p, dim) = (b.points.len(), 2 * n);
    let stab: Vec<u8> = b
        .points
        .iter()
        .map(|q| q.orbit.floquet.stability.code())
        .collect();
    g.var(
        "stability",
        &["point"],
        stab.as_slice(),
        "1",
        "stability of the orbit",
    )?
    .attr_u8s("flag_values", &[0, 1, 2, 3, 4])?
    .attr_str("flag_meanings", STABILITY_MEANINGS)?;
    let x0 = Array2::from_shape_fn((p, dim), |(i, j)| b.points[i].orbit.x0[j]);
    g.var(
        "initial_state",
        &["point", "state_component"],
        &x0,
        "1",
        "start of each orbit (rad, rad/s)",
    )?;
    let turns = Array2::from_shape_fn((p, n), |(i, j)| b.points[i].orbit.turns[j]);
    g.var(
        "turns",
        &["point", "link"],
        &turns,
        "1",
        "net turns of each angle per period",
    )?;
    let mu = |i: usize, k: usize, re: bool| {
        b.points[i]
            .orbit
            .floquet
            .multipliers
            .get(k)
            .map_or(f64::NAN, |x| if re { x.re } else { x.im })
    };
    let re = Array2::from_shape_fn((p, m), |(i, k)| mu(i, k, true));
    let im = Array2::from_shape_fn((p, m), |(i, k)| mu(i, k, false));
    g.var(
        "multiplier_real",
        &["point", "multiplier"],
        &re,
        "1",
        "real part of the Floquet multiplier",
    )?;
    g.var(
        "multiplier_imag",
        &["point", "multiplier"],
        &im,
        "1",
        "imaginary part of the Floquet multiplier",
    )?;
    Ok(())
}

/// Every located bifurcation of every branch, one row each.
fn write_bifurcations(
    g: &GroupWriter<'_>,
    branches: &[(String, Branch)],
    n: usize,
    units: &str,
) -> Result<(), StoreError> {
    let dim = 2 * n;
    let all: Vec<(usize, &crate::analysis::periodic::Bifurcation)> = branches
        .iter()
        .enumerate()
        .flat_map(|(i, (_, b))| b.bifurcations.iter().map(move |x| (i + 1, x)))
        .collect();
    let c = all.len();
    count_coord(
        g,
        "bifurcation",
        c,
        "located bifurcation, by branch then parameter order along it",
    )?;
    state_coord(g, n)?;
    let col = |f: &dyn Fn(&crate::analysis::periodic::Bifurcation) -> f64| -> Vec<f64> {
        all.iter().map(|(_, x)| f(x)).collect()
    };
    let branch: Vec<i64> = all.iter().map(|(i, _)| *i as i64).collect();
    g.var(
        "branch",
        &["bifurcation"],
        branch.as_slice(),
        "1",
        "the branch it lies on (branch_K)",
    )?;
    let kind: Vec<u8> = all.iter().map(|(_, x)| x.kind as u8).collect();
    g.var(
        "kind",
        &["bifurcation"],
        kind.as_slice(),
        "1",
        "what happens there",
    )?
    .attr_u8s("flag_values", &[0, 1, 2, 3, 4])?
    .attr_str("flag_meanings", KIND_MEANINGS)?;
    g.var(
        "parameter",
        &["bifurcation"],
        col(&|x| x.parameter).as_slice(),
        units,
        "located parameter value",
    )?;
    g.var(
        "uncertainty",
        &["bifurcation"],
        col(&|x| x.uncertainty).as_slice(),
        units,
        "half the width of the final bracket in the parameter",
    )?;
    g.var(
        "multiplier_real",
        &["bifurcation"],
        col(&|x| x.multiplier[0]).as_slice(),
        "1",
        "real part of the critical multiplier",
    )?;
    g.var(
        "multiplier_imag",
        &["bifurcation"],
        col(&|x| x.multiplier[1]).as_slice(),
        "1",
        "imaginary part of the critical multiplier",
    )?;
    g.var(
        "period",
        &["bifurcation"],
        col(&|x| x.orbit.period).as_slice(),
        "s",
        "period of the orbit at the bifurcation",
    )?;
    let stab = |f: &dyn Fn(&crate::analysis::periodic::Bifurcation) -> u8| -> Vec<u8> {
        all.iter().map(|(_, x)| f(x)).collect()
    };
    for (name, v) in [
        ("stability_before", stab(&|x| x.from.code())),
        ("stability_after", stab(&|x| x.to.code())),
    ] {
        g.var(
            name,
            &["bifurcation"],
            v.as_slice(),
            "1",
            "stability of the branch on that side",
        )?
        .attr_u8s("flag_values", &[0, 1, 2, 3, 4])?
        .attr_str("flag_meanings", STABILITY_MEANINGS)?;
    }
    let x0 = Array2::from_shape_fn((c, dim), |(i, j)| all[i].1.orbit.x0[j]);
    g.var(
        "initial_state",
        &["bifurcation", "state_component"],
        &x0,
        "1",
        "start of the orbit at the bifurcation (rad, rad/s)",
    )?;
    Ok(())
}

/// The orbit diagram: the samples over (parameter, start, sample, state) and λ_max over
/// (parameter, start).
fn write_diagram(
    g: &GroupWriter<'_>,
    d: &OrbitDiagram,
    spec: &OrbitsRun,
    units: &str,
) -> Result<(), StoreError> {
    let (p, s, k, dim) = (d.parameters.len(), d.starts, d.samples, d.dim);
    let name = spec
        .parameter
        .as_ref()
        .map_or("parameter", |q| q.name.as_str());
    g.coord("parameter", &d.parameters, units, name)?;
    count_coord(g, "start", s, "start of the sweep")?;
    count_coord(g, "sample", k, "drive period sampled after the transient")?;
    state_coord(g, dim / 2)?;
    if let Some(o) = &spec.diagram {
        g.attr_i64("transient_periods", o.transient as i64)?;
        g.attr_i64("steps_per_period", o.steps_per_period as i64)?;
        let starts = Array2::from_shape_fn((s, dim), |(i, j)| o.starts[i][j]);
        g.var(
            "starts",
            &["start", "state_component"],
            &starts,
            "1",
            "state each sweep starts from (rad, rad/s)",
        )?;
    }
    let samples =
        Array4::from_shape_vec((p, s, k, dim), d.points.clone()).map_err(|e| StoreError::Dims {
            var: "samples".into(),
            what: e.to_string(),
        })?;
    g.var(
        "samples",
        &["parameter", "start", "sample", "state_component"],
        &samples,
        "1",
        "stroboscopic samples, once per drive period at drive phase 0 (angles in (-pi, pi], rad/s)",
    )?;
    let lyap =
        Array2::from_shape_vec((p, s), d.lyapunov.clone()).map_err(|e| StoreError::Dims {
            var: "lyapunov".into(),
            what: e.to_string(),
        })?;
    g.var(
        "lyapunov",
        &["parameter", "start"],
        &lyap,
        "s-1",
        "largest Lyapunov exponent over the sampled periods",
    )?;
    Ok(())
}
