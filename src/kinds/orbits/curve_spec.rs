//! Validating `action = "curve"`: the second parameter p₂ and its range, which located
//! bifurcations to continue, the curves' steps and directions, the branch file and the chart's
//! shading grid ([`CurveRun`]). p₁ (`parameter`, `range`) is validated as for `continue`: its
//! branch is continued both ways first, to locate the bifurcations.

use super::fields::{renamed, word};
use super::table::{OrbitParameter, OrbitsAction, OrbitsSpec, Varied};
use super::varied::parameter;
use crate::analysis::periodic::{BifurcationKind, CurveOptions, PeriodicError, ShootingOptions};
use crate::kinds::kind::SpecParts;
use crate::model::Chain;
use crate::spec::{refuse_given, SpecError};

/// Which way along p₂ the curves go from their start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveDirection {
    Up,
    Down,
    /// Both halves, joined into one curve ordered by arclength (the default).
    Both,
}

/// Which located bifurcations of the branch become curves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Every located bifurcation (a kind the core cannot continue is listed as not continued).
    All,
    /// Every one of this kind.
    Kind(BifurcationKind),
    /// The N-th (from 1, along the branch) of this kind.
    Nth(BifurcationKind, usize),
}

/// The bifurcation kinds by their spec names.
const KINDS: [BifurcationKind; 5] = [
    BifurcationKind::Fold,
    BifurcationKind::BranchPoint,
    BifurcationKind::PeriodDoubling,
    BifurcationKind::NeimarkSacker,
    BifurcationKind::KreinCollision,
];

impl Selection {
    /// Whether the `index`-th (from 1) located bifurcation of kind `kind` is selected.
    pub fn selects(self, kind: BifurcationKind, index: usize) -> bool {
        match self {
            Selection::All => true,
            Selection::Kind(k) => k == kind,
            Selection::Nth(k, n) => k == kind && n == index,
        }
    }

    /// As the spec writes it.
    pub fn name(self) -> String {
        match self {
            Selection::All => "all".into(),
            Selection::Kind(k) => k.name().into(),
            Selection::Nth(k, n) => format!("{}:{n}", k.name()),
        }
    }
}

/// The validated curve settings of an orbits run.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveRun {
    /// p₂.
    pub parameter2: OrbitParameter,
    /// p₂'s value in the spec: where every curve starts.
    pub start2: f64,
    /// The parameter box (`range` × `range2`), points per half and steps; `increasing` is set
    /// per half.
    pub options: CurveOptions,
    pub direction: CurveDirection,
    pub selection: Selection,
    /// The orbits `continue` file the bifurcations are read from (instead of a branch).
    pub branch_file: Option<String>,
    /// Shading nodes per axis of the stability chart (0: none).
    pub chart_grid: usize,
}

/// The `curve` fields given to another action are refused, naming the field.
pub(super) fn refuse_curve_fields(s: &OrbitsSpec, action: OrbitsAction) -> Result<(), SpecError> {
    if action == OrbitsAction::Curve {
        return refuse_given(
            "orbits",
            &[
                ("doublings", s.doublings.is_some()),
                ("follow", s.follow.is_some()),
                ("starts", s.starts.is_some()),
                ("sampled_periods", s.sampled_periods.is_some()),
                ("steps_per_period", s.steps_per_period.is_some()),
            ],
            "does not apply to action = \"curve\"",
        );
    }
    refuse_given(
        "orbits",
        &[
            ("parameter2", s.parameter2.is_some()),
            ("range2", s.range2.is_some()),
            ("bifurcation", s.bifurcation.is_some()),
            ("branch_file", s.branch_file.is_some()),
            ("chart_grid", s.chart_grid.is_some()),
        ],
        "applies to action = \"curve\"",
    )
}

