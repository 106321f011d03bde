//! The lane engine: the one refill loop and the one dispatch under every lane map kind.
//!
//! [`run`] picks the compiled combination of (damped, driven) and, through [`Width`], the lane
//! width (the widest this CPU allows, or a fixed one for the tests); [`lanes`] is the loop. It
//! keeps `L` pixels in flight in [`Lanes`], steps them all with [`rk4`], and hands each lane to
//! the map kind's [`Reduction`] after the step, which says when its pixel ended; the lane then
//! takes the next pixel at once. A step in which [`Reduction::due`] finds no lane to look at
//! (and no pixel reaches [`Reduction::deadline`]) skips the per-lane pass altogether (the flip
//! kernel's fast path). A reduction with [`Reduction::QUAD`] also gets, after each step, the
//! step's RK4 quadrature of its [`Reduction::stage`] ([`rk4_quad`]); every other reduction
//! compiles that out.

use super::{simd, Simd};

/// What the lanes need of a chain with state dimension `S = 2N` (angles first, then angular
/// velocities): its state derivative and, with `K > 0`, the derivatives of `K` deviation
/// vectors along it, and how a pixel's flipped links are reported.
pub trait LaneModel<const S: usize> {
    /// (ẏ, δ̇₁..δ̇_K) at time `t`; `DAMPED` adds −D θ̇, `DRIVEN` the drive (the time is read only
    /// then). A model without tangent equations accepts only `K = 0`.
    fn deriv<const K: usize, const DAMPED: bool, const DRIVEN: bool>(
        &self,
        t: f64,
        y: &[f64; S],
        v: &[[f64; S]; K],
    ) -> ([f64; S], [[f64; S]; K]);

    /// The `link_out` code of a flip step from the set of links beyond ±π (bit j = link j + 1),
    /// as the scalar path reports it.
    fn link_code(flipped: u8) -> u8;
}

/// One classical RK4 step of size `h` from time `t` of the state and its `K` deviation vectors
/// together (the stage formulas of `integrate::Rk4` on the augmented vector, so the deviations
/// follow the exact tangent map of the discrete step). Returns the deviations' derivatives at
/// the start of the step (the first stage), from which MEGNO takes r.
#[inline(always)]
pub fn rk4<
    const S: usize,
    const K: usize,
    M: LaneModel<S>,
    const DAMPED: bool,
    const DRIVEN: bool,
>(
    m: &M,
    h: f64,
    t: f64,
    y: &mut [f64; S],
    v: &mut [[f64; S]; K],
) -> [[f64; S]; K] {
    rk4_quad::<S, K, M, DAMPED, DRIVEN, false>(m, h, t, y, v, |_| 0.0).0
}

/// [`rk4`], and with `QUAD` the step's RK4 quadrature of `f` of the state derivative,
/// |h|/6 (f(k₁) + 2 f(k₂) + 2 f(k₃) + f(k₄)) (a positive measure for either sign of `h`: the
/// Lagrangian descriptor's ∫ Σ|ẋᵢ|^p dt rides along as one more RK4 component this way).
/// Without `QUAD`, `f` is never called and the sum is 0.
#[inline(always)]
pub fn rk4_quad<
    const S: usize,
    const K: usize,
    M: LaneModel<S>,
    const DAMPED: bool,
    const DRIVEN: bool,
    const QUAD: bool,
