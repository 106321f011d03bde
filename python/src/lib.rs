//! `pendula._core`: runs a spec through the library exactly as `pendula run` does and writes the
//! result group with the CLI's own store writers into an in-memory image of the file, so that
//! the Python package's datasets carry the same variables, dims, units and attributes as the
//! CLI's HDF5 files, and its NumPy arrays own the written vectors (no file, no copy back).

use pendula::analysis::map::{self as amap, MapOptions, TileResult};
use pendula::analysis::{self, cart, modes, poincare};
use pendula::model::{CartChain, Chain, System};
use pendula::observe::{Cancel, Cancellable};
use pendula::spec::{self, Analysis, LyapunovEstimator, LyapunovRun, Model, Spec};
use pendula::store::map::{check_size, map_image, Assembly, MapInfo};
use pendula::store::memory::MemGroup;
use pendula::store::{self, Provenance, RunInfo, StoreError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

mod image;
mod measure;

/// Why a run gave no result, sorted as the CLI sorts them: bad input (the CLI's exit 2,
/// `ValueError`), a failed run (exit 1, `RuntimeError`), or a stop request.
enum Failure {
    Input(String),
    Run(String),
    Interrupted,
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Run(e.to_string())
    }
}

fn run_err(e: impl std::fmt::Display) -> Failure {
    Failure::Run(e.to_string())
}

/// An option the estimator refuses is bad input naming its field (as the CLI's `From`).
fn lyapunov_err(e: analysis::lyapunov::LyapunovError) -> Failure {
    use analysis::lyapunov::LyapunovError;
    match e {
        LyapunovError::Invalid { field, value, why } => {
            Failure::Input(format!("lyapunov.{field}: {why} (got {value})"))
        }
        other => Failure::Run(other.to_string()),
    }
}

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

/// Validates a spec without running it (the model constructors' check).
#[pyfunction]
fn check(spec_json: &str) -> PyResult<(String, usize)> {
    let s = validated(spec_json)?;
    Ok((s.model_name.clone(), s.model.links()))
}

/// Runs `work` with the GIL released while this thread polls for signals every 50 ms; a signal
/// (Ctrl-C) sets the run's [`Cancel`] and the exception is raised once the run has stopped.
fn watched<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(Cancel) -> Result<T, Failure> + Send,
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
                _ => Err(Failure::Run("the run panicked".into())),
            };
            (result, signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    match result {
        Ok(v) if !cancel.is_set() => Ok(v),
        Ok(_) | Err(Failure::Interrupted) => Err(PyKeyboardInterrupt::new_err("interrupted")),
        Err(Failure::Input(m)) => Err(PyValueError::new_err(m)),
        Err(Failure::Run(m)) => Err(PyRuntimeError::new_err(m)),
    }
}

/// Runs the spec's analysis and returns the name of its result group and the image of the
/// file the CLI would write (see [`image::to_py`]). A cancelled run returns nothing.
#[pyfunction]
fn run<'py>(py: Python<'py>, spec_json: &str) -> PyResult<(String, Bound<'py, PyDict>)> {
    let spec = validated(spec_json)?;
    let (group, tree) = watched(py, move |cancel| match &spec.model {
        Model::Planar(chain) => run_planar(&spec, chain, cancel),
        Model::Cart(sys) => run_cart(&spec, sys, cancel),
    })?;
    Ok((group, image::to_py(py, tree)?))
}

/// The result as the CLI's `-o FILE.h5` would write it ([`store::write_file`]), in memory.
fn write(
    spec: &Spec,
    body: impl FnOnce(&store::H5Out) -> Result<(), StoreError>,
) -> Result<MemGroup, Failure> {
    let prov = Provenance::now("pendula (python)", &spec.text);
    Ok(store::write_memory(&prov, &spec.title, body)?)
}

