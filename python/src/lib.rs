//! `pendula._core`: runs a spec through the library exactly as `pendula run` does and writes the
//! result group with the CLI's own store writers into an in-memory image of the file, so that
//! the Python package's datasets carry the same variables, dims, units and attributes as the
//! CLI's HDF5 files, and its NumPy arrays own the written vectors (no file, no copy back).

use pendula::observe::{Cancel, Cancellable};
use pendula::run::{execute, RunError};
use pendula::spec::{self, Spec};
use pendula::store::Provenance;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

mod image;
mod measure;

/// The library's errors as Python raises them: bad input `ValueError` (its field spelt as a
/// spec spells it, which is what the keywords are: `lyapunov.tau`), a failed run
/// `RuntimeError`, a stop `KeyboardInterrupt`.
fn raise(e: RunError) -> PyErr {
    // The budget is the machine's: Python has no `--max-memory`.
    let name = |field: &str| {
        if field == pendula::limits::MEMORY_BUDGET {
            "half of this machine's memory".to_string()
        } else {
            field.to_string()
        }
    };
    match e {
        RunError::Input(e) => {
            // A TOML error's field is its place in the text the wrapper made from the keywords
            // (`<python>:6:1`), which the caller never saw; its message names the field.
            PyValueError::new_err(if is_location(&e.field) {
                e.body(&name)
            } else {
                e.render(&name)
            })
        }
        RunError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        e => PyRuntimeError::new_err(e.render(&name)),
    }
}

/// Whether a field is a place in a text, `ORIGIN:LINE:COLUMN`, rather than a spec field.
fn is_location(field: &str) -> bool {
    let mut parts = field.rsplitn(3, ':');
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric(parts.next()) && numeric(parts.next()) && parts.next().is_some()
}

/// The spec from its JSON form (the Python wrapper's tables), through the CLI's TOML parser and
/// validation so that a bad value gets the CLI's one-line message naming its field.
fn validated(spec_json: &str) -> PyResult<Spec> {
    let value: toml::Table = serde_json::from_str(spec_json).map_err(|e| {
        PyValueError::new_err(match non_finite(spec_json) {
            Some((field, token)) => format!("{field}: must be a finite number (got {token})"),
            None => e.to_string(),
        })
    })?;
    let text = toml::to_string(&value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let file = spec::parse(&text, "<python>").map_err(|e| raise(e.into()))?;
    file.validate().map_err(|e| raise(e.into()))
}

/// The first NaN or infinity in the wrapper's JSON (Python's `json.dumps` writes them as the
/// bare words `NaN`, `Infinity` and `-Infinity`, which JSON has not) as its field, spelt as a
/// spec spells it (`lyapunov.tau`, `initial.theta[2]`, `model.link[1].length`), and the value as
/// Python prints it. Only called once the JSON failed to parse, so a good spec pays nothing.
fn non_finite(json: &str) -> Option<(String, &'static str)> {
    enum Frame {
        /// An object, and the key whose value is being read.
        Object(Option<String>),
        /// An array, and the index of the value being read.
        Array(usize),
    }
    let path = |stack: &[Frame]| {
        let mut p = String::new();
        for f in stack {
            match f {
                Frame::Object(Some(k)) => {
                    if !p.is_empty() {
                        p.push('.');
                    }
                    p.push_str(k);
                }
                Frame::Object(None) => {}
                Frame::Array(i) => p.push_str(&format!("[{}]", i + 1)),
            }
        }
        p
    };
    let bytes = json.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // A string: read it whole (escapes included) so its bytes are not tokens.
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    return None;
                }
                if expect_key {
                    let key = serde_json::from_str::<String>(&json[start - 1..=i])
                        .unwrap_or_else(|_| json[start..i].to_string());
                    if let Some(Frame::Object(k)) = stack.last_mut() {
                        *k = Some(key);
                    }
                    expect_key = false;
                }
            }
            b'{' => {
                stack.push(Frame::Object(None));
                expect_key = true;
            }
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(_)) => expect_key = true,
                None => {}
            },
            _ => {
                for (word, shown) in [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf")] {
                    if json[i..].starts_with(word) {
                        return Some((path(&stack), shown));
                    }
                }
            }
        }
        i += 1;
    }
    None
}

/// Validates a spec without running it (the model constructors' check).
#[pyfunction]
fn check(spec_json: &str) -> PyResult<(String, usize)> {
    let s = validated(spec_json)?;
    Ok((s.model_name.clone(), s.model.links()))
}

/// The planar chain of a spec as the library resolved it, as JSON: each link's length (m), mass
/// (kg), centre-of-mass offset from its upper joint (m) and inertia about it (kg m²), gravity
/// (m/s²), damping and drive as the model holds them; `null` for a cart chain. What `Chain`
/// shows of itself in a notebook.
#[pyfunction]
fn describe(spec_json: &str) -> PyResult<String> {
    let s = validated(spec_json)?;
    let Some(chain) = s.model.planar() else {
        return Ok("null".into());
    };
    let p = chain.params();
    let links: Vec<_> = p
        .links
        .iter()
        .map(|l| serde_json::json!({"length": l.length, "mass": l.mass, "com": l.com, "inertia": l.inertia}))
        .collect();
    Ok(serde_json::json!({
        "name": s.model_name,
        "links": links,
        "gravity": p.gravity,
        "damping": p.damping,
        "drive": p.drive,
    })
    .to_string())
}