>(
    m: &M,
    h: f64,
    t: f64,
    y: &mut [f64; S],
    v: &mut [[f64; S]; K],
    f: impl Fn(&[f64; S]) -> f64,
) -> ([[f64; S]; K], f64) {
    let hh = 0.5 * h;
    let h6 = h / 6.0;
    let (tm, te) = (t + hh, t + h);
    let stage = |a: f64, y: &[f64; S], v: &[[f64; S]; K], ky: &[f64; S], kv: &[[f64; S]; K]| {
        let mut u = [0.0; S];
        let mut w = [[0.0; S]; K];
        for c in 0..S {
            u[c] = y[c] + a * ky[c];
            for j in 0..K {
                w[j][c] = v[j][c] + a * kv[j][c];
            }
        }
        (u, w)
    };
    let (k1, l1) = m.deriv::<K, DAMPED, DRIVEN>(t, y, v);
    let (u, w) = stage(hh, y, v, &k1, &l1);
    let (k2, l2) = m.deriv::<K, DAMPED, DRIVEN>(tm, &u, &w);
    let (u, w) = stage(hh, y, v, &k2, &l2);
    let (k3, l3) = m.deriv::<K, DAMPED, DRIVEN>(tm, &u, &w);
    let (u, w) = stage(h, y, v, &k3, &l3);
    let (k4, l4) = m.deriv::<K, DAMPED, DRIVEN>(te, &u, &w);
    for c in 0..S {
        y[c] += h6 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
        for j in 0..K {
            v[j][c] += h6 * (l1[j][c] + 2.0 * l2[j][c] + 2.0 * l3[j][c] + l4[j][c]);
        }
    }
    let quad = if QUAD {
        h.abs() / 6.0 * (f(&k1) + 2.0 * f(&k2) + 2.0 * f(&k3) + f(&k4))
    } else {
        0.0
    };
    (l1, quad)
}

/// MEGNO's r = δ̇·δ / δ·δ (products summed in order, as the scalar path sums them).
#[inline(always)]
pub fn rate<const S: usize>(dv: &[f64; S], v: &[f64; S]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for c in 0..S {
        num += dv[c] * v[c];
        den += v[c] * v[c];
    }
    num / den
}

/// Structure-of-arrays state (`S` components) and `K` deviation vectors of `L` lanes.
pub struct Lanes<const L: usize, const S: usize, const K: usize> {
    pub y: [[f64; L]; S],
    pub v: [[[f64; L]; S]; K],
}

impl<const L: usize, const S: usize, const K: usize> Lanes<L, S, K> {
    fn zero() -> Self {
        Lanes {
            y: [[0.0; L]; S],
            v: [[[0.0; L]; S]; K],
        }
    }

    /// Lane `l`'s state and deviation vectors.
    #[inline(always)]
    pub fn get(&self, l: usize) -> ([f64; S], [[f64; S]; K]) {
        let y: [f64; S] = std::array::from_fn(|c| self.y[c][l]);
        let mut v = [[0.0; S]; K];
        for (j, vj) in v.iter_mut().enumerate() {
            for c in 0..S {
                vj[c] = self.v[j][c][l];
            }
        }
        (y, v)
    }

    #[inline(always)]
    pub fn set(&mut self, l: usize, y: &[f64; S], v: &[[f64; S]; K]) {
        for c in 0..S {
            self.y[c][l] = y[c];
            for j in 0..K {
                self.v[j][c][l] = v[j][c];
            }
        }
    }

