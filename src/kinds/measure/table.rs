//! The `[measure]` table of a spec and its validation into the kind's settings
//! ([`MeasureRun`]): a map spec (`[model]`, `[integrator]`, `[map]`) whose map is computed
//! (or reused, when `measure.map_file` already holds it complete) and then measured as
//! `pendula measure` does: boundary box dimension, uncertainty exponent, basin entropy, Wada.
//!
//! `[measure.sweep]` (`parameter` = one spec field, `values`) runs that spec once per value:
//! each point is the same measure spec with the field set, its own map file
//! (`map_file` with `-01`, `-02`, … before `.h5`, so an interrupted sweep resumes at the map
//! it stopped in) and its own measures, tabulated against the parameter. The points are whole
//! spec files, built and validated by the spec ([`SpecParts::measure_points`]).

use crate::analysis::map::MapOptions;
use crate::analysis::measure::{MeasureChoices, MeasureOptions, Stage};
use crate::error::FieldError as SpecError;
use crate::kinds::kind::{planar_chain, Registered, SpecParts, Table, Validation};
use crate::model::Model;
use crate::spec::{default_title, result_format, OutputSpec, Spec, Sweep};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The `[measure]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// boundary-dimension | uncertainty-exponent | basin-entropy | wada | all (default).
    pub what: Option<String>,
    /// flip_step (flip maps' default) | flip_link | class | attractor (final-state maps).
    pub variable: Option<String>,
    /// Flip times T (s): one label grid per T, flipped at or before T (default: t_end).
    pub flip_before: Option<Vec<f64>>,
    /// Where the map is kept (default: output.file with `-map` before `.h5`).
    pub map_file: Option<PathBuf>,
    pub max_eps: Option<usize>,
    pub entropy_eps: Option<Vec<usize>>,
    pub shifts: Option<usize>,
    pub seed: Option<u64>,
    pub wada_radius: Option<usize>,
    pub sweep: Option<SweepSpec>,
}

/// The `[measure.sweep]` table: one spec field and its values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// A field of [`crate::spec::sweep_parameters`], named as in a spec (`model.damping.absolute`).
    pub parameter: Option<String>,
    pub values: Option<Vec<f64>>,
}

impl MeasureSpec {
    /// The measures' options as the table gives them (the library's defaults and checks).
    pub fn choices(&self) -> MeasureChoices {
        MeasureChoices {
            what: self.what.clone(),
            max_eps: self.max_eps,
            entropy_eps: self.entropy_eps.clone(),
            shifts: self.shifts,
            seed: self.seed,
            wada_radius: self.wada_radius,
        }
    }
}

/// A validated measure spec: the map to compute and how to measure it.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureRun {
    pub map: MapOptions,
    pub map_file: PathBuf,
    pub variable: Option<String>,
    pub flip_before: Vec<f64>,
    pub options: MeasureOptions,
    /// Boxed: the points' spec files are large.
    pub sweep: Option<Box<Sweep>>,
}

impl MeasureRun {
    /// The map spec this measure spec computes: `spec` as a map spec whose `[output]` is the
    /// map file, with the map's default title (which the map's writer turns into its kind's)
    /// and the spec's text without its `[measure]` table.
    pub fn map_spec(&self, spec: &Spec) -> Result<Spec, String> {
        let mut table: toml::Table = spec
            .text
            .parse()
            .map_err(|e| format!("the spec cannot be read back as TOML: {e}"))?;
        table.insert("kind".into(), "map".into());
        table.remove("measure");
        table.remove("title");
        let mut out = toml::Table::new();
        out.insert("file".into(), self.map_file.display().to_string().into());
        table.insert("output".into(), out.into());
        Ok(Spec {
            title: match &spec.model {
                Model::Planar(c) => default_title("map", &spec.model_name, c, None),
                Model::Cart(_) => format!("map: {} chain", spec.model_name),
            },
            analysis: Registered(Box::new(self.map.clone())),
            output: OutputSpec {
                file: Some(self.map_file.clone()),
                plot: None,
                ..Default::default()
            },
            text: toml::to_string(&table).unwrap_or_default(),
            ..spec.clone()
        })
    }
}

impl Table for MeasureSpec {
    /// The spec's `[map]` validated as a map run (its integrator and start are the run's),
    /// then the measures, which must fit its grid, and where the map is kept.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        planar_chain(super::KIND.name, model)?;
        let Some((map, x0, method)) = spec.map_run()? else {
            return Err(SpecError::new(
                "map",
                "missing: a measure spec computes the [map] it measures (to measure an existing file run `pendula measure FILE.h5`)",
            ));
        };
        let m = self;
        let short = map.grid.width.min(map.grid.height);
        let o = m
            .choices()
            .options(Some(short))
            .map_err(|e| e.within("measure"))?;
        // Every measure asked for must fit the map's grid, checked now: not after the map (or a
        // sweep's first map) was computed and written.
        o.check_grid(map.grid.width, map.grid.height, None)
            .map_err(|(stage, e)| {
                let field = match stage {
                    Stage::Boundary => "map.resolution",
                    Stage::Uncertainty => "measure.max_eps",
                    Stage::Entropy => "measure.entropy_eps",
                    Stage::Wada => "measure.wada_radius",
                };
                let hint = if stage == Stage::Boundary {
                    " (a finer map, or measure.what without boundary-dimension)"
                } else {
                    ""
                };
                SpecError::new(field, format!("{e}{hint}"))
            })?;
        let variable = m.variable.clone();
        check_variable(&map, variable.as_deref())?;
        let flip_before = m.flip_before.clone().unwrap_or_default();
        check_flip_before(&map, variable.as_deref(), &flip_before)?;
        let output = spec.output_file();
        let map_file = match (&m.map_file, output) {
            (Some(p), _) => p.clone(),
            (None, Some(out)) => {
                let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                out.with_file_name(format!("{stem}-map.h5"))
            }
            (None, None) => {
                return Err(SpecError::new(
                    "measure.map_file",
                    "missing: where the computed map is kept (or give output.file, beside which it is kept)",
                ))
            }
        };
        result_format("measure.map_file", &map_file)?;
        if output == Some(map_file.as_path()) {
            return Err(SpecError::new(
                "measure.map_file",
                "must differ from output.file (the map and its measures are two files)",
            ));
        }
        let sweep = m
            .sweep
            .as_ref()
            .map(|s| {
                let values = s.values.clone().unwrap_or_default();
                spec.measure_points(s.parameter.as_deref(), &values, &map_file)
                    .map(Box::new)
            })
            .transpose()?;
        let run = MeasureRun {
            map,
            map_file,
            variable,
            flip_before,
            options: o,
            sweep,
        };
        Ok((Registered(Box::new(run)), method, x0))
    }
}

/// `measure.variable`: one of the label variables of the map's kind.
fn check_variable(map: &MapOptions, variable: Option<&str>) -> Result<(), SpecError> {
    let allowed = map.kind.id().facts().labels;
    if let Some(v) = variable {
        if !allowed.contains(&v) {
            return Err(SpecError::new(
                "measure.variable",
                format!(
                    "`{v}` is not a label variable of a {} map (expected {})",
                    map.kind.name(),
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `measure.flip_before`: thresholds of a flip-time map's flip variables, each within the
/// map's time and given once.
fn check_flip_before(
    map: &MapOptions,
    variable: Option<&str>,
    flip_before: &[f64],
) -> Result<(), SpecError> {
    let flip = map.kind.id().is_flip();
    if !flip_before.is_empty() && (!flip || variable == Some("class")) {
        return Err(SpecError::new(
            "measure.flip_before",
            "thresholds flip_step or flip_link of a flip-time map",
        ));
    }
    for (i, &t) in flip_before.iter().enumerate() {
        if !(t.is_finite() && t > 0.0 && t <= map.t_max * (1.0 + 1e-12)) {
            return Err(SpecError::new(
                format!("measure.flip_before[{}]", i + 1),
                "must be in (0, ",
            )
            .name("map.t_end")
            .text(format!(" = {} s] (got {t})", map.t_max)));
        }
    }
    if let Some(t) = crate::analysis::measure::labels::repeated(flip_before) {
        let i = flip_before.iter().position(|&x| x == t).unwrap_or(0);
        let j = flip_before[i + 1..]
            .iter()
            .position(|&x| x == t)
            .map_or(i, |j| i + 1 + j);
        return Err(SpecError::new(
            format!("measure.flip_before[{}]", j + 1),
            format!("{t} is given twice"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::spec::parse;

    const SPEC: &str = "kind = \"measure\"\n[model]\npreset = \"double\"\n[integrator]\nmethod = \"rk4\"\ndt = 0.01\n[map]\nresolution = 128\nt_end = 10.0\n[measure]\nflip_before = [5.0]\n[output]\nfile = \"o.h5\"\n";

    #[test]
    fn measure_is_validated_through_the_registry() {
        let file = parse(SPEC, "t").unwrap();
        assert!(file.registered.get("measure").is_some());
        let spec = file.validate().unwrap();
        let r = &spec.analysis;
        assert_eq!(r.kind().name, "measure");
        assert_eq!(r.time_span(), Some((10.0, "map.t_end")));
        let run = super::super::run_of(&**r).expect("a measure run");
        // The map is kept beside output.file; the run's integrator is the map's.
        assert_eq!(run.map_file, std::path::PathBuf::from("o-map.h5"));
        assert_eq!(run.flip_before, [5.0]);
        assert_eq!(spec.method, crate::integrate::Method::Rk4 { dt: 0.01 });
        // Its table echoes where the spec's field stood, after [map].
        assert!(
            spec.text.contains("[map]") && spec.text.contains("[measure]\nflip_before = [5.0]\n"),
            "{}",
            spec.text
        );
        assert!(spec.text.find("[map]") < spec.text.find("[measure]"));
        // Its run is its front end's.
        let Err(e) = crate::run::execute(&spec, &mut crate::observe::Silent) else {
            panic!("measure is not run by the library")
        };
        assert_eq!(e.to_string(), "kind: measure is run by its front end");
        // A sweep's points are whole specs, each with its own map file.
        let swept = SPEC.replace(
            "[output]",
            "[measure.sweep]\nparameter = \"model.gravity\"\nvalues = [9.0, 9.5]\n[output]",
        );
        let spec = parse(&swept, "t").unwrap().validate().unwrap();
        let r = &spec.analysis;
        let sweep = super::super::run_of(&**r).unwrap().sweep.as_ref().unwrap();
        assert_eq!(sweep.points.len(), 2);
        assert_eq!(
            sweep.map_files,
            [
                std::path::PathBuf::from("o-map-01.h5"),
                std::path::PathBuf::from("o-map-02.h5")
            ]
        );
    }
}
