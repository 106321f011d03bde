//! NAFF's sample loops, the hot part of every pass over a signal: the phase recurrences that
//! give e^{iω s_k}, the windowed sums Σ c_k e_k (with the weights s_k, s_k² of the derivatives),
//! a line's subtraction and the window's real sums. Each is written once over [`LANES`]
//! interleaved partial sums and compiled per instruction set ([`multiversion`]); the partial
//! sums are added in one fixed order ([`tree_sum`]), so results do not depend on the CPU.

use crate::analysis::simd::multiversion;
use num_complex::Complex64;

/// Interleaved phase recurrences and partial sums (a power of two): one AVX-512 vector.
const LANES: usize = 8;
/// Samples per block of the phase recurrences (a multiple of [`LANES`]).
pub(super) const RESEED: usize = 32;
/// Blocks between exact block seeds.
pub(super) const EXACT_EVERY: usize = 4;

/// Fills `re`, `im` with e^{iω s_k} for k = 0..n, s_k = (k − (n−1)/2)·dt.
///
/// The exponentials come from [`LANES`] interleaved phase recurrences (step e^{iω·LANES·dt},
/// lane = k mod LANES inside a block) so that the multiplications do not wait on each other and
/// run as one vector, restarted every [`RESEED`] samples from a block seed. The seeds
/// themselves step by e^{iω·RESEED·dt} and are recomputed exactly with `sin_cos` every
/// [`EXACT_EVERY`] blocks; every step factor is an exact `sin_cos`. A phase is thus at most ~8
/// roundings from an exact one (≈ 2e-15), better than the one long recurrence it replaces, at a
/// sixteenth of the `sin_cos` calls.
#[inline(always)]
fn phases_in(n: usize, dt: f64, omega: f64, re: &mut [f64], im: &mut [f64]) {
    let (re, im) = (&mut re[..n], &mut im[..n]);
    let centre = (n as f64 - 1.0) / 2.0;
    let exact = |x: f64| {
        let (s, c) = x.sin_cos();
        (c, s)
    };
    let phase = |k: usize| exact(omega * (k as f64 - centre) * dt);
    // Every step factor from the one rounded ω·dt.
    let x = omega * dt;
    let mut rr = [1.0; LANES];
    let mut ri = [0.0; LANES];
    for l in 1..LANES {
        (rr[l], ri[l]) = exact(l as f64 * x);
    }
    let (sr, si) = exact(LANES as f64 * x);
    let (br, bi) = exact(RESEED as f64 * x);
    let (mut pr, mut pi) = phase(0);
    let mut k0 = 0;
    let mut block = 0;
    while k0 < n {
        if block > 0 && block % EXACT_EVERY == 0 {
            (pr, pi) = phase(k0);
        }
        let end = (k0 + RESEED).min(n);
        let mut er = [0.0; LANES];
        let mut ei = [0.0; LANES];
        for l in 0..LANES {
            er[l] = pr * rr[l] - pi * ri[l];
            ei[l] = pr * ri[l] + pi * rr[l];
        }
        let mut k = k0;
        while k + LANES <= end {
            re[k..k + LANES].copy_from_slice(&er);
            im[k..k + LANES].copy_from_slice(&ei);
            for l in 0..LANES {
                let (a, b) = (er[l], ei[l]);
                er[l] = a * sr - b * si;
                ei[l] = a * si + b * sr;
            }
            k += LANES;
        }
        let m = end - k;
        re[k..end].copy_from_slice(&er[..m]);
        im[k..end].copy_from_slice(&ei[..m]);
        (pr, pi) = (pr * br - pi * bi, pr * bi + pi * br);
        k0 = end;
        block += 1;
    }
}

