//! A `[sweep]` run ([`crate::spec::SweepPlan`]): every point is the one-run [`execute`] of its
//! own spec, so a point's numbers are those of a single run of that spec, bit for bit. Points
//! run in parallel batches; each finished point's result file (and a small record of its
//! scalars) is written to the sweep's directory at once, so an interrupted sweep keeps them and
//! a rerun reuses every point whose record holds the same spec text. The sweep's own result is
//! the `sweep` group: each point's scalar results ([`scalars`]) over the dimension `sweep`,
//! with the swept fields as coordinates.

use super::{execute, Outcome, RunError};
/// The running estimate's trend, as a `lambda_max_trend` scalar codes it ([`trend_of`]).
pub use crate::analysis::convergence::Trend;
use crate::error::FieldError;
use crate::finding::Record as Group;
use crate::observe::{Cancellable, Control, Observer};
use crate::spec::{point_file, Spec, SweepPlan};
use crate::store::{Provenance, StoreError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub use crate::finding::Scalar;

/// Its figure, JSON summary and text table.
mod report;

/// What one point gave.
#[derive(Debug, Clone, PartialEq)]
pub struct PointRecord {
    pub scalars: Vec<Scalar>,
    /// Its result file, when the sweep keeps them.
    pub file: Option<PathBuf>,
    /// Taken from an earlier run's record instead of run again.
    pub reused: bool,
    /// Why an earlier run's file of this point was not reused but run again (its file did not
    /// match its record: truncated, changed, unreadable, or a record without its checksum).
    pub rerun: Option<String>,
}

/// A finished sweep.
pub struct SweepOutcome<'a> {
    pub spec: &'a Spec,
    pub plan: &'a SweepPlan,
    /// The folder of the points' files (`None`: nothing kept).
    pub directory: Option<PathBuf>,
    pub points: Vec<PointRecord>,
}

/// The record beside a point's result file: the spec text it ran and its scalars, each value as
/// its bits so a reused point gives the same numbers to the last bit, and the size and checksum
/// of the result file it was written with, so a file truncated or changed since is not reused.
#[derive(Serialize, Deserialize)]
struct Record {
    spec: String,
    scalars: Vec<RecordScalar>,
    /// The result file's size in bytes and FNV-1a 64 of its bytes (hex); absent in a record of
    /// an older pendula, whose point is then run again.
    #[serde(default)]
    file: Option<FileSum>,
}

/// A file's size and checksum.
#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
struct FileSum {
    bytes: u64,
    fnv1a64: String,
}

/// `file`'s size and checksum as a record states them.
fn file_sum(file: &Path) -> std::io::Result<FileSum> {
    use std::io::Read;
    let mut f = std::fs::File::open(file)?;
    let mut fnv = crate::analysis::map::Fnv::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        fnv.bytes(&buf[..n]);
        bytes += n as u64;
    }
    Ok(FileSum {
        bytes,
        fnv1a64: fnv.hex(),
    })
}

