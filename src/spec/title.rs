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
        describe_run(chain.params(), x0)
    )
}

/// A planar chain as a title names it: `double pendulum`, `5-link chain`, `3-rod chain`,
/// `custom chain` (from the preset name the model was built from).
pub fn chain_words(model_name: &str, links: usize) -> String {
    match model_name {
        "simple" | "double" | "triple" => format!("{model_name} pendulum"),
        "chain" => format!("{links}-link chain"),
        "rods" => format!("{links}-rod chain"),
        other => format!("{other} chain"),
    }
}

/// What a default title adds to `{kind}: {chain}` ([`chain_words`]): the initial state `x0 = (θ, θ̇)` where
/// the run starts from one (the first four links, then `…`), then the damping and drive, so
/// that figures made from flags say what was run.
pub fn describe_run(p: &crate::model::ChainParams, x0: Option<&[f64]>) -> String {
    let short = |v: f64| {
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
    };
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
        out.push_str(&format!(
            ", torque {} N·m at Ω = {} rad/s",
            short(t.amplitude),
            short(t.frequency)
        ));
    }
    if let Some(m) = &p.drive.pivot {
        let amp = m.x_amplitude.hypot(m.y_amplitude);
        out.push_str(&format!(
            ", pivot driven {} m at Ω = {} rad/s",
            short(amp),
            short(m.frequency)
        ));
    }
    out
}
