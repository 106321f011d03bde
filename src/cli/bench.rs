//! `pendula bench`: the workloads of docs/benchmarks.md, each printing its JSON fields on one line.

use super::output::set_threads;
use super::output::CliError;
use clap::{Args, Subcommand};
use pendula::bench;
use pendula::spec::{format_bytes, Budget};

/// Most repeats of a benchmark: the best of a thousand is as good as it gets.
const MAX_REPEATS: usize = 1000;
/// Longest model time (s) of a benchmark run: benchmarks F and L use 10 and 210 s.
const MAX_BENCH_TIME: f64 = 10_000.0;

/// Refuses `v` outside `lo..=hi`, naming `flag` (`--repeats 0` is not one repeat).
fn within(flag: &str, v: usize, lo: usize, hi: usize) -> Result<(), CliError> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{flag}: must be between {lo} and {hi} (got {v})"
        )))
    }
}

/// Refuses a model time that is not finite, positive and at most `max` seconds.
fn time(flag: &str, t: f64, max: f64) -> Result<(), CliError> {
    if t.is_finite() && t > 0.0 && t <= max {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{flag}: must be > 0 and at most {max} s (got {t})"
        )))
    }
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub which: BenchWhich,
}

#[derive(Debug, Subcommand)]
pub enum BenchWhich {
    /// Benchmark F: flip-time fractal of the double pendulum (docs/benchmarks.md, F); one JSON line.
    Flip {
        /// Grid edge W (W × W pixels).
        #[arg(long, default_value_t = 256)]
        width: usize,
        /// End time (s): benchmark F's t_max.
        #[arg(long = "t-end", default_value_t = 10.0)]
        t_max: f64,
        /// Repeats; the best wall time is reported, and all of them.
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Classify energetically forbidden pixels without integrating them (not benchmark F's
        /// rule, but the same map).
        #[arg(long)]
        energy_skip: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Chaos-indicator maps of the double pendulum over [−π, π)² (dt = 0.01): steps/s of the
    /// SIMD lanes or the scalar path; one JSON line.
    Map {
        /// lyapunov, ftle, megno, sali, gali, fli or lagrangian-descriptor (p = 1/2; its steps
        /// are both halves').
        #[arg(long, default_value = "lyapunov")]
        kind: String,
        /// GALI order k (2..4 deviation vectors of the two-link chain), for gali.
        #[arg(long = "gali-order", default_value_t = 4)]
        gali_order: usize,
        /// Grid edge W (W × W pixels).
        #[arg(long, default_value_t = 256)]
        width: usize,
        /// End time (s).
        #[arg(long = "t-max", alias = "t-end", default_value_t = 20.0)]
        t_max: f64,
        /// Renormalisation interval in RK4 steps, for lyapunov, megno, sali, gali, fli.
        #[arg(long, default_value_t = 10)]
        tau_steps: u32,
        /// auto (SIMD lanes where they apply), lanes (also for fli and lagrangian-descriptor,
        /// which auto runs on the scalar path) or scalar.
        #[arg(long, default_value = "auto")]
        kernel: String,
        /// Repeats; the best wall time is reported, and all of them.
        #[arg(long, default_value_t = 1)]
        repeats: usize,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Benchmark M: normal modes of the equal hanging chain (structured tridiagonal route), with
    /// the Laguerre, trace, residual and orthogonality checks; one JSON line.
    Modes {
        /// Links N.
        #[arg(long, default_value_t = 1000)]
        links: usize,
        /// Repeats; the best times are reported.
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Worker threads for the eigenvectors (default: all cores; SciPy's reference used 1).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Benchmark L: Lyapunov spectrum of the equal N-link chain from θ = 2 (RK4, dt = 1e-3, QR
    /// every 10 steps, 1 thread); one JSON line.
    Lyapunov {
        /// Links N.
        #[arg(long, default_value_t = 3)]
        links: usize,
        /// Transient (s): benchmark L's t_trans.
        #[arg(long = "transient", default_value_t = 10.0)]
        t_trans: f64,
        /// End of the run, the transient plus benchmark L's averaging time T (s; default the
        /// transient + 200).
        #[arg(long = "t-end")]
        t_end: Option<f64>,
        /// Repeats; the best wall time is reported, and all of them.
        #[arg(long, default_value_t = 3)]
        repeats: usize,
    },
    /// Periodic orbits: a driven pendulum's branch over 500 points with its bifurcations, an
    /// orbit diagram of 1 000 amplitudes × 300 periods, a double-pendulum normal-mode family
    /// over 200 energies; one JSON line each.
    Orbits {
        /// Worker threads for the diagram's starts (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Invariant manifolds: the four branches of the Baker–Gollub saddle (A = 1.15) grown to
    /// an arclength at a chord accuracy; one JSON line per branch and one for all.
    Manifolds {
        /// Each branch's arclength from the saddle.
        #[arg(long, default_value_t = 50.0)]
        arclength: f64,
        /// Largest estimated departure of a chord between neighbours from the manifold.
        #[arg(long, default_value_t = 1e-6)]
        accuracy: f64,
        /// Largest distance between neighbours.
        #[arg(long, default_value_t = 0.01)]
        resolution: f64,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Frames per second of a GIF of the triple pendulum (render, quantize, encode).
    Animate {
        /// Frames to render.
        #[arg(long, default_value_t = 100)]
        frames: usize,
        /// Image side in pixels.
        #[arg(long, default_value_t = 600)]
        size: u32,
    },
    /// The live viewer's engine flat out: steps/s and the frame rate it could sustain.
    Viewer {
        /// Links N.
        #[arg(long, default_value_t = 3)]
        links: usize,
        /// RK4 sub-steps per 1/60 s frame.
        #[arg(long, default_value_t = 10)]
        substeps: u64,
        /// Wall seconds to run.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
}

pub fn bench_command(a: &BenchArgs) -> Result<(), CliError> {
    match &a.which {
        BenchWhich::Flip {
            width,
            t_max,
            repeats,
            energy_skip,
            threads,
        } => {
            within("--width", *width, 1, 8192)?;
            within("--repeats", *repeats, 1, MAX_REPEATS)?;
            time("--t-end", *t_max, MAX_BENCH_TIME)?;
            set_threads(*threads)?;
            let b = bench::flip(*width, *t_max, *repeats, *energy_skip);
            println!("{}", serde_json::to_string(&b).unwrap_or_default());
            Ok(())
        }
        BenchWhich::Map {
            kind,
            width,
            t_max,
            tau_steps,
            gali_order,
            kernel,
            repeats,
            threads,
        } => {
            within("--width", *width, 1, 8192)?;
            within("--repeats", *repeats, 1, MAX_REPEATS)?;
            within("--tau-steps", *tau_steps as usize, 1, 1_000_000)?;
            time("--t-max", *t_max, MAX_BENCH_TIME)?;
            within("--gali-order", *gali_order, 2, 4)?;
            let kind = bench::indicator_kind(kind, *t_max, *tau_steps, *gali_order)
                .map_err(|e| CliError::Input(format!("--kind: {e}")))?;
            let kernel =
                bench::kernel(kernel).map_err(|e| CliError::Input(format!("--kernel: {e}")))?;
            set_threads(*threads)?;
            let b = bench::map(kind, *width, *t_max, kernel, *repeats);
            println!("{}", serde_json::to_string(&b).unwrap_or_default());
            Ok(())
        }
        BenchWhich::Modes {
            links,
            repeats,
            threads,
        } => {
            within("--links", *links, 1, 100_000)?;
            within("--repeats", *repeats, 1, MAX_REPEATS)?;
            // The structured route keeps the N × N shapes and the Laguerre check's matrix.
            let need = 4.0 * 8.0 * (*links as f64).powi(2);
            let budget = Budget::machine();
            if need > budget.bytes {
                return Err(CliError::Input(format!(
                    "--links: {links} links need ~{} for the modes' matrices, over the {} budget",
                    format_bytes(need),
                    format_bytes(budget.bytes)
                )));
            }
            set_threads(*threads)?;
            let r = bench::modes(*links, *repeats);
            println!("{}", serde_json::to_string(&r).unwrap_or_default());
            Ok(())
        }
        BenchWhich::Lyapunov {
            links,
            t_trans,
            t_end,
            repeats,
        } => {
            let (links, t_trans, repeats) = (*links, *t_trans, *repeats);
            // The spectrum carries 2N tangent vectors of 2N: (2N)² numbers through RK4.
            within("--links", links, 1, 1000)?;
            within("--repeats", repeats, 1, MAX_REPEATS)?;
            if !(t_trans.is_finite() && (0.0..=MAX_BENCH_TIME).contains(&t_trans)) {
                return Err(CliError::Input(format!(
                    "--transient: must be between 0 and {MAX_BENCH_TIME} s (got {t_trans})"
                )));
            }
            let t = t_end.map_or(200.0, |e| e - t_trans);
            if t.is_nan() || t <= 0.0 {
                return Err(CliError::Input(format!(
                    "--t-end: must exceed --transient ({t_trans} s; got {})",
                    t_end.unwrap_or(f64::NAN)
                )));
            }
            time("--t-end", t + t_trans, MAX_BENCH_TIME + 200.0)?;
            let r = bench::lyapunov(links, t_trans, t, repeats)?;
            println!("{}", serde_json::to_string(&r).unwrap_or_default());
            Ok(())
        }
        BenchWhich::Orbits { threads } => {
            super::output::set_threads(*threads)?;
            for l in bench::orbits()? {
                println!("{l}");
            }
            Ok(())
        }
        BenchWhich::Manifolds {
            arclength,
            accuracy,
            resolution,
            threads,
        } => {
            super::output::set_threads(*threads)?;
            // The flags by their own names (the growth's check names the spec's fields).
            for (flag, v) in [
                ("--arclength", *arclength),
                ("--accuracy", *accuracy),
                ("--resolution", *resolution),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(CliError::Input(format!(
                        "{flag}: must be finite and > 0 (got {v})"
                    )));
                }
            }
            for l in bench::manifolds(*arclength, *accuracy, *resolution)? {
                println!("{l}");
            }
            Ok(())
        }
        BenchWhich::Animate { frames, size } => super::bench_visual::animate(*frames, *size),
        BenchWhich::Viewer {
            links,
            substeps,
            seconds,
        } => super::bench_visual::viewer(*links, *substeps, *seconds),
    }
}