#[derive(Serialize, Deserialize)]
struct RecordScalar {
    name: String,
    dim: Option<(String, Vec<i64>)>,
    values: Vec<u64>,
    errors: Option<Vec<u64>>,
    units: String,
    long_name: String,
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn floats(v: &[u64]) -> Vec<f64> {
    v.iter().map(|x| f64::from_bits(*x)).collect()
}

fn record_path(file: &Path) -> PathBuf {
    file.with_extension("json")
}

/// What an earlier run left for a point.
enum Earlier {
    /// Nothing usable of the same spec text: run it (nothing to say).
    None,
    /// Its record and a file that matches it: these scalars.
    Reuse(Vec<Scalar>),
    /// A record of the same spec text whose file does not match it: run it again, saying why.
    Stale(String),
}

/// The scalars of an earlier run of the same spec text at `file`, if its record is there and
/// the file is the one the record was written with (same size and checksum) and opens as HDF5.
fn reuse(file: &Path, text: &str) -> Earlier {
    let Some(r) = std::fs::read(record_path(file))
        .ok()
        .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
    else {
        return Earlier::None;
    };
    if r.spec != text {
        return Earlier::None;
    }
    let name = file.display();
    let Some(want) = r.file else {
        return Earlier::Stale(format!("{name} has no checksum in its record"));
    };
    match file_sum(file) {
        Err(e) => return Earlier::Stale(format!("{name} cannot be read ({e})")),
        Ok(got) if got != want => {
            return Earlier::Stale(format!(
            "{name} does not match its record ({} bytes, FNV-1a {}; the record says {} bytes, {})",
            got.bytes, got.fnv1a64, want.bytes, want.fnv1a64
        ))
        }
        Ok(_) => {}
    }
    if let Err(e) = crate::store::open_input(file) {
        return Earlier::Stale(e.to_string());
    }
    Earlier::Reuse(
        r.scalars
            .into_iter()
            .map(|s| Scalar {
                name: s.name,
                dim: s.dim,
                values: floats(&s.values),
                errors: s.errors.as_deref().map(floats),
                units: s.units,
                long_name: s.long_name,
            })
            .collect(),
    )
}

fn write_record(file: &Path, text: &str, scalars: &[Scalar]) -> Result<(), RunError> {
    let sum = file_sum(file).map_err(|source| RunError::SweepRecord {
        what: "reading back",
        path: file.to_path_buf(),
        source,
    })?;
    let r = Record {
        file: Some(sum),
        spec: text.into(),
        scalars: scalars
            .iter()
            .map(|s| RecordScalar {
                name: s.name.clone(),
                dim: s.dim.clone(),
                values: bits(&s.values),
                errors: s.errors.as_deref().map(bits),
                units: s.units.clone(),
                long_name: s.long_name.clone(),
            })
            .collect(),
    };
    let path = record_path(file);
    let tmp = path.with_extension("json.partial");
    let io = |source| RunError::SweepRecord {
        what: "writing",
        path: path.clone(),
        source,
    };
    std::fs::write(&tmp, serde_json::to_vec(&r).expect("a record serializes")).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}

/// Runs every point of `spec`'s sweep (see the module docs), each point's files in
/// `directory` (none: nothing is kept), reporting finished points to `observer` and stopping
/// at its token: the points finished by then are kept on disk, and the run returns
/// [`RunError::Interrupted`]. `command_line` goes into each point file's provenance.
pub fn run_sweep<'a>(
    spec: &'a Spec,
    directory: Option<PathBuf>,
    command_line: &str,
    observer: &mut dyn Observer,
) -> Result<SweepOutcome<'a>, RunError> {
    let plan = spec.sweep.as_deref().ok_or_else(|| {
        RunError::Input(FieldError::new("sweep", "the spec has no [sweep] table"))
    })?;
    if let Some(d) = &directory {
        prepare_directory(d)?;
    }
    let n = plan.points.len();
    observer.start(n as u64, "points");
    let cancel = observer.cancel();
    // Batches of a few points per thread: the observer is told between batches, and a point's
    // own analysis may use the pool too. A map runs its tiles in parallel and holds its image
    // in memory: one map at a time, so the memory checked for one point is the sweep's.
    let batch = match crate::kinds::map::spec_options(spec) {
        Some(_) => 1,
        None => (2 * rayon::current_num_threads()).max(1),
    };
    let mut points = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let end = (start + batch).min(n);
        let done: Vec<Result<PointRecord, RunError>> = (start..end)
            .into_par_iter()
            .map(|k| {
                let file = directory.as_deref().map(|d| point_file(d, k));
                run_point(&plan.points[k].spec, file, command_line, &cancel)
                    .map_err(|e| at_point(plan, k, e))
            })
            .collect();
        for r in done {
            points.push(r?);
        }
        start = end;
        if observer.advance(start as u64) == Control::Stop || cancel.is_set() {
            return Err(RunError::Interrupted);
        }
    }
    observer.finish();
    Ok(SweepOutcome {
        spec,
        plan,
        directory,
        points,
    })
}

/// Creates the points' folder `d` and checks, before any work, that a point's file can be
/// written there: a folder that cannot be created or written is bad input naming the field
/// (`sweep.directory`, the CLI's `--sweep-dir`), not a failure after the first point.
fn prepare_directory(d: &Path) -> Result<(), RunError> {
    let bad = |what: String| RunError::Input(FieldError::new("sweep.directory", what));
    std::fs::create_dir_all(d)
        .map_err(|e| bad(format!("cannot create the folder {}: {e}", d.display())))?;
    crate::store::check_output_path(&point_file(d, 0), true).map_err(|e| bad(e.to_string()))
}

