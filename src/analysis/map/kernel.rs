//! The fast path: RK4 for a two-link chain, many pixels at once in SIMD lanes.
//!
//! Any undamped, undriven two-link chain has `M(θ) α = F` with
//! `M = [[a11, a12 cosΔ], [a12 cosΔ, a22]]`, `F1 = −a12 ω2² sinΔ − g b1 sin θ1`,
//! `F2 = a12 ω1² sinΔ − g b2 sin θ2` (Δ = θ1 − θ2; chain.rs's constants), which for unit point
//! masses is exactly benchmark F's formula. The lanes are plain arrays in structure-of-arrays
//! layout and every operation is a loop over lanes, so LLVM vectorizes them; the kernel is
//! compiled three times (AVX-512, AVX2+FMA, baseline) and picked at run time, so no
//! `target-cpu=native` is needed and the binary runs anywhere. Arithmetic is identical in all
//! three (explicit `mul_add`, IEEE division), so the map does not depend on the machine.
//!
//! A lane whose pixel flipped or reached `n_steps` is refilled with the next pixel at once, so
//! the vector stays full until the work list runs out (then idle lanes hang at rest, masked).
//!
//! Final-state maps add, compiled in only there, the damping `−D θ̇` and (driven chains) the
//! drive: the pivot's acceleration in the effective gravity, `F_j −= b_j (g_y sin θ_j +
//! g_x cos θ_j)`, and the torque on link 1, each lane at its own time. Their settling rules are
//! `basins::Dwell` and `basins::Stroboscope`, the objects the scalar path uses.

use super::basins::{Dwell, Outcome, Rule, Settle, Stroboscope};
use super::sincos::sin_cos;
use std::f64::consts::PI;

/// Constants of an undriven two-link chain (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoLink {
    pub a11: f64,
    pub a12: f64,
    pub a22: f64,
    /// g·b1 and g·b2.
    pub gb1: f64,
    pub gb2: f64,
    /// The symmetric damping matrix D (Q = −D θ̇): zero for the conservative kernels, which
    /// skip it; the final-state kernel applies it.
    pub d11: f64,
    pub d12: f64,
    pub d22: f64,
    /// The periodic drive, for the driven final-state kernel only (the others ignore it).
    pub drive: TwoLinkDrive,
}

/// A two-link chain's drive in the kernel's terms: gravity acts through `b_j (g_y sin θ_j +
/// g_x cos θ_j)` with the pivot's acceleration in (g_x, g_y), and the torque acts on link 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TwoLinkDrive {
    pub b1: f64,
    pub b2: f64,
    pub g: f64,
    /// Torque amplitude (N·m), Ω (rad/s), φ; zero amplitude for none.
    pub torque: [f64; 3],
    /// Pivot x and y amplitudes (m), Ω, φ; zero amplitudes for none.
    pub pivot: [f64; 4],
}

/// Which links' flips end a pixel: `(link 1, link 2)`.
pub type FlipMask = (bool, bool);

/// Marks a pixel whose state became non-finite (in `link_out`).
pub const DIVERGED: u8 = u8::MAX;

/// The instruction set the kernel runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    Avx512,
    Avx2,
    Baseline,
}

/// The best instruction set of this CPU, or a lesser one named by the environment variable
/// `PENDULA_SIMD` (`avx512`, `avx2`, `baseline`; to benchmark the variants side by side).
/// All give the same bits.
pub fn simd() -> Simd {
    static CHOICE: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        #[allow(unused_mut)]
        let mut best = Simd::Baseline;
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                best = Simd::Avx2;
                if has!("avx512f") && has!("avx512dq") && has!("avx512vl") {
                    best = Simd::Avx512;
                }
            }
        }
        let rank = |s: Simd| match s {
            Simd::Baseline => 0,
            Simd::Avx2 => 1,
            Simd::Avx512 => 2,
        };
        let asked = match std::env::var("PENDULA_SIMD").as_deref() {
            Ok("avx512") => Some(Simd::Avx512),
            Ok("avx2") => Some(Simd::Avx2),
            Ok("baseline") => Some(Simd::Baseline),
            _ => None,
        };
        match asked {
            Some(a) if rank(a) <= rank(best) => a,
            _ => best,
        }
    })
}

