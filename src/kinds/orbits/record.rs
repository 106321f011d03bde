//! Group `orbits`: a periodic orbit (subgroup `orbit`), its branches (`branch_1`, `branch_2`, …:
//! one row per point) with the located bifurcations (`bifurcations`), or an orbit diagram
//! (`diagram`). Every variable has CF `units` and `long_name`, over named dimensions.

use super::table::{OrbitClosure, OrbitsRun};
use super::PeriodicOrbits;
use crate::analysis::periodic::{
    Branch, Criticality, ErrorParts, Floquet, OrbitDiagram, OrbitError, PeriodicOrbit, ERROR_METHOD,
};
use crate::finding::{Attr, Record, RunPart};
use ndarray::{Array2, Array4};

/// The stability codes of `stability` variables, as CF flag meanings.
const STABILITY_MEANINGS: &str = "stable unstable elliptic hyperbolic complex_unstable";
/// The bifurcation kinds of `kind`, as CF flag meanings.
const KIND_MEANINGS: &str = "fold branch_point period_doubling neimark_sacker krein_collision";

/// The group `orbits`.
pub fn orbits(found: &PeriodicOrbits) -> Record {
    let (spec, result) = (&found.run, &found.result);
    let mut g = Record::new("orbits");
    let n = found.chain.links();
    g.run_part(RunPart::Names)
        .attr("action", result.action.name())
        .attr("complete", result.complete)
        .attr(
            "closure",
            match spec.closure {
                OrbitClosure::Driven { .. } => "driven",
                OrbitClosure::Energy(_) => "energy",
                OrbitClosure::Period(_) => "period",
            },
        );
    if let OrbitClosure::Driven { k } = spec.closure {
        g.attr("drive_periods", k as i64);
    }
    if let Some(t) = result.drive_period {
        g.attr("drive_period", t);
    }
    if let Some(p) = &spec.parameter {
        g.attr("parameter", p.name.as_str())
            .attr("parameter_long_name", p.long_name.as_str())
            .attr("parameter_units", p.units.as_str());
    }
    if let Some(d) = result.return_distance {
        g.attr("seed_return_distance", d);
    }
    if let Some(m) = &result.map_pixel {
        // start = "map": which pixel of the map seeded the search, and its own start.
        if let Some(seed) = &spec.map_seed {
            g.attr("seed_map_file", seed.file.as_str())
                .attr("seed_attractor", seed.attractor.as_str());
        }
        g.attr("seed_map_row", m.row as i64)
            .attr("seed_map_col", m.col as i64)
            .attr("seed_map_settle_time", m.settle_time)
            .attr("seed_map_start", Attr::F64s(m.start.clone()));
    }
    if let Some(p) = result.start_parameter {
        g.attr("start_parameter", p);
    }
    let s = &spec.shooting;
    g.attr("segments", s.segments as i64)
        .attr("newton_tolerance", s.tolerance)
        .run_part(RunPart::Method);
    link_coord(&mut g, n);
    g.run_part(RunPart::Model);
    // The seed: [initial], the settled state or the mode seed (not the spec's start, which
    // RunPart::InitialState writes).
    g.coord(
        "state_component",
        (1..=result.seed.len() as i64).collect::<Vec<_>>(),
        "1",
        "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
    )
    .var(
        "initial_state",
        &["state_component"],
        result.seed.as_slice(),
        "1",
        "initial state in the model's coordinates (rad and rad/s for a planar chain)",
    );
    g.attr("error_method", ERROR_METHOD);
    if !result.notes.is_empty() {
        g.attr("notes", result.notes.join("\n"));
    }
    if let Some(o) = &result.orbit {
        let mut og = Record::new("orbit");
        write_orbit(&mut og, o, n, result.orbit_error.as_ref());
        g.group(og);
    }
    let units = spec.parameter.as_ref().map_or("1", |p| p.units.as_str());
    for (i, (label, b)) in result.branches.iter().enumerate() {
        let mut bg = Record::new(format!("branch_{}", i + 1));
        write_branch(&mut bg, label, b, n, units);
        g.group(bg);
    }
    if !result.branches.is_empty() {
        let mut bg = Record::new("bifurcations");
        write_bifurcations(&mut bg, &result.branches, n, units);
        g.group(bg);
    }
    if let Some(c) = &result.curves {
        super::curve_record::write_curves(&mut g, spec, c);
    }
    if let Some(d) = &result.diagram {
        let mut dg = Record::new("diagram");
        write_diagram(&mut dg, d, spec, units);
        g.group(dg);
    }
    g
}

