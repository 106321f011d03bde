//! Initial-condition maps: every pixel of a grid of start states is integrated on its own and
//! reduced to a few numbers. What a pixel is reduced to is its [`MapKind`]; [`kinds`] is the
//! catalogue of the kinds and their facts (flip time, energy error, Lyapunov exponent, FTLE,
//! final state, SALI, GALI, MEGNO, Lagrangian descriptor, FLI).
//!
//! The grid is cut into square tiles ([`Tiling`]); a tile is the unit of parallel work, of
//! progress, of checkpointing and of sharding. A pixel's result never depends on the tile, the
//! thread or the batch it ran in, so every thread count, resume and shard split gives the same
//! bits. Two-link chains, and the flip-time and final-state maps of three-link chains, go
//! through the SIMD [`lanes`] (FLI and Lagrangian-descriptor maps, the latter of three links
//! too, only with `Kernel::Lanes`; frequency maps with their Gauss–Legendre lanes); every
//! other chain (and `Kernel::Scalar`) through the generic [`System`] + RK4 path (Gauss–Legendre
//! for frequency maps).

pub mod basins;
pub mod bench;
pub mod blocks;
mod data;
pub mod grid;
pub mod kinds;
pub mod lanes;
mod per_kind;
use per_kind::Work;

pub use data::{point_symmetric, symmetry_mismatches, FlipStats, Fnv, MapData, MapHeader};
pub use grid::{Grid, GridAxis, Shell, TileRect, Tiling};
pub use kinds::{MapKind, MapKindId};
pub use lanes::{ThreeLink, TwoLink};

use crate::analysis::orbit::{AlignmentOptions, Regularity};
use crate::integrate::{Flow, Rk4};
use crate::model::{Chain, System};
use crate::observe::{Cancel, Control, Observer, POLL_STEPS};
use rayon::prelude::*;
use serde::Serialize;
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use thiserror::Error;

/// Pixel classes, stored beside the values.
pub mod class {
    /// Integrated to t_max without flipping.
    pub const NEVER: u8 = 0;
    pub const FLIPPED: u8 = 1;
    /// Not enough energy to flip (docs/physics.md §5); integrated only with the energy skip off.
    pub const FORBIDDEN: u8 = 2;
    /// The state became non-finite.
    pub const DIVERGED: u8 = 3;
    /// `flag_meanings` in CF order of the values 0, 1, 2, 3.
    pub const MEANINGS: &str = "never_flipped flipped energetically_forbidden diverged";
    /// Pixels in tiles a (shard) file does not hold.
    pub const NOT_COMPUTED: u8 = 255;
    /// SALI/GALI maps: the single-orbit verdict ([`Regularity`](crate::analysis::orbit::Regularity)).
    pub const UNDECIDED: u8 = 0;
    pub const CHAOTIC: u8 = 1;
    pub const REGULAR: u8 = 4;
}

/// Which link's flip counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FlipTarget {
    /// The first of any link (benchmark F: link 1 or link 2).
    Any,
    /// Only link j (0-based).
    Link(usize),
}

impl FlipTarget {
    pub fn label(&self) -> String {
        match self {
            FlipTarget::Any => "any".into(),
            FlipTarget::Link(j) => format!("{}", j + 1),
        }
    }
}

/// Which integrator code runs the pixels (both are classical RK4 with the same step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Kernel {
    /// The SIMD lanes where they serve the kind and the chain and the catalogue lets `auto`
    /// take them ([`kinds::Lanes::auto`]), the scalar path otherwise.
    Auto,
    /// Always the generic `System` path (any chain; the reference for the fast kernel).
    Scalar,
    /// The SIMD lanes wherever they serve the kind and the chain, also for the kinds `Auto`
    /// leaves on the scalar path (their lanes agree with it to rounding, not to the bit), the
    /// scalar path otherwise.
    Lanes,
}

/// Options of a map. Defaults: benchmark F (see [`MapOptions::benchmark_f`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapOptions {
    pub grid: Grid,
    pub kind: MapKind,
    /// End time (s); n_steps = round(t_max/dt).
    pub t_max: f64,
    /// RK4 step (s).
    pub dt: f64,
    /// Classify energetically forbidden pixels without integrating them (flip-time only).
    pub energy_skip: bool,
    pub tile: usize,
    pub kernel: Kernel,
}

