//! Fast Lyapunov indicator maps: each pixel is the single-orbit FLI/OFLI reducer
//! ([`fli_orbit`](crate::analysis::orbit::fli_orbit), Froeschlé, Lega & Gonczi 1997; Fouchard
//! et al. 2002) run from its start state with RK4 at the map's dt, τ = tau_steps·dt, to t_max,
//! so a pixel equals `pendula lyapunov --estimator fli` from the same start to the bit.
//! FLI = sup ln‖w‖ grows like λ_max·t on chaotic orbits and like ln t on regular ones.

use super::super::lanes::{fli::fli_run, Widest};
use super::super::per_kind::{states, Work};
use super::super::{class, TileResult, TILE_CANCEL};
use crate::analysis::orbit::{fli_orbit, FliOptions};
use crate::integrate::Method;
use crate::observe::Cancellable;

/// The value is FLI(t_max), the aux column OFLI(t_max); `class` DIVERGED where the orbit blew up.
/// On the tangent lanes ([`lanes::fli`](super::super::lanes::fli)) where the kernel asks for
/// them and they serve the chain, else the single-orbit reducer per pixel.
pub(in super::super) fn fli(w: &Work<'_>, tau_steps: u32, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, _, n, h) = w.sizes();
    out.value = vec![f64::NAN; np];
    out.aux = vec![f64::NAN; np];
    if let Some(p2) = opts.lanes2(chain) {
        // The single-orbit run's whole intervals (none: its options are refused, every pixel
        // diverged as the scalar path marks it).
        let m = (opts.t_max / (f64::from(tau_steps) * h)).round();
        let intervals = if m >= 1.0 && m <= f64::from(u32::MAX) {
            m as u32
        } else {
            0
        };
        let y0 = states::<4>(starts);
        let (value, aux) = (&mut out.value, &mut out.aux);
        let diverged = u64::from(n);
        out.steps = fli_run::<Widest>(&p2, &y0, intervals, tau_steps, h, diverged, value, aux);
        for p in 0..np {
            if !out.value[p].is_finite() {
                out.class[p] = class::DIVERGED;
            }
        }
        return;
    }
    let fo = FliOptions {
        tau: f64::from(tau_steps) * h,
        time: opts.t_max,
        // The map keeps only the end values: the shortest history.
        max_history: 16,
        // The single-orbit FLI's own start, (1, …, 1)/√n: the map kinds' start vector.
        deviation: None,
        slope_samples: None,
    };
    let method = Method::Rk4 { dt: h };
    for p in 0..np {
        // The tile's stop request reaches inside the pixel's intervals.
        let mut stop = Cancellable(TILE_CANCEL.with(|c| c.borrow().clone()));
        match fli_orbit(chain, &method, &starts[p], &fo, &mut stop) {
            Ok(r) if r.end.complete => {
                out.value[p] = r.fli;
                out.aux[p] = r.ofli;
                out.steps += r.end.counts.steps;
            }
            // Stopped: the tile is discarded.
            Ok(_) => return,
            Err(_) => {
                out.class[p] = class::DIVERGED;
                out.steps += u64::from(n);
            }
        }
    }
}