/// The coordinate `link` (1..=n), as every planar run's group has it.
fn link_coord(g: &mut Record, n: usize) {
    g.index("link", n, "link index, counted from the pivot");
}

/// Coordinate `name` counting 1..=`n` (units `1`): the one home of the index coordinates
/// below.
fn count_coord(g: &mut Record, name: &'static str, n: usize, long_name: &'static str) {
    g.index(name, n, long_name);
}

fn state_coord(g: &mut Record, n: usize) {
    count_coord(
        g,
        "state_component",
        2 * n,
        "component of the state: theta_1..theta_N (rad), then omega_1..omega_N (rad/s)",
    )
}

fn multiplier_coord(g: &mut Record, m: usize) {
    count_coord(
        g,
        "multiplier",
        m,
        "non-trivial Floquet multiplier, by modulus, largest first",
    )
}

/// One orbit: its start, period, multipliers, checks, monodromy, shape and Newton history.
fn write_orbit(g: &mut Record, o: &PeriodicOrbit, n: usize, error: Option<&OrbitError>) {
    let dim = 2 * n;
    state_coord(g, n);
    link_coord(g, n);
    orbit_attrs(g, o);
    trivial_multipliers(g, &o.floquet);
    g.var(
        "x0",
        &["state_component"],
        o.x0.as_slice(),
        "1",
        "start of the orbit (rad, rad/s; a driven orbit at drive phase 0)",
    );
    g.var(
        "turns",
        &["link"],
        o.turns.as_slice(),
        "1",
        "net turns of each angle per period",
    );
    multipliers(g, &o.floquet, error.is_some());
    if let Some(e) = error {
        write_orbit_error(g, e);
    }
    monodromy(g, o, dim);
    orbit_shape(g, o, dim);
    newton_history(g, o)
}

/// A found orbit's error bars: the period's as attributes beside `period` (it is one), each
/// multiplier's as variables over `multiplier` (|δμ|, bounding both parts), each with its
/// components ([`ERROR_METHOD`]).
fn write_orbit_error(g: &mut Record, e: &OrbitError) {
    for (suffix, v) in parts(&e.period) {
        g.attr(format!("period_error{suffix}"), v);
    }
    g.attr("period_ladder", Attr::F64s(e.period_ladder.to_vec()));
    g.attr("ladder_rtol", Attr::F64s(e.rtol.to_vec()));
    for (suffix, what) in PART_NAMES {
        let v: Vec<f64> = e
            .multipliers
            .iter()
            .map(|m| {
                parts(m)
                    .into_iter()
                    .find(|p| p.0 == suffix)
                    .map_or(f64::NAN, |p| p.1)
            })
            .collect();
        g.var(
            format!("multiplier_error{suffix}"),
            &["multiplier"],
            v.as_slice(),
            "1",
            format!("{what} of the Floquet multiplier, |delta mu| in the complex plane (NaN: not estimated)"),
        );
    }
}