impl MapOptions {
    /// Benchmark F on a W × W grid: θ1, θ2 over [−π, π)², RK4 dt = 0.01, any link, no skip.
    pub fn benchmark_f(width: usize, t_max: f64) -> MapOptions {
        MapOptions {
            grid: Grid {
                width,
                height: width,
                x: GridAxis {
                    index: 0,
                    lo: -PI,
                    hi: PI,
                },
                y: GridAxis {
                    index: 1,
                    lo: -PI,
                    hi: PI,
                },
                base: vec![0.0; 4],
                shell: None,
            },
            kind: MapKind::FlipTime {
                target: FlipTarget::Any,
            },
            t_max,
            dt: 0.01,
            energy_skip: false,
            tile: Tiling::default_size(width, width),
            kernel: Kernel::Auto,
        }
    }

    pub fn n_steps(&self) -> u32 {
        (self.t_max / self.dt).round() as u32
    }

    pub fn tiling(&self) -> Tiling {
        Tiling::new(self.grid.width, self.grid.height, self.tile)
    }

    /// Which code will run the pixels: `"simd-two-link"`, `"simd-three-link"` or `"scalar"`,
    /// as the catalogue's [`kinds::Lanes`] of the kind and the kernel say.
    pub fn kernel_name(&self, chain: &Chain) -> &'static str {
        if self.lanes3(chain).is_some() {
            "simd-three-link"
        } else if self.lanes2(chain).is_some() {
            "simd-two-link"
        } else {
            "scalar"
        }
    }

    /// Whether the kernel lets the lanes run this kind where they serve the chain: `auto` where
    /// the catalogue says it takes them ([`kinds::Lanes::auto`]), `lanes` always, `scalar` never.
    fn lanes_asked(&self) -> bool {
        match self.kernel {
            Kernel::Auto => self.kind.id().facts().lanes.auto,
            Kernel::Lanes => true,
            Kernel::Scalar => false,
        }
    }

    /// The two-link lanes' constants, where the kind's lanes ([`kinds::Lanes::two_link`]) serve
    /// `chain` and the kernel asks for them.
    fn lanes2(&self, chain: &Chain) -> Option<TwoLink> {
        if !self.lanes_asked() {
            return None;
        }
        match self.kind.id().facts().lanes.two_link {
            Some(true) => two_link(chain),
            Some(false) => two_link_any(chain),
            None => None,
        }
    }

    /// The three-link lanes' constants ([`lanes::three_link`], damping and drive included), where
    /// the kind's lanes serve three links and the kernel asks for them.
    fn lanes3(&self, chain: &Chain) -> Option<ThreeLink> {
        if !(self.lanes_asked() && self.kind.id().facts().lanes.three_link) {
            return None;
        }
        ThreeLink::of(chain)
    }
}

/// The SIMD kernel's constants, if `chain` is a conservative two-link chain.
pub fn two_link(chain: &Chain) -> Option<TwoLink> {
    if !chain.is_conservative() {
        return None;
    }
    two_link_any(chain)
}

/// The SIMD kernel's constants, damping and drive included, if `chain` has two links.
pub fn two_link_any(chain: &Chain) -> Option<TwoLink> {
    if chain.links() != 2 {
        return None;
    }
    let (a, b, g) = (chain.a(), chain.b(), chain.gravity());
    let d = chain.damping_matrix();
    let drive = &chain.params().drive;
    let torque = drive
        .torque
        .map_or([0.0; 3], |h| [h.amplitude, h.frequency, h.phase]);
    let pivot = drive.pivot.map_or([0.0; 4], |p| {
        [p.x_amplitude, p.y_amplitude, p.frequency, p.phase]
    });
    Some(TwoLink {
        a11: a[0],
        a12: a[1],
        a22: a[3],
        gb1: g * b[0],
        gb2: g * b[1],
        d11: d[0],
        d12: d[1],
        d22: d[3],
        drive: lanes::TwoLinkDrive {
            b1: b[0],
            b2: b[1],
            g,
            torque,
            pivot,
        },
    })
}