    /// One step of every lane, each from its own time `t[l]`; with `RATE`, `r[l]` gets MEGNO's
    /// r at the start of the step (from the first stage, so it costs no evaluation); with
    /// `QUAD` (no deviation vectors), `q[l]` gets the step's quadrature of `f` ([`rk4_quad`]).
    #[inline(always)]
    fn step<
        M: LaneModel<S>,
        const DAMPED: bool,
        const DRIVEN: bool,
        const RATE: bool,
        const QUAD: bool,
    >(
        &mut self,
        m: &M,
        h: f64,
        t: &[f64; L],
        r: &mut [f64; L],
        q: &mut [f64; L],
        f: impl Fn(&[f64; S]) -> f64 + Copy,
    ) {
        if K == 0 {
            // Two independent halves per iteration: the vector unit gets two dependency chains
            // to overlap (the step is one long chain of polynomials and a division).
            let mut none = [[0.0; S]; K];
            let half = L / 2;
            for l in 0..half {
                let n = l + half;
                let mut a: [f64; S] = std::array::from_fn(|c| self.y[c][l]);
                let mut b: [f64; S] = std::array::from_fn(|c| self.y[c][n]);
                let (_, qa) =
                    rk4_quad::<S, K, M, DAMPED, DRIVEN, QUAD>(m, h, t[l], &mut a, &mut none, f);
                let (_, qb) =
                    rk4_quad::<S, K, M, DAMPED, DRIVEN, QUAD>(m, h, t[n], &mut b, &mut none, f);
                for c in 0..S {
                    self.y[c][l] = a[c];
                    self.y[c][n] = b[c];
                }
                if QUAD {
                    q[l] = qa;
                    q[n] = qb;
                }
            }
            if L % 2 == 1 {
                let l = L - 1;
                let mut s: [f64; S] = std::array::from_fn(|c| self.y[c][l]);
                let (_, qs) =
                    rk4_quad::<S, K, M, DAMPED, DRIVEN, QUAD>(m, h, t[l], &mut s, &mut none, f);
                for c in 0..S {
                    self.y[c][l] = s[c];
                }
                if QUAD {
                    q[l] = qs;
                }
            }
        } else {
            for l in 0..L {
                let (mut y, mut v) = self.get(l);
                let v0 = if RATE { v[0] } else { [0.0; S] };
                let l1 = rk4::<S, K, M, DAMPED, DRIVEN>(m, h, t[l], &mut y, &mut v);
                if RATE {
                    r[l] = rate(&l1[0], &v0);
                }
                self.set(l, &y, &v);
            }
        }
    }
}

/// Lane `l` after a step, as [`Reduction::advance`] sees it.
pub struct At<'a, const L: usize, const S: usize, const K: usize> {
    pub lanes: &'a mut Lanes<L, S, K>,
    pub l: usize,
    /// The lane's pixel (its index in the start states).
    pub px: usize,
    /// Steps this pixel has taken, this one included.
    pub k: u64,
    pub h: f64,
    /// Every lane's state before the step (filled only with [`Reduction::PREV`]).
    pub prev: &'a [[f64; L]; S],
    /// MEGNO's r at the start of the step (only with [`Reduction::RATE`]).
    pub rate: f64,
    /// The step's RK4 quadrature of [`Reduction::stage`] (only with [`Reduction::QUAD`]).
    pub quad: f64,
}

/// What a lane map kind does with its pixels: how a pixel starts, what its lane does after each
/// step, and how a finished pixel is written out (into the outputs the reduction holds).
pub trait Reduction<const S: usize, const K: usize> {
    /// One lane's running state for its pixel.
    type Lane;
    /// Whether [`At::rate`] is wanted.
    const RATE: bool = false;
    /// Whether [`At::prev`] is wanted.
    const PREV: bool = false;
    /// Whether [`At::quad`] is wanted (reductions without deviation vectors only).
    const QUAD: bool = false;

    /// What [`At::quad`] integrates: a function of the state derivative at each RK4 stage.
    #[inline(always)]
    fn stage(&self, _k: &[f64; S]) -> f64 {
        0.0
    }

    /// A fresh lane state.
    fn lane(&self) -> Self::Lane;

    /// The deviation vectors every pixel starts with.
    fn vectors(&self) -> [[f64; S]; K] {
        [[0.0; S]; K]
    }

    /// Steps by which every pixel has ended ([`u64::MAX`]: no such bound).
    fn deadline(&self) -> u64 {
        u64::MAX
    }

    /// Whether any lane needs its [`advance`](Self::advance) after this step; when not (and
    /// no pixel reached the deadline) the step passes without a per-lane pass.
    #[inline(always)]
    fn due<const L: usize>(&self, _lanes: &Lanes<L, S, K>) -> bool {
        true
    }