/// The components of an error as (name suffix, value): the combined error first.
fn parts(e: &ErrorParts) -> [(&'static str, f64); 4] {
    [
        ("", e.combined),
        ("_location", e.location),
        ("_newton", e.newton),
        ("_integrator", e.integrator),
    ]
}

/// What each suffix of [`parts`] holds, for long names.
const PART_NAMES: [(&str, &str); 4] = [
    (
        "",
        "error (location + newton + integrator, see error_method)",
    ),
    ("_location", "bisection half-width part of the error"),
    ("_newton", "Newton residual's part of the error"),
    (
        "_integrator",
        "integrator's part of the error (tolerance ladder)",
    ),
];

/// The orbit's numbers and the verification of its closure and multipliers, as attributes.
fn orbit_attrs(g: &mut Record, o: &PeriodicOrbit) {
    let f = &o.floquet;
    g.attr("period", o.period);
    g.attr("energy", o.energy);
    g.attr("stability", f.stability.name());
    g.attr("determinant", f.determinant);
    g.attr("liouville", f.liouville);
    g.attr("liouville_error", f.liouville_error);
    g.attr("reciprocal_error", f.reciprocal_error.unwrap_or(f64::NAN));
    // max |mu| of the non-trivial multipliers; NaN: the orbit has none (a one-link
    // autonomous orbit's two multipliers are both trivial).
    g.attr("largest_modulus", f.largest_modulus);
    g.attr("evaluations", o.evaluations as i64);
    // The verification (see the variables' long names).
    g.attr("closure_residual", o.closure_residual);
    g.attr("closure_tolerance", o.closure_tolerance);
    g.attr("trivial_tolerance", o.trivial_tolerance);
}

/// The trivial multipliers of an autonomous orbit (none for a driven one) over `trivial`.
fn trivial_multipliers(g: &mut Record, f: &Floquet) {
    let t = f.trivial.len();
    count_coord(
        g,
        "trivial",
        t,
        "trivial Floquet multiplier of an autonomous orbit: 1 along the flow, 2 across the energy shells (none for a driven orbit)",
    );
    g.var(
        "trivial_multiplier_real",
        &["trivial"],
        f.trivial.iter().map(|m| m.re).collect::<Vec<_>>().as_slice(),
        "1",
        "real part of the trivial Floquet multiplier (exactly +1 for a true orbit; verified within attribute trivial_tolerance)",
    );
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
    );
}

/// The non-trivial multipliers over `multiplier`, with their Floquet exponents (`with_error`:
/// their error `multiplier_error` beside them).
fn multipliers(g: &mut Record, f: &Floquet, with_error: bool) {
    let m = f.multipliers.len();
    multiplier_coord(g, m);
    let col = |h: fn(&crate::analysis::periodic::Multiplier) -> f64| {
        f.multipliers.iter().map(h).collect::<Vec<f64>>()
    };
    for (name, part, long_name) in [
        (
            "multiplier_real",
            col(|x| x.re),
            "real part of the Floquet multiplier",
        ),
        (
            "multiplier_imag",
            col(|x| x.im),
            "imaginary part of the Floquet multiplier",
        ),
    ] {
        g.var(name, &["multiplier"], part.as_slice(), "1", long_name);
        if with_error {
            g.var_attr("ancillary_variables", "multiplier_error");
        }
    }
    g.var(
        "floquet_exponent",
        &["multiplier"],
        col(|x| x.exponent).as_slice(),
        "s-1",
        "Floquet exponent ln|mu| / T",
    );
}

/// The monodromy matrix over (state_component, state_component_k).
fn monodromy(g: &mut Record, o: &PeriodicOrbit, dim: usize) {
    count_coord(
        g,
        "state_component_k",
        dim,
        "component of the state (second matrix axis)",
    );
    let mono = Array2::from_shape_fn((dim, dim), |(i, j)| o.monodromy[(i, j)]);
    g.var(
        "monodromy",
        &["state_component", "state_component_k"],
        mono,
        "1",
        "monodromy matrix d x(T) / d x(0) (mixed units: s and s-1 between angle and rate rows)",
    );
}

