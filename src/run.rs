//! One run of a validated spec: [`execute`] runs its analysis on its model with an observer
//! and returns the [`Outcome`] that the store writes ([`Outcome::write`]). The CLI and the
//! Python package both call it, so which estimator runs, which group it writes and which input
//! it refuses are decided here once; the front ends only translate their arguments into a
//! [`Spec`] and a [`RunError`] into their own words (the CLI a flag and an exit code, Python a
//! keyword and an exception), from the same data ([`RunError::field`]).
//!
//! A map run here keeps every tile in memory ([`crate::kinds::map::memory`]); `pendula map`
//! does not come here: it streams each tile to its checkpoint on disk
//! ([`crate::kinds::map::stream`]).

pub mod sweep;

use crate::finding::Record;
use crate::kinds::{Found, Input};
use crate::model::Chain;
use crate::observe::Observer;
use crate::spec::Spec;
use crate::store::memory::MemGroup;
use crate::store::{self, H5Out, Provenance, RunInfo, StoreError};
use std::path::{Path, PathBuf};

pub use crate::kinds::RunError;

/// The result of one run, with the parts of the spec its writer needs.
pub struct Outcome<'a> {
    pub spec: &'a Spec,
    pub output: Output<'a>,
}

/// What an analysis found: a result that describes itself ([`crate::kinds::Found`]), on the
/// planar chain (whose run the store writes beside it) or on none (the cart chain: the result
/// writes it all).
pub struct Output<'a> {
    pub chain: Option<&'a Chain>,
    pub result: Box<dyn Found>,
}

/// Runs the analysis of `spec` on its model, reporting to `observer` and stopping when its
/// token is set ([`Observer::cancel`]). A stopped run returns what it has, marked incomplete
/// ([`Outcome::complete`]), except a map, which keeps nothing ([`RunError::Interrupted`]).
/// `animate` and `measure` are their front ends' (they draw or read files).
pub fn execute<'a>(spec: &'a Spec, observer: &mut dyn Observer) -> Result<Outcome<'a>, RunError> {
    let input = Input {
        title: &spec.title,
        model_name: &spec.model_name,
        model: &spec.model,
        method: &spec.method,
        x0: &spec.x0,
        figures: &spec.figures,
        text: &spec.text,
    };
    // The result sits beside the run's record on the planar chain (a cart-chain result
    // writes it all).
    let output = Output {
        chain: spec.model.planar(),
        result: spec.analysis.execute(&input, observer)?,
    };
    Ok(Outcome { spec, output })
}

/// Why the run of `spec` draws no figure, when it draws none: on the cart chain only `simulate`
/// and `control` draw one (the chain in 3-D). Asked before any work, by the CLI for `--plot` and
/// by Python for `plot=`, so that a refused figure costs no run.
pub fn figure_refused(spec: &Spec) -> Option<&'static str> {
    let draws = matches!(spec.analysis.kind().name, "simulate" | "control");
    (spec.model.planar().is_none() && !draws)
        .then_some("the cart-chain figure is drawn for simulate and control")
}

/// A finished run's JSON summary, as `--json` prints it and Python's results carry it: the
/// run's fields the result names ([`crate::finding::Finding::run_fields`]: kind, title, model,
/// integrator from `spec`, when there is one), its own fields, then its wall time (s) and the
/// paths written (`null` where none).
pub fn summary(
    spec: Option<&Spec>,
    f: &dyn Found,
    wall: f64,
    file: Option<&Path>,
    plot: Option<&Path>,
) -> serde_json::Value {
    let path = |p: Option<&Path>| serde_json::json!(p.map(|p| p.display().to_string()));
    let mut j = serde_json::Map::new();
    for &key in f.run_fields() {
        let Some(spec) = spec else { break };
        let value = match key {
            "kind" => serde_json::json!(spec.analysis.kind().name),
            "title" => serde_json::json!(spec.title),
            "model" => serde_json::json!(spec.model_name),
            "integrator" => serde_json::json!(spec.method),
            _ => continue,
        };
        j.insert(key.into(), value);
    }
    if let serde_json::Value::Object(own) = f.summary() {
        j.extend(own);
        for &key in f.run_fields() {
            let value = match key {
                "wall_s" => serde_json::json!(wall),
                "output" => path(file),
                "plot" => path(plot),
                _ => continue,
            };
            j.insert(key.into(), value);
        }
    }
    serde_json::Value::Object(j)
}