/// Σ_k c_k e_k and, with `DERIV`, Σ c_k e_k s_k and Σ c_k e_k s_k² (`c`, `e` complex as
/// (re, im) slices of one length, `s`, `s2` real), each in [`LANES`] partial sums (lane = k mod
/// LANES) added in a fixed tree at the end: one vector of accumulators, and the same bits on
/// every instruction set.
#[inline(always)]
fn sums<const DERIV: bool>(
    c: (&[f64], &[f64]),
    e: (&[f64], &[f64]),
    s: &[f64],
    s2: &[f64],
) -> [Complex64; 3] {
    let n = c.0.len();
    let (cr, ci, er, ei) = (c.0, &c.1[..n], &e.0[..n], &e.1[..n]);
    let (s, s2) = if DERIV { (&s[..n], &s2[..n]) } else { (s, s2) };
    let mut acc = [[0.0; LANES]; 6];
    let full = n / LANES * LANES;
    for b in (0..full).step_by(LANES) {
        let (cr, ci, er, ei) = (block(cr, b), block(ci, b), block(er, b), block(ei, b));
        // One operation over the whole block per statement, so that each is one vector op.
        let vr: [f64; LANES] = std::array::from_fn(|l| cr[l] * er[l] - ci[l] * ei[l]);
        let vi: [f64; LANES] = std::array::from_fn(|l| cr[l] * ei[l] + ci[l] * er[l]);
        for l in 0..LANES {
            acc[0][l] += vr[l];
        }
        for l in 0..LANES {
            acc[1][l] += vi[l];
        }
        if DERIV {
            let (s, s2) = (block(s, b), block(s2, b));
            for l in 0..LANES {
                acc[2][l] += vr[l] * s[l];
            }
            for l in 0..LANES {
                acc[3][l] += vi[l] * s[l];
            }
            for l in 0..LANES {
                acc[4][l] += vr[l] * s2[l];
            }
            for l in 0..LANES {
                acc[5][l] += vi[l] * s2[l];
            }
        }
    }
    for k in full..n {
        let l = k - full;
        let vr = cr[k] * er[k] - ci[k] * ei[k];
        let vi = cr[k] * ei[k] + ci[k] * er[k];
        acc[0][l] += vr;
        acc[1][l] += vi;
        if DERIV {
            acc[2][l] += vr * s[k];
            acc[3][l] += vi * s[k];
            acc[4][l] += vr * s2[k];
            acc[5][l] += vi * s2[k];
        }
    }
    let pair = |i: usize| Complex64::new(tree_sum(&acc[2 * i]), tree_sum(&acc[2 * i + 1]));
    if DERIV {
        [pair(0), pair(1), pair(2)]
    } else {
        [pair(0), Complex64::default(), Complex64::default()]
    }
}

/// `r + a e` over the samples, complex as (re, im) slices.
#[inline(always)]
fn add_line_in(r: (&mut [f64], &mut [f64]), a: Complex64, e: (&[f64], &[f64])) {
    let n = r.0.len();
    let (rr, ri, er, ei) = (r.0, &mut r.1[..n], &e.0[..n], &e.1[..n]);
    for k in 0..n {
        rr[k] += a.re * er[k] - a.im * ei[k];
        ri[k] += a.re * ei[k] + a.im * er[k];
    }
}

/// Σ_k w_k x_k in [`LANES`] partial sums, added as [`sums`] adds them.
#[inline(always)]
fn real_sum_in(w: &[f64], x: &[f64]) -> f64 {
    let n = w.len();
    let x = &x[..n];
    let mut acc = [0.0; LANES];
    let full = n / LANES * LANES;
    for b in (0..full).step_by(LANES) {
        let (w, x) = (block(w, b), block(x, b));
        for l in 0..LANES {
            acc[l] += w[l] * x[l];
        }
    }
    for k in full..n {
        acc[k - full] += w[k] * x[k];
    }
    tree_sum(&acc)
}

/// The [`LANES`] samples from `b` on, as an array (one bounds check, then a vector loop).
#[inline(always)]
fn block(x: &[f64], b: usize) -> &[f64; LANES] {
    x[b..b + LANES].try_into().expect("a whole block")
}

/// The lanes' partial sums added pairwise, halves first: one fixed order.
#[inline(always)]
fn tree_sum(a: &[f64; LANES]) -> f64 {
    let mut v = *a;
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for l in 0..w {
            v[l] += v[l + w];
        }
    }
    v[0]
}

#[inline(always)]
fn sum0_in(c: (&[f64], &[f64]), e: (&[f64], &[f64])) -> Complex64 {
    sums::<false>(c, e, &[], &[])[0]
}

#[inline(always)]
fn sum2_in(c: (&[f64], &[f64]), e: (&[f64], &[f64]), s: &[f64], s2: &[f64]) -> [Complex64; 3] {
    sums::<true>(c, e, s, s2)
}

multiversion! {
    /// [`phases_in`] on this CPU's vector unit.
    pub(super) fn phases(n: usize, dt: f64, omega: f64, re: &mut [f64], im: &mut [f64]) = phases_in;
}
multiversion! {
    /// [`add_line_in`] on this CPU's vector unit.
    pub(super) fn add_line(r: (&mut [f64], &mut [f64]), a: Complex64, e: (&[f64], &[f64])) = add_line_in;
}
multiversion! {
    /// [`real_sum_in`] on this CPU's vector unit.
    pub(super) fn real_sum(w: &[f64], x: &[f64]) -> f64 = real_sum_in;
}
multiversion! {
    /// Σ c_k e_k ([`sums`]) on this CPU's vector unit.
    pub(super) fn sum0(c: (&[f64], &[f64]), e: (&[f64], &[f64])) -> Complex64 = sum0_in;
}
multiversion! {
    /// Σ c_k e_k, Σ c_k e_k s_k, Σ c_k e_k s_k² ([`sums`]) on this CPU's vector unit.
    pub(super) fn sum2(c: (&[f64], &[f64]), e: (&[f64], &[f64]), s: &[f64], s2: &[f64]) -> [Complex64; 3] = sum2_in;
}