fn run_planar(spec: &Spec, chain: &Chain, cancel: Cancel) -> Result<(String, MemGroup), Failure> {
    let info = RunInfo {
        title: &spec.title,
        model_name: &spec.model_name,
        chain,
        method: &spec.method,
        x0: &spec.x0,
    };
    let mut obs = Cancellable(cancel.clone());
    match &spec.analysis {
        Analysis::Simulate(opts) => {
            let tr = analysis::simulate(chain, &spec.method, &spec.x0, opts, &mut obs)
                .map_err(run_err)?;
            if cancel.is_set() || !tr.complete {
                return Err(Failure::Interrupted);
            }
            let tree = write(spec, |out| {
                store::write_trajectory(out, &info, &tr, Some(opts))
            })?;
            Ok(("trajectory".into(), tree))
        }
        Analysis::Lyapunov(run) => {
            use analysis::lyapunov::{
                chain_fli, chain_megno, chain_spectrum, chain_two_trajectory,
            };
            unsupported_lyapunov(run)?;
            let mut opts = run.options;
            if run.estimator == LyapunovEstimator::Tangent {
                opts.k = Some(1);
            }
            // MEGNO and FLI write their own groups, as the CLI does.
            match &run.estimator {
                LyapunovEstimator::Megno(mo) => {
                    let r = chain_megno(chain, &spec.method, &spec.x0, mo, &mut obs)
                        .map_err(lyapunov_err)?;
                    if cancel.is_set() || !r.complete {
                        return Err(Failure::Interrupted);
                    }
                    let tree = write(spec, |out| {
                        store::write_megno_chain(out, "megno", chain, &spec.x0, &r)
                    })?;
                    return Ok(("megno".into(), tree));
                }
                LyapunovEstimator::Fli(fo) => {
                    let r = chain_fli(chain, &spec.method, &spec.x0, fo, &mut obs)
                        .map_err(lyapunov_err)?;
                    if cancel.is_set() || !r.complete {
                        return Err(Failure::Interrupted);
                    }
                    let tree = write(spec, |out| {
                        store::write_fli_chain(out, "fli", chain, &spec.x0, &r)
                    })?;
                    return Ok(("fli".into(), tree));
                }
                _ => {}
            }
            let r = match &run.estimator {
                LyapunovEstimator::TwoTrajectory(two) => {
                    chain_two_trajectory(chain, &spec.method, &spec.x0, &opts, two, &mut obs)
                }
                _ => chain_spectrum(chain, &spec.method, &spec.x0, &opts, &mut obs),
            }
            .map_err(lyapunov_err)?;
            if cancel.is_set() || !r.complete {
                return Err(Failure::Interrupted);
            }
            let tree = write(spec, |out| {
                store::write_lyapunov_chain(out, "lyapunov", chain, &spec.x0, &r)
            })?;
            Ok(("lyapunov".into(), tree))
        }
        Analysis::Modes(opts) => {
            let r = modes::modes_cancellable(chain, opts, &cancel).map_err(run_err)?;
            if cancel.is_set() || !r.complete {
                return Err(Failure::Interrupted);
            }
            let tree = write(spec, |out| store::write_modes(out, &info, &r))?;
            Ok(("modes".into(), tree))
        }
        Analysis::Poincare(opts) => {
            let r = poincare::poincare(chain, opts, &mut obs).map_err(run_err)?;
            if cancel.is_set() || !r.complete {
                return Err(Failure::Interrupted);
            }
            if r.crossings() == 0 {
                // The CLI's message (bad input: the section or t_end).
                return Err(Failure::Input(format!(
                    "poincare.t_end: no orbit crossed the section {} within t_end = {} s (raise --t-end or check the section)",
                    opts.section.describe(chain),
                    opts.orbit.t_max
                )));
            }
            let tree = write(spec, |out| store::write_poincare(out, &info, opts, &r))?;
            Ok(("poincare".into(), tree))
        }
        Analysis::Map(opts) => run_map(spec, chain, opts, cancel),
        other => Err(Failure::Input(format!(
            "kind: {} is not offered by the Python package",
            other.kind()
        ))),
    }
}

/// Ensembles and SALI write other groups than `lyapunov`; the package does not offer them.
fn unsupported_lyapunov(run: &LyapunovRun) -> Result<(), Failure> {
    if run.ensemble.is_some() || matches!(run.estimator, LyapunovEstimator::Sali(_)) {
        return Err(Failure::Input(
            "lyapunov: ensembles and sali are not offered by the Python package (use the CLI)"
                .into(),
        ));
    }
    Ok(())
}