/// Runs `work` with the GIL released while this thread polls for signals every 50 ms; a signal
/// (Ctrl-C) sets the run's [`Cancel`] and the exception is raised once the run has stopped.
fn watched<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(Cancel) -> Result<T, RunError> + Send,
) -> PyResult<T> {
    let cancel = Cancel::new();
    let (result, signal) = py.allow_threads(|| {
        std::thread::scope(|s| {
            let c = cancel.clone();
            // The result comes through a channel so that a finished run is seen at once, not
            // at the next poll (50 ms would be a tenth of a small map).
            let (tx, rx) = std::sync::mpsc::channel();
            let h = s.spawn(move || {
                let _ = tx.send(work(c));
            });
            let mut signal = None;
            let result = loop {
                match rx.recv_timeout(Duration::from_millis(50)) {
                    Ok(r) => break Some(r),
                    Err(RecvTimeoutError::Disconnected) => break None,
                    Err(RecvTimeoutError::Timeout) => {}
                }
                if signal.is_none() {
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        cancel.set();
                        signal = Some(e);
                    }
                }
            };
            let joined = h.join();
            let result = match (result, joined) {
                (Some(r), Ok(())) => r,
                _ => Err(RunError::Failed("the run panicked".into())),
            };
            (result, signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    match result {
        Ok(v) if !cancel.is_set() => Ok(v),
        Ok(_) => Err(raise(RunError::Interrupted)),
        Err(e) => Err(raise(e)),
    }
}

/// What a run gives Python: its result group's name, the image of the file the CLI would
/// write, and the CLI's JSON summary (`--json`, as text) and text report.
type Ran<'py> = (String, Bound<'py, PyDict>, String, String);

/// Runs the spec's analysis ([`execute`], as `pendula run` does) and returns the name of its
/// result group, the image of the file the CLI would write (see [`image::to_py`]) and the
/// summary and report the CLI prints for it. With `plot`, draws the figure `--plot` draws (the
/// same code on the same result, so the same file) there too: a path's extension and a run that
/// draws no figure are refused before the run (`ValueError` naming `plot`); its missing folders
/// are made and an existing figure is replaced, as plotting libraries do. A stopped run returns
/// nothing.
#[pyfunction]
#[pyo3(signature = (spec_json, plot=None))]
fn run<'py>(py: Python<'py>, spec_json: &str, plot: Option<PathBuf>) -> PyResult<Ran<'py>> {
    let spec = validated(spec_json)?;
    if let Some(p) = &plot {
        figure_path(&spec, p)?;
    }
    let (group, tree, summary, report) = watched(py, move |cancel| {
        let start = Instant::now();
        let prov = Provenance::now("pendula (python)", &spec.text);
        if let Some(plan) = &spec.sweep {
            // Points kept only where the spec names a folder (sweep.directory).
            let dir = plan.directory.clone();
            let outcome = pendula::run::sweep::run_sweep(
                &spec,
                dir,
                "pendula (python)",
                &mut Cancellable(cancel),
            )?;
            let wall = start.elapsed().as_secs_f64();
            if let Some(p) = &plot {
                if !outcome.has_figure() {
                    return Err(plot_error("no result of this sweep has a value to draw"));
                }
                // The spec's own axis labels ([output] xlabel/ylabel), as the CLI draws them.
                pendula::plot::labels::with_labels(spec.output.labels(), || outcome.draw(p))
                    .map_err(|e| RunError::Failed(format!("plot: {e}")))?;
            }
            let summary = outcome.summary(wall, None, plot.as_deref()).to_string();
            let report = outcome.report(wall);
            return Ok(("sweep".to_string(), outcome.image(&prov)?, summary, report));
        }
        let mut outcome = execute(&spec, &mut Cancellable(cancel))?.finished()?;
        let wall = start.elapsed().as_secs_f64();
        let found = &mut outcome.output.result;
        found.timed(wall);
        if let Some(p) = &plot {
            pendula::plot::labels::with_labels(spec.output.labels(), || found.draw(p))
                .map_err(|e| RunError::Failed(format!("plot: {e}")))?;
        }
        let summary =
            pendula::run::summary(Some(&spec), found.as_ref(), wall, None, plot.as_deref());
        let report = found.report();
        let tree = outcome.image(&prov)?;
        Ok((
            outcome.group().to_string(),
            tree,
            summary.to_string(),
            report,
        ))
    })?;
    Ok((group, image::to_py(py, tree)?, summary, report))
}

/// Bad input of `plot`, named as the keyword.
fn plot_error(why: &str) -> RunError {
    RunError::Input(pendula::spec::SpecError::new("plot", why))
}

/// Checks a figure path before the run: its format, that the run draws a figure, and its folder
/// (made when missing).
fn figure_path(spec: &Spec, p: &Path) -> PyResult<()> {
    spec::figure_format("plot", p).map_err(|e| raise(RunError::Input(e)))?;
    if let Some(why) = pendula::run::figure_refused(spec) {
        return Err(raise(plot_error(why)));
    }
    figure_format(Some(p))
}

/// A figure path's format (`.png` or `.svg`) checked before the run, naming `plot`, and its
/// missing folders made.
fn figure_format(p: Option<&Path>) -> PyResult<()> {
    let Some(p) = p else { return Ok(()) };
    spec::figure_format("plot", p).map_err(|e| raise(RunError::Input(e)))?;
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            raise(plot_error(&format!(
                "cannot make the folder {}: {e}",
                dir.display()
            )))
        })?;
    }
    Ok(())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(measure::measure_labels, m)?)?;
    m.add_function(wrap_pyfunction!(measure::measure_map, m)?)?;
    m.add_function(wrap_pyfunction!(measure::aux_vars, m)?)?;
    m.add_function(wrap_pyfunction!(measure::chaotic_fraction, m)?)?;
    Ok(())
}