    /// Starts pixel `px` at `y` in a lane; true when it ends there (written out, no steps).
    #[inline(always)]
    fn start(&mut self, _lane: &mut Self::Lane, _px: usize, _y: &[f64; S]) -> bool {
        false
    }

    /// After a step of lane `at.l`: `None` to go on, `Some(steps)` once its pixel ended (and
    /// was written out), `steps` counted into the run's total.
    fn advance<const L: usize, M: LaneModel<S>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        m: &M,
        lane: &mut Self::Lane,
        at: At<'_, L, S, K>,
    ) -> Option<u64>;
}

/// How many lanes run side by side: [`Widest`] in production, [`Fixed`] for the tests that
/// check every width gives the same bits.
pub trait Width {
    fn run<
        const S: usize,
        const K: usize,
        M: LaneModel<S>,
        R: Reduction<S, K>,
        const DAMPED: bool,
        const DRIVEN: bool,
    >(
        m: &M,
        y0: &[[f64; S]],
        h: f64,
        red: &mut R,
    ) -> u64;
}

/// The widest lanes this CPU's instruction set allows: 16 with AVX-512, 8 with AVX2+FMA, 4
/// otherwise. The two wrappers enable those features for the whole inlined loop.
pub struct Widest;

impl Width for Widest {
    #[inline(always)]
    fn run<
        const S: usize,
        const K: usize,
        M: LaneModel<S>,
        R: Reduction<S, K>,
        const DAMPED: bool,
        const DRIVEN: bool,
    >(
        m: &M,
        y0: &[[f64; S]],
        h: f64,
        red: &mut R,
    ) -> u64 {
        // `lanes::<$l>` compiled with the instruction set `$features` enabled.
        macro_rules! with_features {
            ($name:ident, $features:literal, $l:literal) => {
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = $features)]
                unsafe fn $name<
                    const S: usize,
                    const K: usize,
                    M: LaneModel<S>,
                    R: Reduction<S, K>,
                    const DAMPED: bool,
                    const DRIVEN: bool,
                >(
                    m: &M,
                    y0: &[[f64; S]],
                    h: f64,
                    red: &mut R,
                ) -> u64 {
                    lanes::<$l, S, K, M, R, DAMPED, DRIVEN>(m, y0, h, red)
                }
            };
        }
        with_features!(wide, "avx512f,avx512dq,avx512vl,avx2,fma", 16);
        with_features!(mid, "avx2,fma", 8);
        match simd() {
            // SAFETY: `simd()` only names features detected on this CPU.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { wide::<S, K, M, R, DAMPED, DRIVEN>(m, y0, h, red) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { mid::<S, K, M, R, DAMPED, DRIVEN>(m, y0, h, red) },
            _ => lanes::<4, S, K, M, R, DAMPED, DRIVEN>(m, y0, h, red),
        }
    }
}

/// `L` lanes, compiled for the baseline instruction set (the same bits as any other width).
pub struct Fixed<const L: usize>;

impl<const L: usize> Width for Fixed<L> {
    fn run<
        const S: usize,
        const K: usize,
        M: LaneModel<S>,
        R: Reduction<S, K>,
        const DAMPED: bool,
        const DRIVEN: bool,
    >(
        m: &M,
        y0: &[[f64; S]],
        h: f64,
        red: &mut R,
    ) -> u64 {
        lanes::<L, S, K, M, R, DAMPED, DRIVEN>(m, y0, h, red)
    }
}

/// Runs the pixels `y0` through `red` on lanes of width `W`, with the damping (`damped`) and
/// the drive (`driven`) compiled in only where asked: the one dispatch of every lane map kind.
/// Returns the steps the reduction counted, summed over pixels.
pub fn run<W: Width, const S: usize, const K: usize, M: LaneModel<S>, R: Reduction<S, K>>(
    m: &M,
    damped: bool,
    driven: bool,
    y0: &[[f64; S]],
    h: f64,
    red: &mut R,
) -> u64 {
    match (damped, driven) {
        (false, false) => W::run::<S, K, M, R, false, false>(m, y0, h, red),
        (true, false) => W::run::<S, K, M, R, true, false>(m, y0, h, red),
        (false, true) => W::run::<S, K, M, R, false, true>(m, y0, h, red),
        (true, true) => W::run::<S, K, M, R, true, true>(m, y0, h, red),
    }
}