/// The energy criterion of docs/physics.md §5, or `None` where it does not apply (a drive feeds
/// energy in; with g ≤ 0 there is no potential well).
#[derive(Debug, Clone)]
pub struct EnergyTest {
    b: Vec<f64>,
    g: f64,
    /// Σ b_i − min over the watched links of 2 b_j: at rest, forbidden iff Σ b_i cos θ_i > this.
    threshold: f64,
}

impl EnergyTest {
    pub fn new(chain: &Chain, target: FlipTarget) -> Option<EnergyTest> {
        if !chain.params().drive.is_none() || chain.gravity() <= 0.0 {
            return None;
        }
        let b = chain.b().to_vec();
        let sum: f64 = b.iter().sum();
        let least = match target {
            FlipTarget::Any => b.iter().fold(f64::INFINITY, |m, &x| m.min(2.0 * x)),
            FlipTarget::Link(j) => 2.0 * b[j],
        };
        Some(EnergyTest {
            g: chain.gravity(),
            threshold: sum - least,
            b,
        })
    }

    /// Whether the start state `x` cannot reach a flip: E < g(min_j 2b_j − Σ b) with
    /// E = T − g Σ b_i cos θ_i. Released from rest this is Σ b_i cos θ_i > Σ b − min 2b_j,
    /// for the unit double pendulum benchmark F's `2 cos θ1 + cos θ2 > 1`, to the bit.
    pub fn forbidden(&self, chain: &Chain, x: &[f64]) -> bool {
        let n = self.b.len();
        let s = self
            .b
            .iter()
            .zip(&x[..n])
            .fold(0.0, |acc, (b, th)| acc + b * th.cos());
        if x[n..].iter().all(|&w| w == 0.0) {
            s > self.threshold
        } else {
            chain.kinetic_energy(x) / self.g - s < -self.threshold
        }
    }
}

/// The f64 arrays of two maps or tiles agree bit for bit (NaN marks "none" and equals itself;
/// the derived `PartialEq` would make every map with a NaN pixel unequal to its own copy).
pub(crate) fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl PartialEq for TileResult {
    fn eq(&self, o: &Self) -> bool {
        self.index == o.index
            && self.flip_step == o.flip_step
            && self.flip_link == o.flip_link
            && self.class == o.class
            && same_bits(&self.value, &o.value)
            && same_bits(&self.aux, &o.aux)
            && self.steps == o.steps
    }
}

/// One finished tile; arrays are row-major over the tile.
#[derive(Debug, Clone)]
pub struct TileResult {
    pub index: usize,
    /// Flip step k (0 = never), flip-time maps only (else empty).
    pub flip_step: Vec<i32>,
    /// Which link flipped first (1-based; 3 = links 1 and 2 together), flip-time only.
    pub flip_link: Vec<u8>,
    /// The [`class`] of each pixel.
    pub class: Vec<u8>,
    /// Energy error or Lyapunov exponent (NaN where diverged); empty for flip-time maps.
    pub value: Vec<f64>,
    /// [`MapKind::aux_columns`] values per pixel, pixel-major (`aux[p·m + c]`); else empty.
    pub aux: Vec<f64>,
    /// RK4 steps taken, summed over the tile's pixels.
    pub steps: u64,
}

/// Errors of a map run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MapError {
    /// Storing a finished tile failed (the tile is lost; the others are kept).
    #[error("storing tile {tile}: {message}")]
    Sink { tile: usize, message: String },
}

thread_local! {
    /// The stop request of the tile this thread computes ([`compute_tile_cancellable`]); a
    /// thread-local, so that the kernels poll it without a parameter on every kernel.
    static TILE_CANCEL: std::cell::RefCell<Cancel> = std::cell::RefCell::new(Cancel::never());
}

/// Whether the tile in progress on this thread should stop, polled by the kernels' step loops
/// when `count` is a multiple of [`POLL_STEPS`] (a tile can take minutes; a stop request must
/// take effect within a second). Its result is then discarded.
#[inline]
pub(crate) fn tile_cancelled(count: u64) -> bool {
    count.is_multiple_of(POLL_STEPS) && TILE_CANCEL.with(|c| c.borrow().is_set())
}

/// [`compute_tile`], abandoned (`None`) when `cancel` is set before it is finished.
pub fn compute_tile_cancellable(
    chain: &Chain,
    opts: &MapOptions,
    index: usize,
    cancel: &Cancel,
) -> Option<TileResult> {
    TILE_CANCEL.with(|c| *c.borrow_mut() = cancel.clone());
    let tile = compute_tile(chain, opts, index);
    TILE_CANCEL.with(|c| *c.borrow_mut() = Cancel::never());
    (!cancel.is_set()).then_some(tile)
}