/// The state along one period over (time, state_component).
fn orbit_shape(g: &mut Record, o: &PeriodicOrbit, dim: usize) {
    let samples = o.shape.len() / dim;
    let times: Vec<f64> = (0..samples)
        .map(|i| o.period * i as f64 / (samples - 1).max(1) as f64)
        .collect();
    g.coord("time", times, "s", "time along the orbit from its start");
    let shape = Array2::from_shape_vec((samples, dim), o.shape.clone())
        .expect("an orbit's shape fills (time, state_component)");
    g.var(
        "shape",
        &["time", "state_component"],
        shape,
        "1",
        "state along one period (rad, rad/s; angles unwrapped)",
    );
}

/// The shooting's residual at each Newton iterate.
fn newton_history(g: &mut Record, o: &PeriodicOrbit) {
    g.coord(
        "iteration",
        (0..o.residuals.len() as i64).collect::<Vec<_>>(),
        "1",
        "Newton iteration",
    );
    g.var(
        "newton_residual",
        &["iteration"],
        o.residuals.as_slice(),
        "1",
        "max-norm residual of the shooting equations at each Newton iterate",
    );
}

/// A branch: one row per point.
fn write_branch(g: &mut Record, label: &str, b: &Branch, n: usize, units: &str) {
    let p = b.points.len();
    g.attr("label", label);
    g.attr("ended", b.ended.to_string());
    count_coord(
        g,
        "point",
        p,
        "point along the branch, in continuation order",
    );
    state_coord(g, n);
    link_coord(g, n);
    let m = b
        .points
        .iter()
        .map(|q| q.orbit.floquet.multipliers.len())
        .max()
        .unwrap_or(0);
    multiplier_coord(g, m);
    write_branch_numbers(g, b, units);
    write_branch_states(g, b, n, m)
}

/// A branch's numbers per point: the parameter, arclength, period, energy, the largest
/// multiplier modulus and the verification of each orbit.
fn write_branch_numbers(g: &mut Record, b: &Branch, units: &str) {
    let per = |f: &dyn Fn(&PeriodicOrbit) -> f64| -> Vec<f64> {
        b.points.iter().map(|q| f(&q.orbit)).collect()
    };
    let params: Vec<f64> = b.points.iter().map(|q| q.parameter).collect();
    g.var(
        "parameter",
        &["point"],
        params.as_slice(),
        units.to_string(),
        "the continued parameter",
    );
    let arc: Vec<f64> = b.points.iter().map(|q| q.arclength).collect();
    g.var(
        "arclength",
        &["point"],
        arc.as_slice(),
        "1",
        "pseudo-arclength from the branch's start",
    );
    g.var(
        "period",
        &["point"],
        per(&|o| o.period).as_slice(),
        "s",
        "period of the orbit",
    );
    g.var(
        "energy",
        &["point"],
        per(&|o| o.energy).as_slice(),
        "J",
        "energy at the orbit's start",
    );
    g.var(
        "largest_modulus",
        &["point"],
        per(&|o| o.floquet.largest_modulus).as_slice(),
        "1",
        "largest |mu| over the non-trivial multipliers (> 1: unstable; NaN: the orbit has no non-trivial multiplier)",
    );
    g.var(
        "closure_residual",
        &["point"],
        per(&|o| o.closure_residual).as_slice(),
        "1",
        "max |x(T) - x0| (angles less whole turns) of one integration over the period from x0, independent of the shooting (rad, rad/s)",
    );
    g.var(
        "closure_tolerance",
        &["point"],
        per(&|o| o.closure_tolerance).as_slice(),
        "1",
        "what closure_residual was verified against",
    );
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
        );
    }
    g.var(
        "trivial_tolerance",
        &["point"],
        per(&|o| o.trivial_tolerance).as_slice(),
        "1",
        "what |mu - 1| of each trivial multiplier was verified against (NaN: driven)",
    );
    g.var(
        "liouville_error",
        &["point"],
        per(&|o| o.floquet.liouville_error).as_slice(),
        "1",
        "relative error of det M against exp(integral of tr J dt)",
    );
}

