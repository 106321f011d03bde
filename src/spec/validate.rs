//! [`SpecFile::validate`]: the one validator of files and flags. The kind is checked first, then
//! the tables that belong to it, the model, the kind's own table, the output and figures, and
//! last what the run would cost (its steps and memory), so that nothing large is built for a
//! run that is refused.

use super::{
    cart, chain_words, default_title, figure_format, kinds, points, result_format, sweep, Budget,
    Figures, Model, Spec, SpecError, SpecFile, Validated,
};
use crate::analysis::map::MapOptions;
use crate::kinds::Registered;

impl SpecFile {
    /// Which analysis tables are present, by kind (the kinds with a field here and the
    /// registered ones, [`KindTables`](super::KindTables)), in the order of [`kinds`].
    fn sections(&self) -> Vec<(&'static str, bool)> {
        // `[map]`, a field here (a measure spec reads it too), is listed below.
        let registered = crate::kinds::KINDS
            .iter()
            .filter(|k| k.name != "map")
            .map(|k| (k.name, self.registered.get(k.name).is_some()));
        let mut sections: Vec<_> = [("map", self.map.is_some())]
            .into_iter()
            .chain(registered)
            .collect();
        // In the kinds' order, so that the first foreign table named is the one it always was.
        let order = kinds();
        sections.sort_by_key(|(name, _)| order.iter().position(|k| k == name));
        sections
    }

    /// Checks every value and builds the analysis: the one validator of files and flags. The
    /// run must fit the machine's default [`Budget`] ([`SpecFile::validate_within`]).
    pub fn validate(&self) -> Result<Spec, SpecError> {
        self.validate_within(&Budget::machine())
    }

    /// [`SpecFile::validate`] with a memory budget: the link count is checked before the model
    /// is built, the whole run's [`Spec::memory_estimate`] and its step count
    /// ([`MAX_STEPS`](super::MAX_STEPS)) before the spec is returned, so nothing large is allocated for a run
    /// that would be refused.
    pub fn validate_within(&self, budget: &Budget) -> Result<Spec, SpecError> {
        self.validate_for(budget, None)
    }