impl Outcome<'_> {
    /// The result group (`trajectory`, `lyapunov`, an indicator's name such as `megno` or `fli`,
    /// `indicators`, `modes`, `poincare`, `map`); an ensemble writes `ensemble` beside it.
    pub fn group(&self) -> &'static str {
        self.output.result.group()
    }

    /// Whether the run went to its end (a stopped one holds what it had, marked incomplete).
    pub fn complete(&self) -> bool {
        self.output.result.complete()
    }

    /// The outcome of a run that went to its end, else [`RunError::Interrupted`] (for a front
    /// end that keeps no partial result).
    pub fn finished(self) -> Result<Self, RunError> {
        if self.complete() {
            Ok(self)
        } else {
            Err(RunError::Interrupted)
        }
    }

    /// Writes the file's content into `out`: the provenance and title at the root, then the
    /// result groups, with the store's writers; a result that writes its own content
    /// ([`Found::own_content`], a map handing its tiles over band by band) writes it all.
    pub fn write(&mut self, out: &H5Out, prov: &Provenance) -> Result<(), StoreError> {
        let records = self.records();
        self.write_records(out, prov, &records)
    }

    /// The groups the result writes (none for one that writes its own content, which builds
    /// them as it goes). Built before the file is created: describing 10⁶ samples takes a
    /// second or two, and a stop meanwhile must not wait for it with the file open.
    fn records(&mut self) -> Vec<Record> {
        let result = &mut self.output.result;
        if result.own_content().is_some() {
            return Vec::new();
        }
        std::iter::once(result.record())
            .chain(result.beside())
            .collect()
    }

    /// [`Outcome::write`] with the result's `records` built.
    fn write_records(
        &mut self,
        out: &H5Out,
        prov: &Provenance,
        records: &[Record],
    ) -> Result<(), StoreError> {
        let spec = self.spec;
        let x0 = spec.x0.as_slice();
        let info = |chain| RunInfo {
            title: &spec.title,
            model_name: &spec.model_name,
            chain,
            method: &spec.method,
            x0,
        };
        if let Some(own) = self.output.result.own_content() {
            return own.write(out, prov);
        }
        out.provenance(prov, &spec.title)?;
        let run = self.output.chain.map(info);
        for r in records {
            store::write_record(out, run.as_ref(), r)?;
        }
        Ok(())
    }

    /// Writes the file `path` ([`H5Out::create`]: `PATH.partial`, renamed when complete).
    pub fn write_file(
        &mut self,
        path: &Path,
        force: bool,
        prov: &Provenance,
    ) -> Result<PathBuf, StoreError> {
        let records = self.records();
        let out = H5Out::create(path, force)?;
        self.write_records(&out, prov, &records)?;
        out.finish()
    }

    /// The image in memory of the file [`Outcome::write_file`] would write.
    pub fn image(&mut self, prov: &Provenance) -> Result<MemGroup, StoreError> {
        let out = H5Out::memory();
        self.write(&out, prov)?;
        Ok(out.into_memory().expect("a memory image"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::Silent;

    fn spec(text: &str) -> Spec {
        crate::spec::parse(text, "<test>")
            .and_then(|f| f.validate())
            .expect("a valid spec")
    }

    #[test]
    fn outcome_knows_its_group_and_writes_it() {
        let s = spec(
            "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 0.5]\n[simulate]\nt_end = 1.0\ndt_out = 0.1\n",
        );
        let mut o = execute(&s, &mut Silent)
            .expect("a run")
            .finished()
            .expect("complete");
        assert_eq!(o.group(), "trajectory");
        let image = o
            .image(&Provenance::now("test", &s.text))
            .expect("an image");
        assert!(image.groups.iter().any(|g| g.name == "trajectory"));
    }

    #[test]
    fn refusals_found_by_the_run_carry_their_field() {
        // Released at θ1 = 0.1, the first arm falls through θ1 = 0.05 only after ~0.3 s.
        let s = spec(
            "kind = \"poincare\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [0.1, 0.1]\n[poincare]\nsection = \"theta1\"\nvalue = 0.05\ndirection = \"-\"\nt_end = 0.05\n",
        );
        let e = execute(&s, &mut Silent).err().expect("refused");
        assert_eq!(e.field(), Some("poincare.t_end"));
        assert!(e
            .to_string()
            .starts_with("poincare.t_end: no orbit crossed"));
        let s = spec(
            "kind = \"map\"\n[model]\npreset = \"double\"\n[map]\nresolution = 10000\nt_end = 1.0\n",
        );
        let e = execute(&s, &mut Silent).err().expect("refused");
        assert_eq!(e.field(), Some("map.resolution"));
        assert!(e
            .to_string()
            .ends_with("run it with `pendula map`, which streams its tiles to disk"));
        let s = spec(
            "kind = \"animate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 0.5]\n",
        );
        let e = execute(&s, &mut Silent).err().expect("refused");
        assert_eq!(e.field(), Some("kind"));
    }
}