/// A branch's stability, start states, turns and multipliers per point (`m` multipliers).
fn write_branch_states(g: &mut Record, b: &Branch, n: usize, m: usize) {
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
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4]))
    .var_attr("flag_meanings", STABILITY_MEANINGS);
    let x0 = Array2::from_shape_fn((p, dim), |(i, j)| b.points[i].orbit.x0[j]);
    g.var(
        "initial_state",
        &["point", "state_component"],
        x0,
        "1",
        "start of each orbit (rad, rad/s)",
    );
    let turns = Array2::from_shape_fn((p, n), |(i, j)| b.points[i].orbit.turns[j]);
    g.var(
        "turns",
        &["point", "link"],
        turns,
        "1",
        "net turns of each angle per period",
    );
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
        re,
        "1",
        "real part of the Floquet multiplier",
    );
    g.var(
        "multiplier_imag",
        &["point", "multiplier"],
        im,
        "1",
        "imaginary part of the Floquet multiplier",
    );
}

/// Every located bifurcation of every branch, one row each.
fn write_bifurcations(g: &mut Record, branches: &[(String, Branch)], n: usize, units: &str) {
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
    );
    state_coord(g, n);
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
    );
    let kind: Vec<u8> = all.iter().map(|(_, x)| x.kind as u8).collect();
    g.var(
        "kind",
        &["bifurcation"],
        kind.as_slice(),
        "1",
        "what happens there",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4]))
    .var_attr("flag_meanings", KIND_MEANINGS);
    g.var(
        "parameter",
        &["bifurcation"],
        col(&|x| x.parameter).as_slice(),
        units.to_string(),
        "located parameter value",
    )
    .var_attr("ancillary_variables", "parameter_error");
    g.var(
        "uncertainty",
        &["bifurcation"],
        col(&|x| x.uncertainty).as_slice(),
        units.to_string(),
        "half the width of the final bracket in the parameter (the bisection's part of parameter_error only)",
    );
    g.attr("error_method", ERROR_METHOD);
    for (suffix, what) in PART_NAMES {
        let v = col(&|x| {
            parts(&x.error)
                .into_iter()
                .find(|p| p.0 == suffix)
                .map_or(f64::NAN, |p| p.1)
        });
        g.var(
            format!("parameter_error{suffix}"),
            &["bifurcation"],
            v.as_slice(),
            units.to_string(),
            format!("{what} of the located parameter (NaN: not estimated)"),
        );
    }
    count_coord(
        g,
        "rung",
        3,
        "rung of the tolerance ladder: the run's tolerance, then tighter",
    );
    let ladder = Array2::from_shape_fn((c, 3), |(i, k)| all[i].1.ladder[k]);
    g.var(
        "parameter_ladder",
        &["bifurcation", "rung"],
        ladder,
        units.to_string(),
        "the parameter re-located at each rung of the tolerance ladder (NaN: not estimated)",
    );
    let rtol = Array2::from_shape_fn((c, 3), |(i, k)| all[i].1.ladder_rtol[k]);
    g.var(
        "ladder_rtol",
        &["bifurcation", "rung"],
        rtol,
        "1",
        "DOP853 rtol of each rung (atol scaled alike)",
    );
    g.var(
        "multiplier_real",
        &["bifurcation"],
        col(&|x| x.multiplier[0]).as_slice(),
        "1",
        "real part of the critical multiplier",
    );
    g.var(
        "multiplier_imag",
        &["bifurcation"],
        col(&|x| x.multiplier[1]).as_slice(),
        "1",
        "imaginary part of the critical multiplier",
    );
    g.var(
        "period",
        &["bifurcation"],
        col(&|x| x.orbit.period).as_slice(),
        "s",
        "period of the orbit at the bifurcation",
    );
    // The normal form (analysis::periodic::normal_form); NaN where there is none.
    let nf = |f: &dyn Fn(&crate::analysis::periodic::NormalForm) -> f64| {
        col(&|x| x.normal_form.as_ref().map_or(f64::NAN, f))
    };
    for (name, v, what) in [
        ("normal_form", nf(&|n| n.coefficient), "normal-form coefficient: the fold's a, the period doubling's c, the Neimark-Sacker point's d (unit critical eigenvector; NaN: none)"),
        ("normal_form_error", nf(&|n| n.error), "error bar of normal_form: its change from finite-difference step h to 2h"),
        ("normal_form_side", nf(&|n| n.side), "side of the parameter on which the new orbits lie (+1 above, -1 below, 0 undetermined)"),
        ("normal_form_amplitude", nf(&|n| n.amplitude), "K in |x - x*| = K sqrt|p - p*| of the new orbits"),
    ] {
        g.var(name, &["bifurcation"], v.as_slice(), "1", what);
    }
    let crit: Vec<u8> = all
        .iter()
        .map(
            |(_, x)| match x.normal_form.as_ref().and_then(|n| n.criticality) {
                None => 0,
                Some(Criticality::Supercritical) => 1,
                Some(Criticality::Subcritical) => 2,
            },
        )
        .collect();
    g.var(
        "criticality",
        &["bifurcation"],
        crit.as_slice(),
        "1",
        "by the normal-form coefficient's sign (period doubling, Neimark-Sacker)",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2]))
    .var_attr("flag_meanings", "none supercritical subcritical");
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
        )
        .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4]))
        .var_attr("flag_meanings", STABILITY_MEANINGS);
    }
    let x0 = Array2::from_shape_fn((c, dim), |(i, j)| all[i].1.orbit.x0[j]);
    g.var(
        "initial_state",
        &["bifurcation", "state_component"],
        x0,
        "1",
        "start of the orbit at the bifurcation (rad, rad/s)",
    );
}

