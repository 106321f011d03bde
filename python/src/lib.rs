//! `pendula._core`: runs a spec through the library exactly as `pendula run` does and writes the
//! result group with the CLI's own store writers, so that the Python package's datasets carry
//! the same variables, dims, units and attributes as the CLI's HDF5 files.

use pendula::analysis;
use pendula::observe::{Cancel, Cancellable};
use pendula::spec::{self, Analysis, Model, Spec};
use pendula::store::{self, Provenance, RunInfo};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::time::Duration;

/// The spec from its JSON form (the Python wrapper's tables), through the CLI's TOML parser and
/// validation so that a bad value gets the CLI's one-line message naming its field.
fn validated(spec_json: &str) -> PyResult<Spec> {
    let value: toml::Table =
        serde_json::from_str(spec_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let text = toml::to_string(&value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let file = spec::parse(&text, "<python>").map_err(|e| PyValueError::new_err(e.to_string()))?;
    file.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Validates a spec without running it (the `Chain` constructor's check).
#[pyfunction]
fn check(spec_json: &str) -> PyResult<(String, usize)> {
    let s = validated(spec_json)?;
    Ok((s.model_name.clone(), s.model.links()))
}

/// Runs `work` with the GIL released while this thread polls for signals every 50 ms; a signal
/// (Ctrl-C) sets the run's [`Cancel`] and the exception is raised once the run has stopped.
fn watched<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(Cancel) -> Result<T, String> + Send,
) -> PyResult<T> {
    let cancel = Cancel::new();
    let (result, signal) = py.allow_threads(|| {
        std::thread::scope(|s| {
            let c = cancel.clone();
            let h = s.spawn(move || work(c));
            let mut signal = None;
            while !h.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                if signal.is_none() {
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        cancel.set();
                        signal = Some(e);
                    }
                }
            }
            (h.join().map_err(|_| "the run panicked".to_string()), signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    if cancel.is_set() {
        return Err(PyKeyboardInterrupt::new_err("interrupted"));
    }
    result.and_then(|r| r).map_err(PyRuntimeError::new_err)
}

/// Runs the spec's analysis and writes its result group to the HDF5 file `path`; returns the
/// group's name. A cancelled run writes nothing (its partial result is discarded).
#[pyfunction]
fn run(py: Python<'_>, spec_json: &str, path: &str) -> PyResult<String> {
    let spec = validated(spec_json)?;
    let chain = match &spec.model {
        Model::Planar(c) => c.clone(),
        Model::Cart(_) => {
            return Err(PyValueError::new_err(
                "model.kind: the Python package offers the planar chain only",
            ))
        }
    };
    let path = std::path::PathBuf::from(path);
    watched(py, move |cancel| {
        let prov = Provenance::now("pendula (python)", spec.text.clone());
        let info = RunInfo {
            title: &spec.title,
            model_name: &spec.model_name,
            chain: &chain,
            method: &spec.method,
            x0: &spec.x0,
        };
        let mut obs = Cancellable(cancel.clone());
        match &spec.analysis {
            Analysis::Simulate(opts) => {
                let tr = analysis::simulate(&chain, &spec.method, &spec.x0, opts, &mut obs)
                    .map_err(|e| e.to_string())?;
                if cancel.is_set() || !tr.complete {
                    return Err("interrupted".into());
                }
                store::write_file(&path, true, &prov, &spec.title, |out| {
                    store::write_trajectory(out, &info, &tr, Some(opts))
                })
                .map_err(|e| e.to_string())?;
                Ok("trajectory".to_string())
            }
            Analysis::Lyapunov(run) => {
                use pendula::analysis::lyapunov::{chain_spectrum, chain_two_trajectory};
                use pendula::spec::LyapunovEstimator;
                if run.ensemble.is_some() || matches!(run.estimator, LyapunovEstimator::Sali(_)) {
                    return Err(
                        "lyapunov: ensembles and sali are not offered by the Python package yet"
                            .into(),
                    );
                }
                let mut opts = run.options;
                if run.estimator == LyapunovEstimator::Tangent {
                    opts.k = Some(1);
                }
                let r = match &run.estimator {
                    LyapunovEstimator::TwoTrajectory(two) => {
                        chain_two_trajectory(&chain, &spec.method, &spec.x0, &opts, two, &mut obs)
                    }
                    _ => chain_spectrum(&chain, &spec.method, &spec.x0, &opts, &mut obs),
                }
                .map_err(|e| e.to_string())?;
                if cancel.is_set() || !r.complete {
                    return Err("interrupted".into());
                }
                store::write_file(&path, true, &prov, &spec.title, |out| {
                    store::write_lyapunov_chain(out, "lyapunov", &chain, &spec.x0, &r)
                })
                .map_err(|e| e.to_string())?;
                Ok("lyapunov".to_string())
            }
            other => Err(format!(
                "{} is not offered by the Python package yet",
                other.kind()
            )),
        }
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
