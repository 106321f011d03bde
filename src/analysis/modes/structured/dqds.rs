//! Eigenvalues of `Z Zᵀ`, Z upper bidiagonal with positive squared entries, by dqds
//! (Fernando & Parlett 1994; Parlett & Marques 2000): every eigenvalue, the smallest included,
//! to a few ulps *relative* accuracy, one division per entry and transform, no square root.
//!
//! The array `(q, e)` holds `q_i = Z_ii²`, `e_i = Z_{i,i+1}²`. One transform with shift τ
//! computes `Ẑ` with `Ẑᵀ Ẑ = Z Zᵀ − τ I` from sums, products and quotients of positive numbers;
//! the accumulated shift σ is kept apart, so `λ = σ + (eigenvalue of the current array)`.
//!
//! What sets the speed is the number of transforms per eigenvalue; the loop itself is bound by
//! the latency of its add → divide → fused multiply–add chain. Three things keep the count near
//! two:
//! - **Deflation by the eigenvalue's own error**, not only by LAPACK's gap-free test
//!   `e ≤ (100ε)² σ`. The bottom row couples to the block A above it through `b² = e_{n−1} q_n`,
//!   which moves the eigenvalue by `≈ b² [A⁻¹]_ll`; [`decoupled`] bounds that (and what it does
//!   to A's eigenvalues) rigorously in one O(N) pass, and once it is below ε/16 of σ + q_n,
//!   `σ + q_n` is the eigenvalue. Removing the row leaves A with `e_{n−1}` on its last diagonal
//!   entry: [`absorb`] rotates it into the bidiagonal, so the remaining eigenvalues keep their
//!   relative accuracy. Typically this saves one transform of three per eigenvalue.
//! - **Shifts** from the trailing 2 × 2 less its coupling to the rest, capped by the least pivot
//!   of the last transform (an upper bound on the smallest eigenvalue), and after a failure that
//!   met its only negative pivot at the very end, the shift that failure reveals (τ + d_n).
//! - **Splitting** where an off-diagonal entry becomes negligible, so each part has its own σ.

/// Eigenvalues (ascending) of `Z Zᵀ` for the upper bidiagonal Z with `Z_ii² = q_i` and
/// `Z_{i,i+1}² = e_i`, all positive and finite; `None` for other input or should the iteration
/// budget (30 transforms per eigenvalue) run out, so the caller can fall back to QL.
pub fn dqds_eigenvalues(q: &[f64], e: &[f64]) -> Option<Vec<f64>> {
    debug_assert_eq!(e.len() + 1, q.len().max(1));
    if q.iter().chain(e).any(|&x| !(x > 0.0 && x.is_finite())) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA, the only feature the function enables.
        return unsafe { dqds_fma(q, e) };
    }
    dqds(q, e).map(|(w, _)| w)
}

/// [`dqds`] compiled with hardware FMA: the same operations (every `mul_add` is fused either
/// way), so the same result bit for bit, in fewer cycles.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn dqds_fma(q: &[f64], e: &[f64]) -> Option<Vec<f64>> {
    dqds(q, e).map(|(w, _)| w)
}

/// The relative error allowed for a deflated eigenvalue and for what deflating or splitting
/// does to the others; and the cheap prefilter for split candidates, `ê_i ≤ TOL2 q̂_i`.
const REL: f64 = f64::EPSILON / 16.0;
const TOL2: f64 = (100.0 * f64::EPSILON) * (100.0 * f64::EPSILON);

/// One part of the array still to be solved, with its accumulated shift.
struct Segment {
    q: Vec<f64>,
    e: Vec<f64>,
    sigma: f64,
}

/// The eigenvalues ascending, and how many transforms they took.
#[inline(always)]
fn dqds(q: &[f64], e: &[f64]) -> Option<(Vec<f64>, usize)> {
    let n = q.len();
    let mut out = Vec::with_capacity(n);
    // Grade the array so that it is small at the bottom, where dqds converges first
    // (reversing q and e leaves the singular values of Z unchanged).
    let (q, e) = if q.first() < q.last() {
        (
            q.iter().rev().copied().collect(),
            e.iter().rev().copied().collect(),
        )
    } else {
        (q.to_vec(), e.to_vec())
    };
    let mut todo = vec![Segment { q, e, sigma: 0.0 }];
    let (mut qh, mut eh, mut norms) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let full_budget = 30 * n + 10;
    let mut budget = full_budget;
    while let Some(seg) = todo.pop() {
        if !solve_segment(
            seg,
            &mut todo,
            &mut out,
            &mut qh,
            &mut eh,
            &mut norms,
            &mut budget,
        ) {
            return None;
        }
    }
    out.sort_by(f64::total_cmp);
    Some((out, full_budget - budget))
}