    /// [`SpecFile::validate_within`] for shard `shard` (`(i, n)`, `--shard i/n`) of a map
    /// run, whose memory is its own tiles' ([`Spec::memory_estimate_for`]).
    pub fn validate_for(
        &self,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<Spec, SpecError> {
        let kind = self.known_kind()?;
        if self.sweep.is_some() {
            return self.validate_sweep(kind, budget, shard);
        }
        self.check_sections(kind)?;
        self.check_links(budget)?;
        let (model, model_name) = self.model.build()?;
        offered(&model, kind)?;
        self.initial.check_model(&model)?;
        let v = self.validate_analysis(kind, &model)?;
        self.check_output()?;
        let figures = self.figures_for(kind, &model)?;
        let title = self
            .title
            .clone()
            .unwrap_or_else(|| match (&model, v.analysis.0.varied()) {
                // A run over a range names the range, not the start value.
                (Model::Planar(c), Some(p)) => super::swept_title(
                    kind,
                    &model_name,
                    c,
                    (p.name, p.long_name, p.units),
                    p.range,
                ),
                (Model::Planar(c), None) => {
                    // A run from a given state names it; every planar run names its forcing.
                    let state = matches!(kind, "simulate" | "lyapunov" | "animate");
                    default_title(kind, &model_name, c, state.then_some(v.x0.as_slice()))
                }
                (Model::Cart(c), _) => cart::default_title(kind, c),
            });
        let notes = self.notes(&v.analysis);
        let spec = Spec {
            figures,
            title,
            model,
            model_name,
            x0: v.x0,
            method: v.method,
            analysis: v.analysis,
            output: self.output.clone(),
            text: toml::to_string(self).unwrap_or_default(),
            notes,
            sweep: None,
        };
        self.check_steps(&spec)?;
        spec.check_memory(budget, shard)?;
        Ok(spec)
    }

    /// The spec's `kind`, which must be one of [`kinds`].
    fn known_kind(&self) -> Result<&str, SpecError> {
        let kind = self.kind.as_deref().ok_or_else(|| {
            SpecError::new(
                "kind",
                format!("missing: the analysis to run ({})", kinds().join(", ")),
            )
        })?;
        if !kinds().contains(&kind) {
            return Err(SpecError::new(
                "kind",
                format!(
                    "unknown analysis kind `{kind}` (expected {})",
                    kinds().join(", ")
                ),
            ));
        }
        Ok(kind)
    }

    /// Refuses an analysis table that belongs to another kind than `kind`.
    fn check_sections(&self, kind: &str) -> Result<(), SpecError> {
        for (section, present) in self.sections() {
            // A measure spec computes the map it measures: its [map] table belongs to it.
            let measured_map = kind == "measure" && section == "map";
            if present && kind != section && !measured_map {
                return Err(SpecError::new(
                    section,
                    format!("this section belongs to kind = \"{section}\", not \"{kind}\""),
                ));
            }
        }
        Ok(())
    }

    /// The kind's own table validated on `model` (which offers `kind`).
    fn validate_analysis(&self, kind: &str, model: &Model) -> Result<Validated, SpecError> {
        self.validate_registered(kind, model)
    }

    /// The `[output]` paths: not empty, a figure format and an HDF5 result file.
    fn check_output(&self) -> Result<(), SpecError> {
        for (field, p) in [
            ("output.file", &self.output.file),
            ("output.plot", &self.output.plot),
        ] {
            if let Some(p) = p {
                if p.as_os_str().is_empty() {
                    return Err(SpecError::new(field, "is empty"));
                }
            }
        }
        if let Some(p) = &self.output.plot {
            figure_format("output.plot", p)?;
        }
        if let Some(p) = &self.output.file {
            result_format("output.file", p)?;
        }
        Ok(())
    }

    /// The `[figures]` table, which only simulate and animate of a planar chain draw.
    fn figures_for(&self, kind: &str, model: &Model) -> Result<Figures, SpecError> {
        Ok(match &self.figures {
            None => Figures::default(),
            Some(_) if !matches!(kind, "simulate" | "animate") || model.planar().is_none() => {
                return Err(SpecError::new(
                    "figures",
                    format!(
                        "still figures are drawn by simulate and animate of a planar chain, not {kind} of the {} model",
                        model.kind()
                    ),
                ))
            }
            Some(f) => f.figures(model.links())?,
        })
    }

    /// What validation chose that the user did not write: an energy-shell map's window
    /// clipped to what the energy reaches.
    fn notes(&self, analysis: &Registered) -> Vec<String> {
        let mut notes = Vec::new();
        if let (Some(o), Some(m)) = (crate::kinds::map::options(&**analysis), &self.map) {
            if let (Some(sh), None) = (&o.grid.shell, &m.window) {
                notes.push(crate::kinds::map::reach_note(o, sh.energy));
            }
        }
        notes
    }

    /// The `[map]` table (none: the defaults) validated on `chain` (`model`'s), as a map
    /// spec and a measure spec validate it ([`crate::kinds::map::validate_map`]).
    pub(super) fn map_options(
        &self,
        model: &Model,
        chain: &crate::model::Chain,
    ) -> Result<(MapOptions, Vec<f64>, crate::integrate::Method), SpecError> {
        let parts = Parts { file: self, model };
        let table = self.map.clone().unwrap_or_default();
        crate::kinds::map::validate_map(&table, chain, &parts)
    }

    /// The table of a registered kind validated by the kind ([`crate::kinds::Kind::validate`];
    /// no table is an empty one, so that the kind names what is missing).
    fn validate_registered(&self, kind: &str, model: &Model) -> Result<Validated, SpecError> {
        let entry = crate::kinds::named(kind).expect("checked by kinds()");
        let empty = toml::Table::new();
        let table = self.registered.get(kind).unwrap_or(&empty);
        let parts = Parts { file: self, model };
        let (run, method, x0) = match kind {
            // `[map]` is a field of the spec, already its table type (a measure spec reads it
            // too), not among `registered`: validated as the kind validates its table.
            "map" => {
                let map = self.map.clone().unwrap_or_default();
                crate::kinds::Table::validate(map, model, &parts)?
            }
            _ => entry.validate(table, model, &parts)?,
        };
        Ok(Validated {
            analysis: run,
            x0,
            method,
        })
    }

    /// A spec with a `[sweep]`: the spec without it validated as the template, then every
    /// point ([`sweep::plan`]); a measure spec's sweep is its `[measure.sweep]`.
    fn validate_sweep(
        &self,
        kind: &str,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<Spec, SpecError> {
        if kind == "measure" {
            return sweep::into_measure(self)?.validate_for(budget, shard);
        }
        if shard.is_some() {
            return Err(SpecError::new(
                "sweep",
                "a sweep runs each point's map whole: shard a map spec without a sweep",
            ));
        }
        let mut base = self.clone();
        base.sweep = None;
        let mut spec = base.validate_for(budget, shard)?;
        let plan = sweep::plan(self, &spec, budget)?;
        if self.title.is_none() {
            // The template's default title names its own values of the swept fields.
            // Each swept field by its long name and range (`torque amplitude A from 0.9 to
            // 1.5 N·m`).
            let fields: Vec<String> = plan
                .axes
                .iter()
                .map(|a| {
                    let (lo, hi) = a
                        .values
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                            (l.min(*v), h.max(*v))
                        });
                    super::title::range_words(
                        &super::parameter_long_name(&a.parameter),
                        &a.units,
                        [lo, hi],
                    )
                })
                .collect();
            spec.title = format!(
                "{kind} sweep: {}, {}",
                chain_words(&spec.model_name, spec.model.links()),
                fields.join(", ")
            );
        }
        spec.text = toml::to_string(self).unwrap_or_default();
        spec.sweep = Some(Box::new(plan));
        Ok(spec)
    }
}