/// The orbit diagram: the samples over (parameter, start, sample, state) and λ_max over
/// (parameter, start).
fn write_diagram(g: &mut Record, d: &OrbitDiagram, spec: &OrbitsRun, units: &str) {
    let (p, s, k, dim) = (d.parameters.len(), d.starts, d.samples, d.dim);
    let name = spec
        .parameter
        .as_ref()
        .map_or("parameter", |q| q.long_name.as_str());
    g.coord(
        "parameter",
        d.parameters.as_slice(),
        units.to_string(),
        name.to_string(),
    );
    count_coord(g, "start", s, "start of the sweep");
    count_coord(g, "sample", k, "drive period sampled after the transient");
    state_coord(g, dim / 2);
    if let Some(o) = &spec.diagram {
        g.attr("transient_periods", o.transient as i64);
        g.attr("steps_per_period", o.steps_per_period as i64);
        let starts = Array2::from_shape_fn((s, dim), |(i, j)| o.starts[i][j]);
        g.var(
            "starts",
            &["start", "state_component"],
            starts,
            "1",
            "state each sweep starts from (rad, rad/s)",
        );
    }
    let samples = Array4::from_shape_vec((p, s, k, dim), d.points.clone())
        .expect("the diagram's samples fill (parameter, start, sample, state_component)");
    g.var(
        "samples",
        &["parameter", "start", "sample", "state_component"],
        samples,
        "1",
        "stroboscopic samples, once per drive period at drive phase 0 (angles in (-pi, pi], rad/s)",
    );
    let lyap = Array2::from_shape_vec((p, s), d.lyapunov.clone())
        .expect("the diagram's exponents fill (parameter, start)");
    g.var(
        "lyapunov",
        &["parameter", "start"],
        lyap,
        "s-1",
        "largest Lyapunov exponent over the sampled periods",
    );
}