/// A point's error naming the point and its values.
fn at_point(plan: &SweepPlan, k: usize, e: RunError) -> RunError {
    let at = format!("point {} ({})", k + 1, plan.describe(k));
    match e {
        RunError::Input(f) => RunError::Input(FieldError::new(
            "sweep",
            format!("{at}: {}: {}", f.field(), f.message),
        )),
        RunError::Interrupted => RunError::Interrupted,
        e => RunError::AtPoint {
            at,
            error: Box::new(e),
        },
    }
}

fn run_point(
    spec: &Spec,
    file: Option<PathBuf>,
    command_line: &str,
    cancel: &crate::observe::Cancel,
) -> Result<PointRecord, RunError> {
    let mut rerun = None;
    if let Some(f) = &file {
        match reuse(f, &spec.text) {
            Earlier::Reuse(scalars) => {
                return Ok(PointRecord {
                    scalars,
                    file,
                    reused: true,
                    rerun: None,
                })
            }
            Earlier::Stale(why) => rerun = Some(why),
            Earlier::None => {}
        }
    }
    if cancel.is_set() {
        return Err(RunError::Interrupted);
    }
    let mut outcome = execute(spec, &mut Cancellable(cancel.clone()))?.finished()?;
    let scalars = scalars(&outcome);
    if let Some(f) = &file {
        // A record left by an older spec text goes first: a kill between the two writes
        // must not pair the new file with the old record.
        let _ = std::fs::remove_file(record_path(f));
        // A stop during the write removed the unfinished file: the point is not kept.
        outcome
            .write_file(f, true, &Provenance::now(command_line, &spec.text))
            .map_err(|e| match e {
                StoreError::Interrupted { .. } => RunError::Interrupted,
                e => e.into(),
            })?;
        write_record(f, &spec.text, &scalars)?;
    }
    Ok(PointRecord {
        scalars,
        file,
        reused: false,
        rerun,
    })
}

/// The scalar results of one run, by analysis: what a sweep tabulates against its parameters.
pub fn scalars(outcome: &Outcome) -> Vec<Scalar> {
    outcome.output.result.scalars()
}

/// The trend code of a `lambda_max_trend` scalar back as a [`Trend`].
pub fn trend_of(code: f64) -> Trend {
    match code as u8 {
        1 => Trend::Settled,
        2 => Trend::Rising,
        3 => Trend::Falling,
        _ => Trend::Unknown,
    }
}