/// Computes one tile. Never fails: a blow-up is a pixel class, not an error of the map.
/// Pixels off an energy shell ([`Grid::start`]) are classified `FORBIDDEN` without integration.
pub fn compute_tile(chain: &Chain, opts: &MapOptions, index: usize) -> TileResult {
    let rect = opts.tiling().rect(index);
    let np = rect.pixels();
    let mut starts = Vec::with_capacity(np);
    let mut on = Vec::with_capacity(np);
    let mut x = vec![0.0; chain.dim()];
    for i in rect.r0..rect.r1 {
        for j in rect.c0..rect.c1 {
            let ok = opts.grid.start(chain, i, j, &mut x);
            on.push(ok);
            if ok {
                starts.push(x.clone());
            }
        }
    }
    let live = compute_starts(chain, opts, index, &starts);
    if starts.len() == np {
        return live;
    }
    // Scatter the integrated pixels back among the forbidden ones. (The kind says whether it
    // is a flip map: a tile with no pixel on the shell has empty columns either way.)
    let m = opts.kind.aux_columns(chain.links());
    let flip = opts.kind.id().is_flip();
    let mut out = TileResult {
        index,
        flip_step: if flip { vec![0; np] } else { vec![] },
        flip_link: if flip { vec![0; np] } else { vec![] },
        class: vec![class::FORBIDDEN; np],
        value: if flip { vec![] } else { vec![f64::NAN; np] },
        aux: vec![f64::NAN; np * m],
        steps: live.steps,
    };
    for (q, p) in (0..np).filter(|&p| on[p]).enumerate() {
        out.class[p] = live.class[q];
        if flip {
            out.flip_step[p] = live.flip_step[q];
            out.flip_link[p] = live.flip_link[q];
        } else {
            out.value[p] = live.value[q];
        }
        out.aux[p * m..(p + 1) * m].copy_from_slice(&live.aux[q * m..(q + 1) * m]);
    }
    out
}

/// The work of [`compute_tile`] on the given start states (pixel order).
fn compute_starts(
    chain: &Chain,
    opts: &MapOptions,
    index: usize,
    starts: &[Vec<f64>],
) -> TileResult {
    let mut out = TileResult {
        index,
        flip_step: vec![],
        flip_link: vec![],
        class: vec![class::NEVER; starts.len()],
        value: vec![],
        aux: vec![],
        steps: 0,
    };
    opts.kind.reduce(&Work::new(chain, opts, starts), &mut out);
    out
}

/// The single-orbit indicator options a SALI/GALI map runs each pixel with: τ = tau_steps·dt,
/// time = t_max, the default seed and stop at SALI < 1e-14, the shortest history.
pub fn indicator_options(opts: &MapOptions) -> Option<AlignmentOptions> {
    let (k, tau_steps) = match opts.kind {
        MapKind::Sali { tau_steps } => (2, tau_steps),
        MapKind::Gali { k, tau_steps } => (k, tau_steps),
        _ => return None,
    };
    Some(AlignmentOptions {
        tau: f64::from(tau_steps) * opts.dt,
        time: opts.t_max,
        k,
        max_history: 16,
        ..AlignmentOptions::default()
    })
}

/// σ_max of the dim × dim matrix whose columns are `cols` (column-major), by power iteration
/// on ΦᵀΦ (scaled first, so that e^{λT} up to the f64 range is fine).
fn largest_singular_value(cols: &[f64], dim: usize) -> f64 {
    let scale = cols.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if !(scale.is_finite() && scale > 0.0) {
        return f64::NAN;
    }
    let phi: Vec<f64> = cols.iter().map(|v| v / scale).collect();
    let mut c = vec![0.0; dim * dim];
    for a in 0..dim {
        for b in 0..dim {
            c[a * dim + b] = (0..dim).map(|i| phi[a * dim + i] * phi[b * dim + i]).sum();
        }
    }
    let mut v = vec![1.0 / (dim as f64).sqrt(); dim];
    let mut lambda = 0.0;
    for _ in 0..1000 {
        let w: Vec<f64> = (0..dim)
            .map(|a| (0..dim).map(|b| c[a * dim + b] * v[b]).sum())
            .collect();
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            break;
        }
        let next = norm;
        v = w.into_iter().map(|x| x / norm).collect();
        let done = (next - lambda).abs() <= 1e-14 * next;
        lambda = next;
        if done {
            break;
        }
    }
    lambda.sqrt() * scale
}