/// Refuses a `kind` the model does not offer ([`Model::kinds`]).
fn offered(model: &Model, kind: &str) -> Result<(), SpecError> {
    if !model.kinds().contains(&kind) {
        return Err(SpecError::new(
            "kind",
            format!(
                "`{kind}` is not offered for the {} model (expected {})",
                model.kind(),
                model.kinds().join(", ")
            ),
        ));
    }
    Ok(())
}

/// The integrator and start of a spec as a registered kind's validation reads them.
struct Parts<'a> {
    file: &'a SpecFile,
    model: &'a Model,
}

impl crate::kinds::SpecParts for Parts<'_> {
    fn integrator(&self) -> &super::IntegratorSpec {
        &self.file.integrator
    }

    fn has_start(&self) -> bool {
        !self.file.initial.is_empty()
    }

    fn start(&self) -> Result<Vec<f64>, SpecError> {
        match self.model {
            Model::Planar(chain) => self.file.initial.state(chain.links()),
            Model::Cart(chain) => self.file.initial.cart_state(chain),
        }
    }

    fn preset(&self) -> bool {
        matches!(&self.file.model, super::ModelFile::Planar(m) if m.preset.is_some())
    }

    fn model_takes(
        &self,
        name: &str,
        parameter: crate::model::Parameter,
        value: f64,
    ) -> Result<(), String> {
        let mut probe = SpecFile {
            model: self.file.model.clone(),
            ..SpecFile::default()
        };
        super::parameter::set_parameter(&mut probe, name, Some(parameter), value)?;
        probe.model.build().map_err(|e| e.to_string())?;
        Ok(())
    }

    fn start_near(&self, equilibrium: &str, tilt: f64) -> Result<Vec<f64>, SpecError> {
        let Model::Cart(chain) = self.model else {
            return self.start();
        };
        let mut start = self.file.initial.clone();
        if start.q.is_none() {
            start
                .equilibrium
                .get_or_insert_with(|| equilibrium.to_string());
            start.tilt.get_or_insert(tilt);
        }
        start.cart_state(chain)
    }

    fn initial(&self) -> &super::InitialSpec {
        &self.file.initial
    }

    fn map_run(
        &self,
    ) -> Result<
        Option<(
            crate::analysis::map::MapOptions,
            Vec<f64>,
            crate::integrate::Method,
        )>,
        SpecError,
    > {
        if self.file.map.is_none() {
            return Ok(None);
        }
        let chain = crate::kinds::planar_chain("map", self.model)?;
        self.file.map_options(self.model, chain).map(Some)
    }

    fn output_file(&self) -> Option<&std::path::Path> {
        self.file.output.file.as_deref()
    }

    fn measure_points(
        &self,
        parameter: Option<&str>,
        values: &[f64],
        map_file: &std::path::Path,
    ) -> Result<super::Sweep, SpecError> {
        points::measure_points(self.file, parameter, values, map_file)
    }
}