/// The refill loop: runs the pixels of `y0` on `L` lanes through `red`, refilling a lane as its
/// pixel ends; with `DRIVEN` each lane's step starts at its own pixel's time (its steps · h).
#[inline(always)]
pub fn lanes<
    const L: usize,
    const S: usize,
    const K: usize,
    M: LaneModel<S>,
    R: Reduction<S, K>,
    const DAMPED: bool,
    const DRIVEN: bool,
>(
    m: &M,
    y0: &[[f64; S]],
    h: f64,
    red: &mut R,
) -> u64 {
    const IDLE: usize = usize::MAX;
    let v0 = red.vectors();
    let n = red.deadline();
    let mut lanes = Lanes::<L, S, K>::zero();
    let mut acc: [R::Lane; L] = std::array::from_fn(|_| red.lane());
    let mut who = [IDLE; L];
    let mut start = [0u64; L];
    let mut next = 0usize;
    let mut step = 0u64;
    let mut steps = 0u64;
    // Loads the next pixel that does not end at its start into lane l (IDLE when none is left).
    let load = |l: usize,
                lanes: &mut Lanes<L, S, K>,
                who: &mut [usize; L],
                acc: &mut [R::Lane; L],
                red: &mut R,
                next: &mut usize| {
        while *next < y0.len() {
            let px = *next;
            *next += 1;
            if red.start(&mut acc[l], px, &y0[px]) {
                continue;
            }
            lanes.set(l, &y0[px], &v0);
            who[l] = px;
            return;
        }
        lanes.set(l, &[0.0; S], &v0);
        who[l] = IDLE;
    };
    for l in 0..L {
        load(l, &mut lanes, &mut who, &mut acc, red, &mut next);
    }
    let mut deadline = n;
    let mut t = [0.0; L];
    let mut r = [0.0; L];
    let mut q = [0.0; L];
    let mut prev = [[0.0; L]; S];
    while who.iter().any(|&w| w != IDLE) {
        if super::super::tile_cancelled(step + 1) {
            break;
        }
        if DRIVEN {
            for l in 0..L {
                t[l] = (step - start[l]) as f64 * h;
            }
        }
        if R::PREV {
            // The state before the step (a copy of S·L f64).
            prev = lanes.y;
        }
        if R::RATE {
            lanes.step::<M, DAMPED, DRIVEN, true, false>(m, h, &t, &mut r, &mut q, |_| 0.0);
        } else if R::QUAD {
            let f = |k: &[f64; S]| red.stage(k);
            lanes.step::<M, DAMPED, DRIVEN, false, true>(m, h, &t, &mut r, &mut q, f);
        } else {
            lanes.step::<M, DAMPED, DRIVEN, false, false>(m, h, &t, &mut r, &mut q, |_| 0.0);
        }
        step += 1;
        if !(red.due(&lanes) || step == deadline) {
            continue;
        }
        deadline = u64::MAX;
        for l in 0..L {
            if who[l] == IDLE {
                continue;
            }
            let at = At {
                lanes: &mut lanes,
                l,
                px: who[l],
                k: step - start[l],
                h,
                prev: &prev,
                rate: r[l],
                quad: q[l],
            };
            if let Some(s) = red.advance::<L, M, DAMPED, DRIVEN>(m, &mut acc[l], at) {
                steps += s;
                start[l] = step;
                load(l, &mut lanes, &mut who, &mut acc, red, &mut next);
            }
            if n != u64::MAX && who[l] != IDLE {
                deadline = deadline.min(start[l] + n);
            }
        }
    }
    steps
}