/// The generic path: RK4 through [`Flow`], the flip test after every step at t_k = k·dt.
/// Returns (flip step or 0, flipping link 1-based or 0 / DIVERGED, steps taken).
fn flip_scalar(
    flow: &mut Flow<'_, Chain>,
    solver: &mut crate::integrate::rk4::Rk4Solver,
    x0: &[f64],
    n: u32,
    h: f64,
    target: FlipTarget,
) -> ScalarFlip {
    let nl = x0.len() / 2;
    let mut y = x0.to_vec();
    let mut prev = y.clone();
    let (lo, hi) = match target {
        FlipTarget::Any => (0, nl),
        FlipTarget::Link(j) => (j, j + 1),
    };
    for k in 1..=n {
        if tile_cancelled(u64::from(k)) {
            break;
        }
        prev.copy_from_slice(&y);
        solver.rk4_step(flow, f64::from(k - 1) * h, h, &mut y);
        if let Some(j) = (lo..hi).find(|&j| y[j].abs() > PI) {
            // Benchmark F's convention for two links: 3 when both passed in the same step.
            let both = nl == 2 && target == FlipTarget::Any && y[0].abs() > PI && y[1].abs() > PI;
            // The earliest crossing among the watched links beyond ±π (the lane kernel's rule).
            let located = (lo..hi)
                .filter(|&i| y[i].abs() > PI)
                .map(|i| {
                    lanes::located_time(u64::from(k), h, prev[i], prev[nl + i], y[i], y[nl + i])
                })
                .fold(f64::INFINITY, f64::min);
            return ScalarFlip {
                step: k as i32,
                link: if both { 3 } else { j as u8 + 1 },
                located,
                steps: u64::from(k),
            };
        }
    }
    let finite = y.iter().all(|v| v.is_finite());
    ScalarFlip {
        step: 0,
        link: if finite { 0 } else { lanes::DIVERGED },
        located: f64::NAN,
        steps: u64::from(n),
    }
}