/// Runs dqds on one segment until it is used up (eigenvalues pushed to `out`) or splits (the
/// upper part pushed to `todo`, the lower part carried on with). False if the budget ran out.
#[inline(always)]
fn solve_segment(
    seg: Segment,
    todo: &mut Vec<Segment>,
    out: &mut Vec<f64>,
    qh: &mut Vec<f64>,
    eh: &mut Vec<f64>,
    norms: &mut Vec<f64>,
    budget: &mut usize,
) -> bool {
    let Segment {
        mut q,
        mut e,
        mut sigma,
    } = seg;
    let mut m = q.len();
    // Scratch for the transform's output, swapped with (q, e) after each transform.
    qh.resize(m.max(qh.len()), 0.0);
    eh.resize(m.max(eh.len()), 0.0);
    norms.resize(m.max(norms.len()), 0.0);
    // The shift to try next.
    let mut tau = 0.0f64;
    let mut failures = 0u32;
    loop {
        // Deflate converged eigenvalues at the bottom.
        if m == 0 {
            return true;
        }
        if m == 1 {
            out.push(sigma + q[0]);
            return true;
        }
        let lam = sigma + q[m - 1];
        let en = e[m - 2];
        let gap_free = en * q[m - 1] <= (REL * sigma).powi(2);
        if gap_free
            || decoupled(
                &q[..m - 1],
                &e[..m - 2],
                en * q[m - 1],
                q[m - 1],
                lam,
                norms,
            )
        {
            out.push(lam);
            if gap_free {
                column_norms(&q[..m - 1], &e[..m - 2], norms);
            }
            absorb(&mut q[..m - 1], &mut e[..m - 2], en, norms);
            m -= 1;
            q.truncate(m);
            e.truncate(m - 1);
            (tau, failures) = (next_shift(&q, &e, f64::INFINITY), 0);
            continue;
        }
        let (small, big) = trailing_2x2(q[m - 2], e[m - 2], q[m - 1]);
        let en = if m > 2 { e[m - 3] } else { 0.0 };
        let gap_free = m == 2 || en * q[m - 2] <= (REL * sigma).powi(2);
        if gap_free
            || decoupled(
                &q[..m - 2],
                &e[..m - 3],
                en * q[m - 2],
                big,
                sigma + small,
                norms,
            )
        {
            out.push(sigma + small);
            out.push(sigma + big);
            if m > 2 {
                if gap_free {
                    column_norms(&q[..m - 2], &e[..m - 3], norms);
                }
                absorb(&mut q[..m - 2], &mut e[..m - 3], en, norms);
            }
            m -= 2;
            q.truncate(m);
            e.truncate(m.saturating_sub(1));
            (tau, failures) = (next_shift(&q, &e, f64::INFINITY), 0);
            continue;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match transform(&q, &e, tau, sigma, &mut qh[..m], &mut eh[..m - 1]) {
            Transform::Done { dmin: least, split } => {
                sigma += tau;
                std::mem::swap(&mut q, qh);
                std::mem::swap(&mut e, eh);
                q.truncate(m);
                e.truncate(m - 1);
                failures = 0;
                // The least pivot: an upper bound on the smallest eigenvalue of the new array.
                let mut dmin = least;
                if let Some(j) = split {
                    // Rows 0..j and j..m couple through b² = e_{j−1} q_j ≤ (REL σ)² only: split.
                    // The upper part keeps e_{j−1} as a leftover on its last row.
                    let (mut top_q, mut top_e) = (q[..j].to_vec(), e[..j - 1].to_vec());
                    column_norms(&top_q, &top_e, norms);
                    absorb(&mut top_q, &mut top_e, e[j - 1], norms);
                    todo.push(Segment {
                        q: top_q,
                        e: top_e,
                        sigma,
                    });
                    q.drain(..j);
                    e.drain(..j);
                    m -= j;
                    dmin = f64::INFINITY;
                }
                tau = if m > 2 { next_shift(&q, &e, dmin) } else { 0.0 };
            }
            Transform::Failed { at_end, d } => {
                // τ was at or above the smallest eigenvalue. A failure only at the last pivot
                // says by how much (d_n ≈ λ − τ near convergence); else back off, then stop
                // shifting.
                failures += 1;
                tau = if failures > 2 {
                    0.0
                } else if at_end {
                    ((tau + d) * (1.0 - 2.0 * f64::EPSILON)).max(0.0)
                } else {
                    0.25 * tau
                };
                if tau < f64::MIN_POSITIVE {
                    tau = 0.0;
                }
            }
        }
    }
}

enum Transform {
    /// The least pivot, and the last index j with `e_{j−1}` negligible (a split), if any.
    Done { dmin: f64, split: Option<usize> },
    /// A non-positive pivot; `at_end` if only the final one, `d` its value.
    Failed { at_end: bool, d: f64 },
}

/// One dqds transform of `(q, e)` with shift τ into `(qh, eh)`.
#[inline(always)]
fn transform(
    q: &[f64],
    e: &[f64],
    tau: f64,
    sigma: f64,
    qh: &mut [f64],
    eh: &mut [f64],
) -> Transform {
    let m = q.len();
    let mut d = q[0] - tau;
    if d.is_nan() || d < 0.0 {
        return Transform::Failed { at_end: false, d };
    }
    let mut dmin = d;
    let mut split = 0usize;
    for i in 0..m - 1 {
        let s = d + e[i];
        if s.is_nan() || s <= 0.0 {
            return Transform::Failed {
                at_end: false,
                d: s,
            };
        }
        qh[i] = s;
        let t = q[i + 1] / s;
        let en = e[i] * t;
        eh[i] = en;
        // A split candidate: ê_i tiny against q̂_i (the rule proper is checked below).
        if en <= TOL2 * s {
            split = i + 1;
        }
        d = d.mul_add(t, -tau);
        if d < 0.0 {
            if i == m - 2 && -d <= 4.0 * f64::EPSILON * (sigma + tau) {
                // The last pivot is zero to working accuracy: τ is the eigenvalue.
                d = 0.0;
            } else {
                return Transform::Failed {
                    at_end: i == m - 2,
                    d,
                };
            }
        }
        dmin = dmin.min(d);
    }
    qh[m - 1] = d;
    // The coupling b² = ê_{j−1} q̂_j moves no eigenvalue (all ≥ σ + τ) by more than b:
    // negligible once b ≤ REL (σ + τ).
    let cut = (REL * (sigma + tau)).powi(2);
    let split = (split > 0 && split < m - 1 && eh[split - 1] * qh[split] <= cut).then_some(split);
    Transform::Done { dmin, split }
}

/// Can the bottom block (eigenvalues up to `top`; the one deflated is `lam` = σ + its value)
/// be split off the block A above it, `A = Z₁ Z₁ᵀ + x² e_l e_lᵀ`, to which it couples through
/// `b2`?
///
/// With `μ₁(A) ≥ 2 top`, second-order perturbation moves the eigenvalue by at most
/// `2 b² [(Z₁Z₁ᵀ)⁻¹]_ll` (A ⪰ Z₁Z₁ᵀ), and every eigenvalue μ of A, relative to σ + μ, by no more
/// than that relative to `lam`. Both are certified by the column norms `S_k = ‖Z₁⁻¹ e_k‖²`
/// ([`column_norms`], left in `norms` for [`absorb`]): `[(Z₁Z₁ᵀ)⁻¹]_ll = S_l` and
/// `μ₁(A) ≥ μ₁(Z₁Z₁ᵀ) ≥ 1 / Σ S_k`. That O(m) pass runs only once the bottom few terms of
/// `S_l` allow the deflation.
fn decoupled(q: &[f64], e: &[f64], b2: f64, top: f64, lam: f64, norms: &mut [f64]) -> bool {
    let l = q.len() - 1;
    let limit = 0.5 * REL * lam / b2;
    // S_l ≥ its bottom terms: Σ_{k ≥ l−3} Π_{k ≤ j < l} (e_j / q_j) / q_l.
    let mut term = 1.0 / q[l];
    let mut head = term;
    for k in (l.saturating_sub(3)..l).rev() {
        term *= e[k] / q[k];
        head += term;
    }
    if head.is_nan() || head > limit {
        return false;
    }
    let trace = column_norms(q, e, norms);

    norms[l] <= limit && trace * 2.0 * top <= 1.0
}

/// `S_k = ‖Z⁻¹ e_k‖²` for Z = bidiag(q, e) into `norms`, and their sum `trace((Z Zᵀ)⁻¹)`:
/// `S_k = (1 + e_{k−1} S_{k−1}) / q_k`, run as `t_k = q_k S_k = 1 + (e_{k−1}/q_{k−1}) t_{k−1}` so
/// that only a multiply–add is chained from one k to the next.
fn column_norms(q: &[f64], e: &[f64], norms: &mut [f64]) -> f64 {
    let mut t = 1.0f64;
    let mut trace = 0.0;
    for k in 0..q.len() {
        let r = 1.0 / q[k];
        let s = t * r;
        norms[k] = s;
        trace += s;
        if k < e.len() {
            t = (e[k] * r).mul_add(t, 1.0);
        }
    }
    trace
}

/// After the bottom row of Z is removed, the block left is `Z₁ Z₁ᵀ + x² e_l e_lᵀ`. Rotating the
/// leftover entry x into Z₁ from the right keeps that product exactly, and leaves a new entry one
/// row up. Dropping a leftover x² at row k instead changes every eigenvalue by a relative
/// `x² S_k` at most (`S_k` = `norms[k]`, see [`column_norms`]; Ostrowski), so the chase stops
/// as soon as that is below `REL`. (Merely adding x² to `q_k` is not enough: a large
/// `e_{k−1} / q_{k−1}` above turns it into a large relative change.)
fn absorb(q: &mut [f64], e: &mut [f64], mut x2: f64, norms: &[f64]) {
    let mut k = q.len() - 1;
    loop {
        if x2 * norms[k] <= REL {
            return;
        }
        let qk = q[k];
        let r2 = qk + x2;
        q[k] = r2;
        if k == 0 {
            return;
        }
        let ek = e[k - 1];
        e[k - 1] = ek * (qk / r2);
        x2 = ek * (x2 / r2);
        k -= 1;
    }
}

/// Eigenvalues (smaller, larger) of the trailing 2 × 2 of Z Zᵀ,
/// `[[q₁ + e₁, √(e₁ q₂)], [√(e₁ q₂), q₂]]`: the larger from the trace, the smaller as
/// det / larger (det = q₁ q₂), so both keep high relative accuracy.
#[inline]
fn trailing_2x2(q1: f64, e1: f64, q2: f64) -> (f64, f64) {
    let half = 0.5 * (q1 + e1 - q2);
    let big = 0.5 * (q1 + e1 + q2) + (half * half + e1 * q2).sqrt();
    (q1 * q2 / big, big)
}

/// A shift for the array (m ≥ 3; 0 otherwise): the smaller eigenvalue μ of the trailing 2 × 2
/// of Z Zᵀ (≥ the smallest of all, by interlacing) less twice its first-order coupling to the
/// rest, `b² w² / gap` (b² = e_{m−3} q_{m−2}, w the 2 × 2 eigenvector's top component), never
/// below μ/4; and below half the least pivot `dmin` of the last transform when that is smaller
/// (the smallest eigenvalue then sits higher up). A shift that still overshoots is caught by
/// the transform.
fn next_shift(q: &[f64], e: &[f64], dmin: f64) -> f64 {
    let m = q.len();
    if m < 3 {
        return 0.0;
    }
    let (q1, e1, q2) = (q[m - 2], e[m - 2], q[m - 1]);
    let (est, _) = trailing_2x2(q1, e1, q2);
    let (a2, b2) = (q1 + e1, e1 * q2);
    let w2 = b2 / ((a2 - est) * (a2 - est) + b2);
    let gap = q[m - 3] + e[m - 3] - est;
    let delta = if gap > 0.0 {
        e[m - 3] * q1 * w2 / gap
    } else {
        est
    };
    let tau = (est - 2.0 * delta).max(0.25 * est);
    if dmin < tau {
        0.5 * dmin
    } else {
        tau
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eigenvalue k (ascending) of Z Zᵀ by bisection on Sturm counts of the factored form:
    /// Z Zᵀ = U D Uᵀ (D = q, U_{i,i+1}² D_{i+1} = e_i) and the signs of D⁺ in
    /// U D Uᵀ − σ = U⁺ D⁺ U⁺ᵀ, bottom up (stationary qd): relative accuracy, independent of dqds.
    pub(crate) fn bisect(q: &[f64], e: &[f64], k: usize) -> f64 {
        let n = q.len();
        let below = |sigma: f64| {
            let mut count = 0;
            let mut s = -sigma;
            for i in (1..n).rev() {
                let dp = q[i] + s;
                count += (dp < 0.0) as usize;
                s = e[i - 1] * (s / dp) - sigma;
            }
            count + (q[0] + s < 0.0) as usize
        };
        let mut hi = 0.0f64;
        for i in 0..n {
            hi = hi.max(
                2.0 * (q[i]
                    + if i + 1 < n { e[i] } else { 0.0 }
                    + if i > 0 { e[i - 1] } else { 0.0 }),
            );
        }
        let mut lo = 0.0f64;
        for _ in 0..2000 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if below(mid) > k {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// A reproducible stream of uniform numbers in [0, 1).
    fn uniform(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    fn max_rel_vs_bisection(q: &[f64], e: &[f64]) -> f64 {
        let (w, _) = dqds(q, e).expect("dqds converges");
        w.iter()
            .enumerate()
            .map(|(k, &x)| {
                let b = bisect(q, e, k);
                ((x - b) / b).abs()
            })
            .fold(0.0, f64::max)
    }

    /// The equal chain's array (benchmark M, T = Z Zᵀ with q = g(N − i), e = g(N − i − 1)):
    /// every eigenvalue to 1e-13 relative against bisection, in at most 2.5 transforms per
    /// eigenvalue (LAPACK's deflation test alone needs about three).
    #[test]
    fn equal_chain_to_high_relative_accuracy_in_few_transforms() {
        let n = 200;
        let q: Vec<f64> = (0..n).map(|i| 9.81 * (n - i) as f64).collect();
        let e: Vec<f64> = (0..n - 1).map(|i| 9.81 * (n - i - 1) as f64).collect();
        let worst = max_rel_vs_bisection(&q, &e);
        assert!(worst < 1e-13, "max relative error {worst:.2e}");
        let (_, transforms) = dqds(&q, &e).unwrap();
        let per = transforms as f64 / n as f64;
        assert!(per < 2.5, "{per:.2} transforms per eigenvalue");
    }

    /// Random arrays of five kinds, among them entries spread over eight decades (where the
    /// smallest eigenvalue hides anywhere and a leftover absorbed into the wrong row would cost
    /// nine digits), near-splits, strong grading and tight clusters: 1e-13 relative throughout.
    #[test]
    fn random_arrays_to_high_relative_accuracy() {
        let mut seed = 12345u64;
        let mut worst = 0.0f64;
        for case in 0..60 {
            let n = 2 + (uniform(&mut seed) * 200.0) as usize;
            let mut pick = |i: usize, which: u8| -> f64 {
                let r = uniform(&mut seed);
                let x = i as f64 / n as f64;
                match (case % 5, which) {
                    (0, _) => r + 1e-3,
                    (1, _) => 10f64.powf(-8.0 * r),
                    (2, 0) => (i as f64 + 1.0).powi(3),
                    (2, _) => (i as f64 + 1.0).powi(2) * r,
                    (3, 0) => 1.0 + 1e-9 * r,
                    (3, _) => 1e-7 * r,
                    (_, 0) => 10f64.powf(6.0 * x),
                    (_, _) => 10f64.powf(6.0 * x) * r,
                }
            };
            let q: Vec<f64> = (0..n).map(|i| pick(i, 0)).collect();
            let e: Vec<f64> = (0..n - 1).map(|i| pick(i, 1)).collect();
            let r = max_rel_vs_bisection(&q, &e);
            assert!(
                r < 1e-13,
                "case {case} (n = {n}): max relative error {r:.2e}"
            );
            worst = worst.max(r);
        }
        eprintln!("dqds vs bisection on random arrays: {worst:.2e}");
    }

    /// The chase keeps `Z̃ Z̃ᵀ` (Z without its last row) to high relative accuracy: against the
    /// chase carried to the top row (exact rotations, no truncation). The leftover (1e-20) is
    /// negligible against its own row (q = 1) but not against the one above (e/q = 10¹²):
    /// adding it to q and stopping would move the smallest eigenvalue by 1e-8 relative.
    #[test]
    fn absorb_keeps_the_remaining_block() {
        let q = [1.0, 1e-12, 1.0, 1.0];
        let e = [1.0, 1.0, 1e-20];
        let n = q.len();
        // The reference: every rotation, up to the top row.
        let (mut q_full, mut e_full) = (q[..n - 1].to_vec(), e[..n - 2].to_vec());
        let mut x2 = e[n - 2];
        for k in (0..n - 1).rev() {
            let r2 = q_full[k] + x2;
            if k > 0 {
                let ek = e_full[k - 1];
                e_full[k - 1] = ek * (q_full[k] / r2);
                x2 = ek * (x2 / r2);
            }
            q_full[k] = r2;
        }
        let (mut q2, mut e2) = (q[..n - 1].to_vec(), e[..n - 2].to_vec());
        let mut norms = vec![0.0; n - 1];
        column_norms(&q2, &e2, &mut norms);
        absorb(&mut q2, &mut e2, e[n - 2], &norms);
        for k in 0..n - 1 {
            let (a, b) = (bisect(&q2, &e2, k), bisect(&q_full, &e_full, k));
            assert!(((a - b) / b).abs() < 1e-13, "λ[{k}]: {a} vs {b}");
        }
    }
}