/// A map: every tile on rayon's pool (as `pendula map`), kept in memory instead of the CLI's
/// checkpoint, then assembled by the CLI's map writer into the file's image (each tile freed
/// once its band is written). A stop request discards the tiles.
fn run_map(
    spec: &Spec,
    chain: &Chain,
    opts: &MapOptions,
    cancel: Cancel,
) -> Result<(String, MemGroup), Failure> {
    let (w, h) = (opts.grid.width, opts.grid.height);
    // Above the library's size limit the CLI asks for `--force`; the package refuses, as it
    // holds the whole map in memory twice (tiles, then the Dataset).
    check_size(w, h)
        .map_err(|e| Failure::Input(format!("{e}; run it with `pendula map --force`")))?;
    let info = MapInfo::of(spec, chain, opts, None);
    let count = opts.tiling().count();
    let todo: Vec<usize> = (0..count).collect();
    let mut tiles: Vec<Option<TileResult>> = (0..count).map(|_| None).collect();
    let mut obs = Cancellable(cancel.clone());
    let summary = amap::run_tiles(chain, opts, &todo, &mut obs, &mut |t| {
        let i = t.index;
        tiles[i] = Some(t);
        Ok(())
    })
    .map_err(run_err)?;
    if summary.stopped || cancel.is_set() {
        return Err(Failure::Interrupted);
    }
    let have: Vec<bool> = tiles.iter().map(Option::is_some).collect();
    let prov = Provenance::now("pendula (python)", &spec.text);
    let mut source = |t: usize| {
        tiles[t].take().ok_or_else(|| StoreError::Dims {
            var: "map".into(),
            what: format!("tile {t} was not computed"),
        })
    };
    let (tree, _) = map_image(Assembly {
        chain,
        info: &info,
        have: &have,
        source: &mut source,
        prov: &prov,
    })?;
    Ok(("map".into(), tree))
}

/// The cart chain's analyses, with the CLI's writers (`run_cart` of each subcommand).
fn run_cart(spec: &Spec, sys: &CartChain, cancel: Cancel) -> Result<(String, MemGroup), Failure> {
    let mut obs = Cancellable(cancel.clone());
    match &spec.analysis {
        Analysis::Simulate(opts) => {
            let tr: cart::CartTrajectory =
                analysis::simulate(sys, &spec.method, &spec.x0, opts, &mut obs).map_err(run_err)?;
            if cancel.is_set() || !tr.complete {
                return Err(Failure::Interrupted);
            }
            let tree = write(spec, |out| {
                let g = out.group("trajectory")?;
                store::cart::write_cart_trajectory(&g, sys, &tr, &spec.method)
            })?;
            Ok(("trajectory".into(), tree))
        }
        Analysis::Modes(opts) => {
            let signs: Vec<Vec<f64>> = opts
                .equilibria
                .iter()
                .map(|e| e.signs.iter().map(|&s| f64::from(s)).collect())
                .collect();
            let m: Vec<cart::CartModes> = signs
                .iter()
                .map(|s| cart::cart_modes(sys, s))
                .collect::<Result<_, _>>()
                .map_err(|e| Failure::Input(e.to_string()))?;
            let tree = write(spec, |out| {
                let g = out.group("modes")?;
                store::cart::write_cart_modes(&g, sys, &m, &signs)
            })?;
            Ok(("modes".into(), tree))
        }
        Analysis::Lyapunov(run) => {
            let r = analysis::lyapunov::lyapunov_spectrum(
                sys,
                &spec.method,
                &spec.x0,
                &run.options,
                &mut obs,
            )
            .map_err(lyapunov_err)?;
            if cancel.is_set() || !r.complete {
                return Err(Failure::Interrupted);
            }
            let tree = write(spec, |out| {
                let g = out.group("lyapunov")?;
                store::write_lyapunov(&g, &r)?;
                g.initial_state(&spec.x0)?;
                g.attr_i64("phase_space_dimension", sys.manifold_dim() as i64)?;
                g.attr_str("model", "cart-chain")?;
                Ok(())
            })?;
            Ok(("lyapunov".into(), tree))
        }
        other => Err(Failure::Input(format!(
            "kind: {} of the cart chain is not offered by the Python package",
            other.kind()
        ))),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(measure::measure_labels, m)?)?;
    m.add_function(wrap_pyfunction!(measure::measure_map, m)?)?;
    m.add_function(wrap_pyfunction!(measure::aux_vars, m)?)?;
    m.add_function(wrap_pyfunction!(measure::chaotic_fraction, m)?)?;
    Ok(())
}