/// The curve settings of `s` (p₁ already checked: `p1`, its box `range1`).
pub(super) fn curve_run(
    s: &OrbitsSpec,
    chain: &Chain,
    driven: bool,
    file: &dyn SpecParts,
    p1: &OrbitParameter,
    range1: [f64; 2],
    shooting: &ShootingOptions,
) -> Result<CurveRun, SpecError> {
    if !driven {
        return Err(SpecError::new(
            "model.drive",
            "a bifurcation curve continues a driven orbit in two parameters: add a drive",
        ));
    }
    if shooting.segments != 1 {
        return Err(SpecError::new(
            "orbits.segments",
            "a bifurcation curve shoots with one segment",
        ));
    }
    let field = "orbits.parameter2";
    let name = s.parameter2.as_deref().ok_or_else(|| {
        SpecError::new(
            field,
            "missing: the second spec field the curves vary (any that parameter accepts but orbits.energy)",
        )
    })?;
    if name == "orbits.energy" {
        return Err(SpecError::new(
            field,
            "a curve varies two model fields of a driven chain, not the energy",
        ));
    }
    let parameter2 =
        parameter(name, chain, driven, file).map_err(|e| SpecError::new(field, "").then(&e))?;
    if parameter2.varied == p1.varied {
        return Err(SpecError::new(
            field,
            format!(
                "must differ from parameter ({}): a curve needs two parameters",
                p1.name
            ),
        ));
    }
    let range2 = match s.range2.as_deref() {
        None => {
            return Err(SpecError::new(
                "orbits.range2",
                format!("missing: {name}'s [min, max]"),
            ))
        }
        Some([a, b]) if a.is_finite() && b.is_finite() && a < b => [*a, *b],
        Some(r) => {
            return Err(SpecError::new(
                "orbits.range2",
                format!("must be [min, max], two finite values with min < max (got {r:?})"),
            ))
        }
    };
    let Varied::Model(m2) = parameter2.varied else {
        unreachable!("the energy is refused above")
    };
    let start2 = m2.get(chain).expect("checked by parameter()");
    if !(range2[0]..=range2[1]).contains(&start2) {
        return Err(SpecError::new(
            "orbits.range2",
            format!(
                "the start value {name} = {start2} lies outside [{}, {}]",
                range2[0], range2[1]
            ),
        ));
    }
    let direction = match word(
        "orbits.direction",
        s.direction.as_deref(),
        &["both", "up", "down"],
    )? {
        "up" => CurveDirection::Up,
        "down" => CurveDirection::Down,
        _ => CurveDirection::Both,
    };
    let d = CurveOptions::default();
    let options = CurveOptions {
        min: [range1[0].min(range1[1]), range2[0]],
        max: [range1[0].max(range1[1]), range2[1]],
        points: s.points.unwrap_or(d.points),
        step: s.step.unwrap_or(d.step),
        min_step: s.min_step.unwrap_or(d.min_step),
        max_step: s.max_step.unwrap_or(d.max_step),
        increasing: true,
    };
    options.check().map_err(|e| curve_field(&e))?;
    let chart_grid = s.chart_grid.unwrap_or(40);
    if chart_grid > 1000 {
        return Err(SpecError::new(
            "orbits.chart_grid",
            format!("must be 0 ..= 1000 nodes per axis (got {chart_grid})"),
        ));
    }
    let branch_file = match s.branch_file.as_deref() {
        Some("") => {
            return Err(SpecError::new(
                "orbits.branch_file",
                "must name an orbits continue file (HDF5)",
            ))
        }
        f => f.map(str::to_string),
    };
    Ok(CurveRun {
        parameter2,
        start2,
        options,
        direction,
        selection: selection(s.bifurcation.as_deref())?,
        branch_file,
        chart_grid,
    })
}

/// `orbits.bifurcation`: all | KIND | KIND:N.
fn selection(v: Option<&str>) -> Result<Selection, SpecError> {
    let field = "orbits.bifurcation";
    let v = v.unwrap_or("all");
    if v == "all" {
        return Ok(Selection::All);
    }
    let (kind, n) = match v.split_once(':') {
        Some((k, n)) => (k, Some(n)),
        None => (v, None),
    };
    let names: Vec<&str> = KINDS.iter().map(|k| k.name()).collect();
    let Some(&kind) = KINDS.iter().find(|k| k.name() == kind) else {
        return Err(SpecError::new(
            field,
            format!(
                "unknown `{v}` (expected all, {}, or KIND:N)",
                names[..4].join(", ")
            ),
        ));
    };
    match n {
        None => Ok(Selection::Kind(kind)),
        Some(n) => match n.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Selection::Nth(kind, n)),
            _ => Err(SpecError::new(
                field,
                format!("`{v}`: N must be a count from 1 along the branch"),
            )),
        },
    }
}

/// The curve options' field names as the spec writes them.
fn curve_field(e: &PeriodicError) -> SpecError {
    renamed(
        e,
        &[
            ("range", "orbits.range"),
            ("range2", "orbits.range2"),
            ("points", "orbits.points"),
            ("step", "orbits.step"),
            ("min_step", "orbits.min_step"),
            ("max_step", "orbits.max_step"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_reads_every_form() {
        assert_eq!(selection(None).unwrap(), Selection::All);
        assert_eq!(
            selection(Some("period-doubling")).unwrap(),
            Selection::Kind(BifurcationKind::PeriodDoubling)
        );
        let s = selection(Some("fold:2")).unwrap();
        assert_eq!(s, Selection::Nth(BifurcationKind::Fold, 2));
        assert!(s.selects(BifurcationKind::Fold, 2));
        assert!(!s.selects(BifurcationKind::Fold, 1));
        assert_eq!(s.name(), "fold:2");
        for bad in ["flip", "fold:0", "fold:x"] {
            let e = selection(Some(bad)).unwrap_err().to_string();
            assert!(e.starts_with("orbits.bifurcation: "), "{e}");
        }
    }
}