/// Runs `lanes::<L>(args)` with the widest lanes this CPU's instruction set allows: 16 with
/// AVX-512, 8 with AVX2+FMA, 4 otherwise. The two wrappers enable those features for the
/// whole inlined kernel.
/// `widest!(f[A, B](x: X, ...) -> R)` passes the further generic arguments `A, B` after the
/// lane count.
macro_rules! widest {
    ($lanes:ident $([$($g:tt)*])? ($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty) => {{
        use $crate::analysis::map::kernel::{simd, Simd};
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
        unsafe fn wide($($arg: $ty),*) -> $ret {
            $lanes::<16 $(, $($g)*)?>($($arg),*)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn mid($($arg: $ty),*) -> $ret {
            $lanes::<8 $(, $($g)*)?>($($arg),*)
        }
        match simd() {
            // SAFETY: `simd()` only names features detected on this CPU.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { wide($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { mid($($arg),*) },
            _ => $lanes::<4 $(, $($g)*)?>($($arg),*),
        }
    }};
}
pub(super) use widest;

/// What the lane loops need of a chain: one RK4 step of its `S = 2N` state (angles first,
/// then angular velocities) and how a pixel's flipped links are reported.
pub(super) trait LaneModel<const S: usize> {
    /// One RK4 step of size `h` from time `t`; `DAMPED` adds −D θ̇, `DRIVEN` the drive.
    fn rk4<const DAMPED: bool, const DRIVEN: bool>(&self, h: f64, t: f64, y: &mut [f64; S]);
    /// The `link_out` code of a flip step from the set of links beyond ±π (bit j = link j + 1),
    /// as the scalar path reports it.
    fn link_code(flipped: u8) -> u8;
}

impl LaneModel<4> for TwoLink {
    #[inline(always)]
    fn rk4<const DAMPED: bool, const DRIVEN: bool>(&self, h: f64, t: f64, y: &mut [f64; 4]) {
        TwoLink::rk4::<DAMPED, DRIVEN>(self, h, t, y)
    }

    /// Benchmark F's convention: 1, 2, or 3 for both links in the same step.
    #[inline(always)]
    fn link_code(flipped: u8) -> u8 {
        flipped
    }
}

impl TwoLink {
    /// Whether any damping coefficient is non-zero (the kernels compile `−D θ̇` in only then).
    pub fn damped(&self) -> bool {
        self.d11 != 0.0 || self.d12 != 0.0 || self.d22 != 0.0
    }

    /// Whether a drive acts: a torque or a pivot motion of non-zero amplitude (the kernels
    /// compile the drive in only then).
    pub fn driven(&self) -> bool {
        let d = &self.drive;
        d.torque[0] != 0.0 || d.pivot[0] != 0.0 || d.pivot[1] != 0.0
    }

    /// θ̈ from M(θ) θ̈ = F at time t; with `DAMPED`, F also holds −D θ̇, and with `DRIVEN`
    /// the drive (gravity plus the pivot's acceleration, and the torque).
    #[inline(always)]
    fn accel<const DAMPED: bool, const DRIVEN: bool>(
        &self,
        t: f64,
        th1: f64,
        th2: f64,
        w1: f64,
        w2: f64,
    ) -> (f64, f64) {
        let (s1, c1) = sin_cos(th1);
        let (s2, c2) = sin_cos(th2);
        let sd = s1 * c2 - c1 * s2;
        let cd = c1 * c2 + s1 * s2;
        let (mut r1, mut r2);
        if DRIVEN {
            let d = &self.drive;
            let [ax, ay, om, ph] = d.pivot;
            // s̈ = −Ω² (ax, ay) cos(Ωt + φ).
            let acc = -(om * om) * sin_cos(om * t + ph).1;
            let (gx, gy) = (ax * acc, d.g + ay * acc);
            r1 = -self.a12 * w2 * w2 * sd - d.b1 * (gy * s1 + gx * c1);
            r2 = self.a12 * w1 * w1 * sd - d.b2 * (gy * s2 + gx * c2);
            let [amp, om, ph] = d.torque;
            r1 += amp * sin_cos(om * t + ph).1;
        } else {
            r1 = -self.a12 * w2 * w2 * sd - self.gb1 * s1;
            r2 = self.a12 * w1 * w1 * sd - self.gb2 * s2;
        }
        if DAMPED {
            r1 -= self.d11.mul_add(w1, self.d12 * w2);
            r2 -= self.d12.mul_add(w1, self.d22 * w2);
        }
        let bc = self.a12 * cd;
        let inv = 1.0 / (self.a11 * self.a22 - bc * bc);
        (
            (self.a22 * r1 - bc * r2) * inv,
            (self.a11 * r2 - bc * r1) * inv,
        )
    }

    /// One classical RK4 step of size `h` (the stage formulas of `integrate::Rk4`).
    #[inline(always)]
    pub fn rk4<const DAMPED: bool, const DRIVEN: bool>(&self, h: f64, t: f64, y: &mut [f64; 4]) {
        let hh = 0.5 * h;
        let h6 = h / 6.0;
        let (tm, te) = (t + hh, t + h);
        let [t1, t2, w1, w2] = *y;
        let (a1, a2) = self.accel::<DAMPED, DRIVEN>(t, t1, t2, w1, w2);
        let k1 = [w1, w2, a1, a2];
        let u = [
            t1 + hh * k1[0],
            t2 + hh * k1[1],
            w1 + hh * k1[2],
            w2 + hh * k1[3],
        ];
        let (a1, a2) = self.accel::<DAMPED, DRIVEN>(tm, u[0], u[1], u[2], u[3]);
        let k2 = [u[2], u[3], a1, a2];
        let u = [
            t1 + hh * k2[0],
            t2 + hh * k2[1],
            w1 + hh * k2[2],
            w2 + hh * k2[3],
        ];
        let (a1, a2) = self.accel::<DAMPED, DRIVEN>(tm, u[0], u[1], u[2], u[3]);
        let k3 = [u[2], u[3], a1, a2];
        let u = [
            t1 + h * k3[0],
            t2 + h * k3[1],
            w1 + h * k3[2],
            w2 + h * k3[3],
        ];
        let (a1, a2) = self.accel::<DAMPED, DRIVEN>(te, u[0], u[1], u[2], u[3]);
        let k4 = [u[2], u[3], a1, a2];
        for i in 0..4 {
            y[i] += h6 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

/// Structure-of-arrays state of `L` lanes of `S` components.
pub(super) struct Lanes<const L: usize, const S: usize> {
    pub(super) y: [[f64; L]; S],
}

impl<const L: usize, const S: usize> Lanes<L, S> {
    #[inline(always)]
    fn step<const DAMPED: bool, const DRIVEN: bool, M: LaneModel<S>>(
        &mut self,
        p: &M,
        h: f64,
        t: &[f64; L],
    ) {
        // Two independent halves per iteration: the vector unit gets two dependency chains
        // to overlap (the step is one long chain of polynomials and a division).
        let half = L / 2;
        for l in 0..half {
            let m = l + half;
            let mut a: [f64; S] = std::array::from_fn(|c| self.y[c][l]);
            let mut b: [f64; S] = std::array::from_fn(|c| self.y[c][m]);
            p.rk4::<DAMPED, DRIVEN>(h, t[l], &mut a);
            p.rk4::<DAMPED, DRIVEN>(h, t[m], &mut b);
            for c in 0..S {
                self.y[c][l] = a[c];
                self.y[c][m] = b[c];
            }
        }
        if L % 2 == 1 {
            let l = L - 1;
            let mut s: [f64; S] = std::array::from_fn(|c| self.y[c][l]);
            p.rk4::<DAMPED, DRIVEN>(h, t[l], &mut s);
            for c in 0..S {
                self.y[c][l] = s[c];
            }
        }
    }

    /// The watched links (bit j of `mask` = link j + 1) beyond ±π in lane `l`.
    #[inline(always)]
    fn flipped(&self, mask: u8, l: usize) -> u8 {
        let mut bits = 0u8;
        for c in 0..S / 2 {
            bits |= (((self.y[c][l].abs() > PI) & ((mask >> c) & 1 != 0)) as u8) << c;
        }
        bits
    }

    /// Whether any lane's watched angle is beyond ±π.
    #[inline(always)]
    fn any_flip(&self, mask: u8) -> bool {
        let mut any = 0u8;
        for l in 0..L {
            for c in 0..S / 2 {
                any |= ((self.y[c][l].abs() > PI) & ((mask >> c) & 1 != 0)) as u8;
            }
        }
        any != 0
    }
}

/// Where inside one step an angle passes ±π: the step of size `h` took it from `(th0, w0)` to
/// `(th1, w1)` with `|th0| ≤ π < |th1|`, and the cubic Hermite interpolant of θ (values θ and
/// derivatives ω at both ends, error O(h⁴), far below RK4's global error) is solved for
/// θ = ±π (the sign of `th1`) by Newton's method safeguarded by bisection on the bracket.
/// Returns the fraction s ∈ (0, 1] of the step. A pure function of its inputs, so the lane
/// kernel and the scalar path give the same bits from the same states.
pub fn crossing_fraction(h: f64, th0: f64, w0: f64, th1: f64, w1: f64) -> f64 {
    let target = PI.copysign(th1);
    let (d0, d1) = (th0 - target, th1 - target);
    if !(d0.is_finite() && d1.is_finite()) || d0 * d1 > 0.0 {
        return 1.0;
    }
    // p(s) − target = d0 h00 + h w0 h10 + d1 h01 + h w1 h11, in powers of s.
    let (m0, m1) = (h * w0, h * w1);
    let c1 = m0;
    let c2 = -3.0 * d0 - 2.0 * m0 + 3.0 * d1 - m1;
    let c3 = 2.0 * d0 + m0 - 2.0 * d1 + m1;
    let f = |s: f64| ((c3 * s + c2) * s + c1) * s + d0;
    let df = |s: f64| (3.0 * c3 * s + 2.0 * c2) * s + c1;
    // Bracket [lo, hi] with f(lo) on d0's side and f(hi) on d1's side.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let side = d1.signum();
    let mut s = if d1 != d0 { d0 / (d0 - d1) } else { 0.5 };
    for _ in 0..100 {
        let v = f(s);
        if v == 0.0 {
            break;
        }
        if v.signum() == side {
            hi = s;
        } else {
            lo = s;
        }
        let g = df(s);
        let mut next = if g != 0.0 { s - v / g } else { f64::NAN };
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - s).abs() <= 4.0 * f64::EPSILON * s.abs().max(f64::MIN_POSITIVE)
            || hi - lo <= f64::EPSILON
        {
            s = next;
            break;
        }
        s = next;
    }
    s.clamp(f64::MIN_POSITIVE, 1.0)
}

/// The located flip time of a step `k` (1-based) that ended at `(th1, w1)` from `(th0, w0)`:
/// `(k − 1 + s)·h`, kept inside ((k − 1)·h, k·h].
pub fn located_time(k: u64, h: f64, th0: f64, w0: f64, th1: f64, w1: f64) -> f64 {
    let (a, b) = ((k - 1) as f64 * h, k as f64 * h);
    let t = a + crossing_fraction(h, th0, w0, th1, w1) * h;
    if t <= a {
        a.next_up()
    } else {
        t.min(b)
    }
}

/// Integrates each start state `y0[p]` (θ1, θ2, ω1, ω2) until a watched link passes ±π
/// (`|θ| > π` after a step, never wrapped) or `n_steps` steps. Writes the flip step (0 = never)
/// to `k_out[p]`, the flipping link (1, 2, 3 for both at once; 0 never; [`DIVERGED`]) to
/// `link_out[p]` and the located flip time ([`located_time`], the earlier of two links; NaN
/// when none) to `t_out[p]`. Returns the RK4 steps taken, summed over pixels.
#[allow(clippy::too_many_arguments)]
pub fn flip_run(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n_steps: u32,
    h: f64,
    mask: FlipMask,
    k_out: &mut [i32],
    link_out: &mut [u8],
    t_out: &mut [f64],
) -> u64 {
    assert!(k_out.len() == y0.len() && link_out.len() == y0.len() && t_out.len() == y0.len());
    widest!(flip_lanes(
        p: &TwoLink,
        y0: &[[f64; 4]],
        n_steps: u32,
        h: f64,
        mask: FlipMask,
        k_out: &mut [i32],
        link_out: &mut [u8],
        t_out: &mut [f64]
    ) -> u64)
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn flip_lanes<const L: usize>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n_steps: u32,
    h: f64,
    mask: FlipMask,
    k_out: &mut [i32],
    link_out: &mut [u8],
    t_out: &mut [f64],
) -> u64 {
    let bits = mask.0 as u8 | (mask.1 as u8) << 1;
    flip_generic::<L, 4, TwoLink, false, false>(p, y0, n_steps, h, bits, k_out, link_out, t_out)
}

/// The flip loop of [`flip_run`] for any [`LaneModel`]: `mask` bit j watches link j + 1;
/// `link_out` gets [`LaneModel::link_code`] and `t_out` the earliest located crossing among
/// the flipped links. With `DRIVEN` each lane's step starts at its own pixel's time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn flip_generic<
    const L: usize,
    const S: usize,
    M: LaneModel<S>,
    const DAMPED: bool,
    const DRIVEN: bool,
>(
    p: &M,
    y0: &[[f64; S]],
    n_steps: u32,
    h: f64,
    mask: u8,
    k_out: &mut [i32],
    link_out: &mut [u8],
    t_out: &mut [f64],
) -> u64 {
    const IDLE: usize = usize::MAX;
    let nl = S / 2;
    let n = u64::from(n_steps);
    let mut lanes = Lanes::<L, S> { y: [[0.0; L]; S] };
    let mut who = [IDLE; L];
    let mut start = [0u64; L];
    let mut next = 0usize;
    let mut step = 0u64;
    let mut steps = 0u64;
    if n == 0 {
        k_out.fill(0);
        link_out.fill(0);
        t_out.fill(f64::NAN);
        return 0;
    }
    let load = |l: usize, lanes: &mut Lanes<L, S>, who: &mut [usize; L], next: &mut usize| {
        if *next < y0.len() {
            for c in 0..S {
                lanes.y[c][l] = y0[*next][c];
            }
            who[l] = *next;
            *next += 1;
        } else {
            for c in 0..S {
                lanes.y[c][l] = 0.0;
            }
            who[l] = IDLE;
        }
    };
    for l in 0..L {
        load(l, &mut lanes, &mut who, &mut next);
    }
    let mut deadline = n;
    let mut t = [0.0; L];
    while who.iter().any(|&w| w != IDLE) {
        if super::tile_cancelled(step + 1) {
            break;
        }
        if DRIVEN {
            for l in 0..L {
                t[l] = (step - start[l]) as f64 * h;
            }
        }
        // The state before the step, for locating a flip inside it (a copy of S·L f64).
        let prev = lanes.y;
        lanes.step::<DAMPED, DRIVEN, M>(p, h, &t);
        step += 1;
        if !(lanes.any_flip(mask) || step == deadline) {
            continue;
        }
        deadline = u64::MAX;
        for l in 0..L {
            if who[l] == IDLE {
                continue;
            }
            let k = step - start[l];
            let flipped = lanes.flipped(mask, l);
            if flipped != 0 || k == n {
                let px = who[l];
                if flipped != 0 {
                    k_out[px] = k as i32;
                    link_out[px] = M::link_code(flipped);
                    let mut at = f64::INFINITY;
                    for c in 0..nl {
                        if (flipped >> c) & 1 != 0 {
                            let (a, b) = (prev[c][l], lanes.y[c][l]);
                            let (wa, wb) = (prev[c + nl][l], lanes.y[c + nl][l]);
                            at = at.min(located_time(k, h, a, wa, b, wb));
                        }
                    }
                    t_out[px] = at;
                } else {
                    t_out[px] = f64::NAN;
                    k_out[px] = 0;
                    let finite = (0..S).all(|c| lanes.y[c][l].is_finite());
                    link_out[px] = if finite { 0 } else { DIVERGED };
                }
                steps += k;
                start[l] = step;
                load(l, &mut lanes, &mut who, &mut next);
            }
            if who[l] != IDLE {
                deadline = deadline.min(start[l] + n);
            }
        }
    }
    steps
}

/// Integrates every state in `y` in place for exactly `n_steps` steps (no stopping rule).
pub fn full_run(p: &TwoLink, y: &mut [[f64; 4]], n_steps: u32, h: f64) {
    widest!(full_lanes(
        p: &TwoLink,
        y: &mut [[f64; 4]],
        n_steps: u32,
        h: f64
    ) -> ())
}

#[inline(always)]
fn full_lanes<const L: usize>(p: &TwoLink, y: &mut [[f64; 4]], n_steps: u32, h: f64) {
    for chunk in y.chunks_mut(L) {
        let mut lanes = Lanes::<L, 4> { y: [[0.0; L]; 4] };
        for (l, s) in chunk.iter().enumerate() {
            for c in 0..4 {
                lanes.y[c][l] = s[c];
            }
        }
        for k in 0..n_steps {
            if super::tile_cancelled(u64::from(k) + 1) {
                return;
            }
            lanes.step::<false, false, TwoLink>(p, h, &[0.0; L]);
        }
        for (l, s) in chunk.iter_mut().enumerate() {
            for c in 0..4 {
                s[c] = lanes.y[c][l];
            }
        }
    }
}

/// The final-state rules of `basins::classify` for two-link chains, many pixels at once:
/// integrates each `y0[p]` until it settles (undriven: stays near one vertical equilibrium for
/// `settle.dwell_steps` steps, [`Dwell`]; driven: repeats on the stroboscopic map,
/// [`Stroboscope`], each lane at its own time with its own ring of samples), diverges, or
/// reaches `n_steps`: the same rule objects `classify` uses. Lanes refill as pixels end. `aux`
/// holds `aux.len() / y0.len()` (≥ 6) columns per pixel, filled as `classify` fills them.
/// Returns the RK4 steps taken, summed over pixels.
pub fn final_state_run(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n_steps: u32,
    h: f64,
    settle: &Settle,
    out: &mut [Outcome],
    aux: &mut [f64],
) -> u64 {
    assert!(out.len() == y0.len());
    assert!(aux.len() >= 6 * y0.len() && aux.len().is_multiple_of(y0.len().max(1)));
    match settle.strobe {
        None => widest!(basin_lanes[4, TwoLink, true](
            p: &TwoLink,
            y0: &[[f64; 4]],
            n_steps: u32,
            h: f64,
            settle: &Settle,
            out: &mut [Outcome],
            aux: &mut [f64]
        ) -> u64),
        Some(_) => widest!(strobe_lanes[4, TwoLink, true](
            p: &TwoLink,
            y0: &[[f64; 4]],
            n_steps: u32,
            h: f64,
            settle: &Settle,
            out: &mut [Outcome],
            aux: &mut [f64]
        ) -> u64),
    }
}

/// The undriven final-state loop ([`Dwell`] per lane) for any [`LaneModel`].
#[inline(always)]
pub(super) fn basin_lanes<const L: usize, const S: usize, M: LaneModel<S>, const DAMPED: bool>(
    p: &M,
    y0: &[[f64; S]],
    n: u32,
    h: f64,
    settle: &Settle,
    out: &mut [Outcome],
    aux: &mut [f64],
) -> u64 {
    let mut rules = [Dwell::new(*settle); L];
    rule_lanes::<L, S, M, DAMPED, false, _>(p, y0, n, h, &mut rules, out, aux)
}

/// The driven final-state loop ([`Stroboscope`] per lane) for any [`LaneModel`].
#[inline(always)]
pub(super) fn strobe_lanes<const L: usize, const S: usize, M: LaneModel<S>, const DAMPED: bool>(
    p: &M,
    y0: &[[f64; S]],
    n: u32,
    h: f64,
    settle: &Settle,
    out: &mut [Outcome],
    aux: &mut [f64],
) -> u64 {
    let strobe = settle.strobe.expect("driven map");
    let mut rings = vec![Vec::new(); L];
    let mut rules: Vec<Stroboscope<'_>> = rings
        .iter_mut()
        .map(|r| Stroboscope::new(r, *settle, strobe))
        .collect();
    rule_lanes::<L, S, M, DAMPED, true, _>(p, y0, n, h, &mut rules, out, aux)
}

/// Runs the pixels of `y0` through `rules` (one per lane), refilling a lane as its pixel ends;
/// with `DRIVEN` each lane's step starts at its own time, `rules[l].steps() · h`.
#[inline(always)]
fn rule_lanes<
    const L: usize,
    const S: usize,
    M: LaneModel<S>,
    const DAMPED: bool,
    const DRIVEN: bool,
    R: Rule,
>(
    p: &M,
    y0: &[[f64; S]],
    n: u32,
    h: f64,
    rules: &mut [R],
    out: &mut [Outcome],
    aux: &mut [f64],
) -> u64 {
    const IDLE: usize = usize::MAX;
    let m = aux.len() / y0.len().max(1);
    let mut lanes = Lanes::<L, S> { y: [[0.0; L]; S] };
    let mut who = [IDLE; L];
    let mut next = 0usize;
    let mut steps = 0u64;
    // Loads the next pixel that does not end at its start into lane l (IDLE when none is left).
    let load = |l: usize,
                lanes: &mut Lanes<L, S>,
                who: &mut [usize; L],
                rules: &mut [R],
                next: &mut usize,
                out: &mut [Outcome],
                aux: &mut [f64]| {
        while *next < y0.len() {
            let (px, y) = (*next, y0[*next]);
            *next += 1;
            if let Some(r) = rules[l].start(&y, n, h, &mut aux[px * m..][..m]) {
                out[px] = r;
                continue;
            }
            for c in 0..S {
                lanes.y[c][l] = y[c];
            }
            who[l] = px;
            return;
        }
        for c in 0..S {
            lanes.y[c][l] = 0.0;
        }
        who[l] = IDLE;
    };
    for l in 0..L {
        load(l, &mut lanes, &mut who, rules, &mut next, out, aux);
    }
    let mut t = [0.0; L];
    let mut iteration = 0u64;
    while who.iter().any(|&w| w != IDLE) {
        iteration += 1;
        if super::tile_cancelled(iteration) {
            break;
        }
        if DRIVEN {
            for l in 0..L {
                t[l] = f64::from(rules[l].steps()) * h;
            }
        }
        lanes.step::<DAMPED, DRIVEN, M>(p, h, &t);
        for l in 0..L {
            if who[l] == IDLE {
                continue;
            }
            let y: [f64; S] = std::array::from_fn(|c| lanes.y[c][l]);
            let px = who[l];
            if let Some(r) = rules[l].advance(&y, n, h, &mut aux[px * m..][..m]) {
                out[px] = r;
                steps += r.steps;
                load(l, &mut lanes, &mut who, rules, &mut next, out, aux);
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIT: TwoLink = TwoLink {
        a11: 2.0,
        a12: 1.0,
        a22: 1.0,
        gb1: 2.0 * 9.81,
        gb2: 9.81,
        d11: 0.0,
        d12: 0.0,
        d22: 0.0,
        drive: TwoLinkDrive {
            b1: 0.0,
            b2: 0.0,
            g: 0.0,
            torque: [0.0; 3],
            pivot: [0.0; 4],
        },
    };

    /// Every lane width and the scalar step give the same bits.
    #[test]
    fn lane_widths_agree_with_scalar_steps() {
        let y0: Vec<[f64; 4]> = (0..37)
            .map(|i| [-3.0 + 0.16 * i as f64, 2.9 - 0.15 * i as f64, 0.0, 0.0])
            .collect();
        let n = 500;
        let mut want_k = vec![0i32; y0.len()];
        let mut want_t = vec![f64::NAN; y0.len()];
        for (p, y) in y0.iter().enumerate() {
            let mut s = *y;
            for k in 1..=n {
                let a = s;
                UNIT.rk4::<false, false>(0.01, 0.0, &mut s);
                let f = [s[0].abs() > PI, s[1].abs() > PI];
                if f[0] || f[1] {
                    want_k[p] = k;
                    want_t[p] = (0..2)
                        .filter(|&c| f[c])
                        .map(|c| located_time(k as u64, 0.01, a[c], a[c + 2], s[c], s[c + 2]))
                        .fold(f64::INFINITY, f64::min);
                    break;
                }
            }
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for lanes in [1usize, 4, 8, 16] {
            let mut k = vec![-1i32; y0.len()];
            let mut link = vec![0u8; y0.len()];
            let mut t = vec![0.0; y0.len()];
            let (m, nn) = ((true, true), n as u32);
            let steps = match lanes {
                1 => flip_lanes::<1>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                4 => flip_lanes::<4>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                8 => flip_lanes::<8>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                _ => flip_run(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
            };
            for (q, &kq) in k.iter().enumerate() {
                if kq > 0 {
                    let (a, b) = (f64::from(kq - 1) * 0.01, f64::from(kq) * 0.01);
                    assert!(
                        t[q] > a && t[q] <= b,
                        "{lanes} lanes pixel {q}: {} in ({a}, {b}]",
                        t[q]
                    );
                } else {
                    assert!(t[q].is_nan());
                }
            }
            assert_eq!(k, want_k, "{lanes} lanes");
            assert_eq!(bits(&t), bits(&want_t), "{lanes} lanes: located times");
            let want: u64 = want_k
                .iter()
                .map(|&k| if k > 0 { k as u64 } else { n as u64 })
                .sum();
            assert_eq!(steps, want);
        }
    }

    /// The root of a known cubic: θ(s) = 3 + 0.5 s + 0.1 s² − 0.02 s³ over a step of h = 0.5
    /// has Hermite data θ and ω = θ'/h at both ends, so the interpolant is θ itself and the
    /// crossing of π is its root (found here by bisection to the last bit).
    #[test]
    fn crossing_of_an_exact_cubic() {
        let h = 0.5;
        let th = |s: f64| 3.0 + 0.5 * s + 0.1 * s * s - 0.02 * s * s * s;
        let w = |s: f64| (0.5 + 0.2 * s - 0.06 * s * s) / h;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let m = 0.5 * (lo + hi);
            if th(m) > PI {
                hi = m;
            } else {
                lo = m;
            }
        }
        let s = crossing_fraction(h, th(0.0), w(0.0), th(1.0), w(1.0));
        assert!((s - lo).abs() < 1e-14, "{s} vs {lo}");
        // The mirror image crosses −π at the same fraction.
        let s2 = crossing_fraction(h, -th(0.0), -w(0.0), -th(1.0), -w(1.0));
        assert!((s2 - lo).abs() < 1e-14);
        let t = located_time(7, h, th(0.0), w(0.0), th(1.0), w(1.0));
        assert!((t - (6.0 + lo) * h).abs() < 1e-13);
    }

    /// The final-state kernel gives the same pixels at every lane width (lanes refill at
    /// different moments, so this also checks the bookkeeping), and a damped pixel from rest
    /// near hanging settles at the hanging equilibrium with no turns.
    #[test]
    fn basin_lane_widths_agree() {
        use super::super::basins::label;
        let p = TwoLink {
            d11: 0.5,
            d12: -0.1,
            d22: 0.3,
            ..UNIT
        };
        let settle = Settle {
            angle_tol: 0.02,
            omega_tol: 0.02,
            dwell_steps: 50,
            strobe: None,
        };
        let y0: Vec<[f64; 4]> = (0..41)
            .map(|i| [-3.0 + 0.15 * i as f64, 2.9 - 0.14 * i as f64, 0.0, 0.0])
            .chain([[0.0; 4], [1e-3, 0.0, 0.0, 0.0]])
            .collect();
        let np = y0.len();
        let blank = Outcome {
            label: 0,
            settle_time: f64::NAN,
            steps: 0,
        };
        let bits = |o: &[Outcome], aux: &[f64]| -> Vec<(u8, u64, u64, Vec<u64>)> {
            o.iter()
                .enumerate()
                .map(|(p, r)| {
                    let a = aux[6 * p..6 * p + 6].iter().map(|v| v.to_bits()).collect();
                    (r.label, r.settle_time.to_bits(), r.steps, a)
                })
                .collect()
        };
        let (mut want, mut want_aux) = (vec![blank; np], vec![f64::NAN; 6 * np]);
        let s1 = basin_lanes::<1, 4, TwoLink, true>(
            &p,
            &y0,
            3000,
            0.01,
            &settle,
            &mut want,
            &mut want_aux,
        );
        for lanes in [4usize, 8, 16] {
            let (mut got, mut aux) = (vec![blank; np], vec![f64::NAN; 6 * np]);
            let s = match lanes {
                4 => basin_lanes::<4, 4, TwoLink, true>(
                    &p, &y0, 3000, 0.01, &settle, &mut got, &mut aux,
                ),
                8 => basin_lanes::<8, 4, TwoLink, true>(
                    &p, &y0, 3000, 0.01, &settle, &mut got, &mut aux,
                ),
                _ => final_state_run(&p, &y0, 3000, 0.01, &settle, &mut got, &mut aux),
            };
            assert_eq!(bits(&got, &aux), bits(&want, &want_aux), "{lanes} lanes");
            assert_eq!(s, s1);
        }
        // The start at rest hanging settles at once (dwell counted from step 0).
        assert_eq!((want[41].label, want[41].steps), (label::EQUILIBRIUM, 50));
        assert_eq!(want[41].settle_time, 0.0);
        assert_eq!(&want_aux[6 * 41 + 2..6 * 41 + 4], &[0.0, 0.0]);
        assert_eq!(want[42].label, label::EQUILIBRIUM);
        assert_eq!(&want_aux[6 * 42 + 2..6 * 42 + 4], &[0.0, 0.0]);
    }

    /// The driven final-state kernel gives the same pixels at every lane width (each lane
    /// keeps its own time, so a refilled lane restarts its drive phase at t = 0).
    #[test]
    fn strobe_lane_widths_agree() {
        let p = TwoLink {
            d11: 0.8,
            d12: 0.0,
            d22: 0.6,
            drive: TwoLinkDrive {
                b1: 2.0,
                b2: 1.0,
                g: 9.81,
                torque: [1.5, 2.0, 0.3],
                pivot: [0.05, 0.02, 2.0, 0.0],
            },
            ..UNIT
        };
        let settle = Settle::stroboscopic(1e-3, 100, 4, 3);
        let y0: Vec<[f64; 4]> = (0..23)
            .map(|i| [-3.0 + 0.27 * i as f64, 2.9 - 0.25 * i as f64, 0.0, 0.0])
            .collect();
        let np = y0.len();
        let h = std::f64::consts::PI / 100.0;
        let blank = Outcome {
            label: 0,
            settle_time: f64::NAN,
            steps: 0,
        };
        let run = |lanes: usize| {
            let (mut o, mut aux) = (vec![blank; np], vec![f64::NAN; 6 * np]);
            let s = match lanes {
                1 => {
                    strobe_lanes::<1, 4, TwoLink, true>(&p, &y0, 4000, h, &settle, &mut o, &mut aux)
                }
                4 => {
                    strobe_lanes::<4, 4, TwoLink, true>(&p, &y0, 4000, h, &settle, &mut o, &mut aux)
                }
                8 => {
                    strobe_lanes::<8, 4, TwoLink, true>(&p, &y0, 4000, h, &settle, &mut o, &mut aux)
                }
                _ => final_state_run(&p, &y0, 4000, h, &settle, &mut o, &mut aux),
            };
            let bits: Vec<(u8, u64, u64)> = o
                .iter()
                .map(|r| (r.label, r.settle_time.to_bits(), r.steps))
                .collect();
            let aux: Vec<u64> = aux.iter().map(|v| v.to_bits()).collect();
            (bits, aux, s)
        };
        let want = run(1);
        for lanes in [4, 8, 16] {
            assert_eq!(run(lanes), want, "{lanes} lanes");
        }
    }
}
