//! The default titles of runs whose spec gives none: the kind, the chain in words, and what
//! the run starts from and is forced by.

/// The title of a planar run whose spec gives none: `{kind}: {chain}` ([`chain_words`]) and
/// [`describe_run`]'s state and forcing. A map whose title is this default takes its kind's
/// title instead.
pub fn default_title(
    kind: &str,
    model_name: &str,
    chain: &crate::model::Chain,
    x0: Option<&[f64]>,
) -> String {
    format!(
        "{kind}: {}{}",
        chain_words(model_name, chain.links()),
        describe_model(model_name, chain.params(), x0, None)
    )
}

/// The title of a run over a range of the parameter `name` (its label `long_name` and
/// `units`) from `from` to `to`: [`default_title`] with the range in place of the start value
/// (`orbits: Taylor's driven pendulum, β = 2.356 1/s, …; γ from 1.06 to 1.09`).
pub fn swept_title(
    kind: &str,
    model_name: &str,
    chain: &crate::model::Chain,
    (name, long_name, units): (&str, &str, &str),
    [from, to]: [f64; 2],
) -> String {
    let symbol = long_name.rsplit(' ').next().unwrap_or(long_name);
    format!(
        "{kind}: {}{}; {}",
        chain_words(model_name, chain.links()),
        describe_model(model_name, chain.params(), None, Some(name)),
        range_words(symbol, units, [from, to])
    )
}

/// `{what} from {lo} to {hi} {units}`, as a title writes a swept range.
pub(super) fn range_words(what: &str, units: &str, [from, to]: [f64; 2]) -> String {
    let units = crate::model::display_units(units);
    let units = if units.is_empty() {
        units
    } else {
        format!(" {units}")
    };
    format!(
        "{what} from {} to {}{units}",
        short(from.min(to)),
        short(from.max(to))
    )
}

/// [`describe_run`], in a textbook preset's own parameters where the model is one, leaving
/// out the parameter named `varied` (a swept one's start value is not the run's).
fn describe_model(
    model_name: &str,
    p: &crate::model::ChainParams,
    x0: Option<&[f64]>,
    varied: Option<&str>,
) -> String {
    let textbook = crate::model::textbook::textbook_values(model_name, p);
    if textbook.is_empty() {
        return describe(p, x0, varied);
    }
    let mut out = describe(
        &crate::model::ChainParams {
            damping: Default::default(),
            drive: Default::default(),
            ..p.clone()
        },
        x0,
        None,
    );
    for (t, v) in textbook {
        if Some(t.name) != varied {
            let u = crate::model::display_units(t.units);
            let u = if u.is_empty() { u } else { format!(" {u}") };
            out.push_str(&format!(", {} = {}{u}", t.symbol(), short(v)));
        }
    }
    out
}

/// A planar chain as a title names it: `double pendulum`, `5-link chain`, `3-rod chain`,
/// `custom chain` (from the preset name the model was built from).
pub fn chain_words(model_name: &str, links: usize) -> String {
    match model_name {
        "simple" | "double" | "triple" => format!("{model_name} pendulum"),
        "taylor" => "Taylor's driven pendulum".into(),
        "baker-gollub" => "Baker and Gollub's driven pendulum".into(),
        "kapitza" => "Kapitza's pendulum".into(),
        "chain" => format!("{links}-link chain"),
        "rods" => format!("{links}-rod chain"),
        other => format!("{other} chain"),
    }
}

/// What a default title adds to `{kind}: {chain}` ([`chain_words`]): the initial state `x0 = (θ, θ̇)` where
/// the run starts from one (the first four links, then `…`), then the damping and drive, so
/// that figures made from flags say what was run.
pub fn describe_run(p: &crate::model::ChainParams, x0: Option<&[f64]>) -> String {
    describe(p, x0, None)
}

/// A number as a title writes it: four decimals at most, or three significant digits in
/// exponent form far from 1.
fn short(v: f64) -> String {
    if v == 0.0 || (1e-3..1e6).contains(&v.abs()) {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    } else {
        format!("{v:.3e}")
    }
}

/// [`describe_run`] leaving out the drive field named `varied` (`model.drive.torque.amplitude`).
fn describe(p: &crate::model::ChainParams, x0: Option<&[f64]>, varied: Option<&str>) -> String {
    let skip = |f: &str| varied == Some(f);
    let list = |v: &[f64]| {
        let mut parts: Vec<String> = v.iter().take(4).map(|x| short(*x)).collect();
        if v.len() > 4 {
            parts.push("…".into());
        }
        format!("({})", parts.join(", "))
    };
    let mut out = String::new();
    if let Some(x) = x0 {
        let n = x.len() / 2;
        out.push_str(&format!(" from θ = {} rad", list(&x[..n])));
        if x[n..].iter().any(|w| *w != 0.0) {
            out.push_str(&format!(", θ̇ = {} rad/s", list(&x[n..])));
        }
    }
    if !p.damping.is_zero() {
        out.push_str(", damped");
    }
    if let Some(t) = &p.drive.torque {
        out.push_str(", torque");
        if !skip("model.drive.torque.amplitude") {
            out.push_str(&format!(" {} N·m", short(t.amplitude)));
        }
        if !skip("model.drive.torque.frequency") {
            out.push_str(&format!(" at Ω = {} rad/s", short(t.frequency)));
        }
    }
    if let Some(m) = &p.drive.pivot {
        let amp = m.x_amplitude.hypot(m.y_amplitude);
        out.push_str(", pivot driven");
        if !skip("model.drive.pivot.x_amplitude") && !skip("model.drive.pivot.y_amplitude") {
            out.push_str(&format!(" {} m", short(amp)));
        }
        if !skip("model.drive.pivot.frequency") {
            out.push_str(&format!(" at Ω = {} rad/s", short(m.frequency)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Chain, ChainParams, Harmonic, Link};

    #[test]
    fn a_swept_title_names_the_range_not_the_start_value() {
        let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
        p.damping.absolute = vec![0.5];
        p.drive.torque = Some(Harmonic {
            amplitude: 1.05,
            frequency: 2.0 / 3.0,
            phase: 0.0,
        });
        let c = Chain::new(p).expect("a chain");
        let t = swept_title(
            "orbits",
            "simple",
            &c,
            ("model.drive.torque.amplitude", "torque amplitude A", "N m"),
            [1.1, 1.0],
        );
        assert_eq!(
            t,
            "orbits: simple pendulum, damped, torque at Ω = 0.6667 rad/s; A from 1 to 1.1 N·m"
        );
        assert!(default_title("orbits", "simple", &c, None).contains("torque 1.05 N·m"));
    }

    #[test]
    fn a_textbook_preset_is_described_in_its_own_parameters() {
        let k = crate::model::textbook::Kapitza {
            a: 0.05,
            omega: 200.0,
            l: 1.0,
            g: 9.81,
        };
        let c = Chain::new(k.chain_params()).expect("a chain");
        assert_eq!(
            default_title("orbits", "kapitza", &c, None),
            "orbits: Kapitza's pendulum, a = 0.05 m, Ω = 200 rad/s, l = 1 m, g = 9.81 m/s²"
        );
        assert_eq!(
            swept_title("orbits", "kapitza", &c, ("model.kapitza.a", "Kapitza's pivot amplitude a", "m"), [0.02, 0.6]),
            "orbits: Kapitza's pendulum, Ω = 200 rad/s, l = 1 m, g = 9.81 m/s²; a from 0.02 to 0.6 m"
        );
    }
}