impl SweepOutcome<'_> {
    /// The `sweep` group: one row per point over the dimension `sweep`. With one swept field
    /// the `sweep` coordinate holds its values; with several it numbers the points, and each
    /// field is a variable over `sweep` named after it (`model_link_2_mass`), listed in every
    /// result's CF `coordinates` attribute so that xarray makes it a coordinate. Each result is
    /// a variable over `sweep` (and its own trailing dimension: `exponent`, `link`, `shell`,
    /// …), with `<name>_standard_error` beside it where the analysis gives one.
    pub fn record(&self) -> Result<Group, StoreError> {
        let plan = self.plan;
        let n = self.points.len();
        let params: Vec<&str> = plan.axes.iter().map(|a| a.parameter.as_str()).collect();
        let mut g = Group::new("sweep");
        g.attr("kind", self.spec.analysis.kind().name)
            .attr("parameters", params.join(" "))
            .attr("combine", plan.combine.name())
            .attr("points", n as i64);
        if let Some(d) = &self.directory {
            g.attr(
                "point_files",
                d.join("point-NNNNN.h5").display().to_string(),
            );
        }
        if let [axis] = plan.axes.as_slice() {
            let v: Vec<f64> = plan.points.iter().map(|p| p.values[0]).collect();
            g.coord(
                "sweep",
                v,
                axis.units.clone(),
                format!("{} of each sweep point", axis.parameter),
            )
            .var_attr("parameter", axis.parameter.clone());
        } else {
            g.index("sweep", n, "sweep point (see the swept fields' variables)");
        }
        let mut coordinates = Vec::new();
        for (i, axis) in plan.axes.iter().enumerate() {
            let name = axis.variable();
            let v: Vec<f64> = plan.points.iter().map(|p| p.values[i]).collect();
            g.var(
                name.clone(),
                &["sweep"],
                v,
                axis.units.clone(),
                format!("{} of each sweep point", axis.parameter),
            )
            .var_attr("parameter", axis.parameter.clone());
            coordinates.push(name);
        }
        let coordinates = coordinates.join(" ");
        let mut dims_written: Vec<(String, usize)> = Vec::new();
        for col in self.columns() {
            let width = col.dim.as_ref().map_or(1, |(_, c)| c.len());
            let (values, errors) = self.table(&col.name, width);
            let put = |g: &mut Group, name: String, data: Vec<f64>, long: String| {
                match &col.dim {
                    None => g.var(name, &["sweep"], data, col.units.clone(), long),
                    Some((dim, _)) => {
                        let a = ndarray::Array2::from_shape_vec((n, width), data).expect("shape");
                        g.var(
                            name,
                            &["sweep".to_string(), dim.clone()],
                            a,
                            col.units.clone(),
                            long,
                        )
                    }
                }
                .var_attr("coordinates", coordinates.clone());
            };
            if let Some((dim, index)) = &col.dim {
                match dims_written.iter().find(|(d, _)| d == dim) {
                    Some((_, len)) if *len != index.len() => {
                        return Err(StoreError::Dims {
                            var: col.name.clone(),
                            what: format!(
                                "its dimension {dim} has {} entries, not {len}",
                                index.len()
                            ),
                        })
                    }
                    Some(_) => {}
                    None => {
                        g.coord(dim.clone(), index.clone(), "1", format!("{dim} index"));
                        dims_written.push((dim.clone(), index.len()));
                    }
                }
            }
            put(&mut g, col.name.clone(), values, col.long_name.clone());
            if col.errors.is_some() {
                put(
                    &mut g,
                    format!("{}_standard_error", col.name),
                    errors,
                    format!("standard error of {}", col.name),
                );
            }
        }
        Ok(g)
    }

    /// Every scalar name in first-seen order, with its dimension (the longest vector's) and the
    /// first point's units and long name.
    pub fn columns(&self) -> Vec<Scalar> {
        let mut out: Vec<Scalar> = Vec::new();
        for p in &self.points {
            for s in &p.scalars {
                match out.iter_mut().find(|o| o.name == s.name) {
                    Some(o) => {
                        if let (Some((_, a)), Some((_, b))) = (&mut o.dim, &s.dim) {
                            if b.len() > a.len() {
                                *a = b.clone();
                            }
                        }
                        o.errors = o.errors.take().or(s.errors.clone());
                    }
                    None => out.push(s.clone()),
                }
            }
        }
        out
    }

    /// The (point × component) table of `name` (NaN where a point lacks it) and its errors.
    pub fn table(&self, name: &str, width: usize) -> (Vec<f64>, Vec<f64>) {
        let mut v = vec![f64::NAN; self.points.len() * width];
        let mut e = vec![f64::NAN; self.points.len() * width];
        for (k, p) in self.points.iter().enumerate() {
            if let Some(s) = p.scalars.iter().find(|s| s.name == name) {
                for (j, x) in s.values.iter().take(width).enumerate() {
                    v[k * width + j] = *x;
                }
                if let Some(err) = &s.errors {
                    for (j, x) in err.iter().take(width).enumerate() {
                        e[k * width + j] = *x;
                    }
                }
            }
        }
        (v, e)
    }

    /// Writes the file `path` ([`crate::store::write_file`]): provenance and title at the
    /// root, then the `sweep` group.
    pub fn write_file(
        &self,
        path: &Path,
        force: bool,
        prov: &Provenance,
    ) -> Result<PathBuf, StoreError> {
        crate::store::write_file(path, force, prov, &self.spec.title, |out| {
            crate::store::write_record(out, None, &self.record()?)
        })
    }

    /// The image in memory of the file [`SweepOutcome::write_file`] would write.
    pub fn image(&self, prov: &Provenance) -> Result<crate::store::memory::MemGroup, StoreError> {
        crate::store::write_memory(prov, &self.spec.title, |out| {
            crate::store::write_record(out, None, &self.record()?)
        })
    }
}