/// One pixel of the scalar flip path: flip step (0 = never), link (as the lane kernel's),
/// located flip time (s, NaN = none), RK4 steps taken.
struct ScalarFlip {
    step: i32,
    link: u8,
    located: f64,
    steps: u64,
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RunSummary {
    pub tiles_done: usize,
    pub pixels_done: u64,
    pub steps: u64,
    /// An observer asked to stop; the tiles in flight were abandoned (through its token) or
    /// finished and handed to the sink.
    pub stopped: bool,
}

/// Computes `tiles` in parallel (rayon's current pool) and hands each finished tile to `sink`
/// on the calling thread, in completion order. The observer sees pixel counts a few times a
/// second; `Control::Stop` starts no more tiles, and the observer's [`Cancel`] token abandons
/// the tiles in flight within milliseconds (without one they finish and reach the sink). A sink error stops the run the same way and is returned.
pub fn run_tiles(
    chain: &Chain,
    opts: &MapOptions,
    tiles: &[usize],
    observer: &mut dyn Observer,
    sink: &mut dyn FnMut(TileResult) -> Result<(), String>,
) -> Result<RunSummary, MapError> {
    let tiling = opts.tiling();
    let total: u64 = tiles.iter().map(|&t| tiling.rect(t).pixels() as u64).sum();
    observer.start(total, "pixels");
    let cancel = AtomicBool::new(false);
    // A stop request abandons the tiles in flight too (they are recomputed on --resume).
    let stop = observer.cancel();
    let mut summary = RunSummary::default();
    let mut failure = None;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<TileResult>();
        let (cancel, stop) = (&cancel, &stop);
        s.spawn(move || {
            tiles.par_iter().for_each(|&t| {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                if let Some(tile) = compute_tile_cancellable(chain, opts, t, stop) {
                    let _ = tx.send(tile);
                }
            });
        });
        loop {
            // Nested in a sweep's point this thread is one of the pool's: it must not block.
            match crate::observe::recv_or_pause(&rx, Duration::from_millis(200)) {
                Ok(tile) => {
                    let (index, px, steps) = (
                        tile.index,
                        tiling.rect(tile.index).pixels() as u64,
                        tile.steps,
                    );
                    if failure.is_none() {
                        match sink(tile) {
                            Ok(()) => {
                                summary.tiles_done += 1;
                                summary.pixels_done += px;
                                summary.steps += steps;
                            }
                            Err(message) => {
                                failure = Some(MapError::Sink {
                                    tile: index,
                                    message,
                                });
                                cancel.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if observer.advance(summary.pixels_done) == Control::Stop
                && !cancel.swap(true, Ordering::Relaxed)
            {
                summary.stopped = true;
            }
        }
    });
    // The workers may have abandoned their tiles and hung up before the observer was asked.
    if stop.is_set() && summary.tiles_done < tiles.len() {
        summary.stopped = true;
    }
    observer.finish();
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// Computes the whole map in memory (all tiles), e.g. for tests and `pendula bench flip`.
pub fn compute_map(chain: &Chain, opts: &MapOptions, observer: &mut dyn Observer) -> MapData {
    let tiling = opts.tiling();
    let tiles: Vec<usize> = (0..tiling.count()).collect();
    let mut data = MapData::new(opts);
    let _ = run_tiles(chain, opts, &tiles, observer, &mut |t| {
        data.insert(&tiling, &t);
        Ok(())
    });
    data
}

/// What a run would cost, before it starts (`--dry-run`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub pixels: u64,
    pub tiles: usize,
    /// Pixels the energy test classifies without integration.
    pub forbidden_skipped: u64,
    /// RK4 steps if no pixel stopped early (an upper bound for flip maps).
    pub max_rk4_steps: u64,
    /// Uncompressed bytes of the result arrays (the file is usually smaller).
    pub output_bytes: u64,
    pub kernel: &'static str,
}

pub fn estimate(chain: &Chain, opts: &MapOptions, tiles: &[usize]) -> Estimate {
    let tiling = opts.tiling();
    let mut pixels = 0u64;
    let mut skipped = 0u64;
    let test = match (opts.kind, opts.energy_skip) {
        (MapKind::FlipTime { target }, true) => EnergyTest::new(chain, target),
        _ => None,
    };
    let mut x = vec![0.0; chain.dim()];
    for &t in tiles {
        let r = tiling.rect(t);
        pixels += r.pixels() as u64;
        if test.is_some() || opts.grid.shell.is_some() {
            for i in r.r0..r.r1 {
                for j in r.c0..r.c1 {
                    let off = !opts.grid.start(chain, i, j, &mut x);
                    skipped +=
                        u64::from(off || test.as_ref().is_some_and(|t| t.forbidden(chain, &x)));
                }
            }
        }
    }
    let per_pixel = match opts.kind {
        MapKind::FlipTime { .. } => 4 + 8 + 1 + 1 + 8,
        k => 8 + 1 + 8 * k.aux_columns(chain.links()) as u64,
    };
    Estimate {
        pixels,
        tiles: tiles.len(),
        forbidden_skipped: skipped,
        max_rk4_steps: (pixels - skipped) * u64::from(opts.n_steps()),
        output_bytes: pixels * per_pixel,
        kernel: opts.kernel_name(chain),
    }
}

/// A fingerprint of everything that determines a map's bits: the chain, the options (grid,
/// kind, t_max, dt, skip, tile size, kernel) and the pendula version. Checkpoints, resumes and
/// shard merges refuse to combine tiles of different fingerprints.
pub fn spec_hash(chain: &Chain, opts: &MapOptions) -> String {
    let mut f = Fnv::new();
    f.bytes(env!("CARGO_PKG_VERSION").as_bytes());
    f.bytes(format!("{:?}", chain.params()).as_bytes());
    f.bytes(serde_json::to_string(opts).unwrap_or_default().as_bytes());
    // The code that runs the pixels: lanes and the scalar path differ by rounding, so a
    // checkpoint written by one is never resumed by the other (e.g. across the upgrade that
    // moved Lyapunov/FTLE maps onto lanes).
    f.bytes(opts.kernel_name(chain).as_bytes());
    f.hex()
}
