//! Eigenvectors of `T = U D Uᵀ` (U unit upper bidiagonal, `U_{i,i+1} = u_i`, D > 0) from
//! twisted factorizations (Dhillon & Parlett's getvec), for eigenvalues known to high relative
//! accuracy and separated by a relative gap ≥ [`TWIST_MIN_RELGAP`]: O(N) per vector, no pivoting,
//! no iteration.
//!
//! For each λ, the top-down `L₋ D₋ L₋ᵀ` (progressive transform `p`) and the bottom-up
//! `U₊ D₊ U₊ᵀ` (stationary transform `s`) of `T − λI` meet at the twist index r of least
//! `|γ_r| = |p_r + s_r + λ|`, and `z_r = 1` spreads both ways by products of the factors.
//!
//! Both transforms are chains bound by a division's latency, so one eigenvalue leaves most of the
//! core idle. [`LANES`] eigenvalues run side by side instead, one per SIMD lane (AVX2 + FMA when
//! the CPU has them): the same operations lane by lane, so a vector does not depend on which
//! lane, batch or thread computed it.

/// Smallest relative gap for which a twisted factorization alone gives an eigenvector orthogonal
/// to its neighbours to working accuracy (about nε / relgap; MRRR's threshold).
pub(super) const TWIST_MIN_RELGAP: f64 = 1e-3;

/// Eigenvalues per batch.
pub(super) const LANES: usize = 4;
type V = [f64; LANES];

/// Scratch of [`twisted_vectors`], reused across calls (4 N lanes-wide values).
#[derive(Default)]
pub(super) struct TwistScratch {
    s: Vec<V>,
    p: Vec<V>,
    /// U₊ (index i + 1 holds U₊_i) and L₋.
    up: Vec<V>,
    l: Vec<V>,
}

/// The unit eigenvectors for `lambdas` into consecutive columns of `cols` (N each), largest
/// component's sign as it comes (the caller fixes signs).
pub(super) fn twisted_vectors(
    d: &[f64],
    u: &[f64],
    lambdas: &[f64],
    scratch: &mut TwistScratch,
    cols: &mut [f64],
) {
    let n = d.len();
    debug_assert_eq!(cols.len(), n * lambdas.len());
    if n == 1 {
        cols.iter_mut().for_each(|c| *c = 1.0);
        return;
    }
    for v in [
        &mut scratch.s,
        &mut scratch.p,
        &mut scratch.up,
        &mut scratch.l,
    ] {
        v.resize(n, [0.0; LANES]);
    }
    for (lams, block) in lambdas.chunks(LANES).zip(cols.chunks_mut(LANES * n)) {
        // A short last batch repeats its last eigenvalue in the spare lanes.
        let mut lam = [lams[lams.len() - 1]; LANES];
        lam[..lams.len()].copy_from_slice(lams);
        let twist = factor(d, u, lam, scratch);
        for (c, z) in block.chunks_mut(n).enumerate() {
            if !spread(scratch, c, twist[c], z) {
                // A pivot exactly zero (or tiny) overflowed the products: redo this one with
                // pivots bounded away from zero.
                guarded_vector(d, u, lam[c], scratch, z);
            }
        }
    }
}

/// Both factorizations of `T − λI` for a batch, and each lane's twist index.
fn factor(d: &[f64], u: &[f64], lam: V, scratch: &mut TwistScratch) -> [usize; LANES] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the two features the function enables.
        return unsafe { factor_avx2(d, u, lam, scratch) };
    }
    factor_lanes(d, u, lam, scratch)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn factor_avx2(d: &[f64], u: &[f64], lam: V, scratch: &mut TwistScratch) -> [usize; LANES] {
    factor_lanes(d, u, lam, scratch)
}

#[inline(always)]
fn factor_lanes(d: &[f64], u: &[f64], lam: V, scratch: &mut TwistScratch) -> [usize; LANES] {
    let n = d.len();
    let TwistScratch { s, p, up, l } = scratch;
    let (s, p, up, l) = (&mut s[..n], &mut p[..n], &mut up[..n], &mut l[..n]);
    // Bottom-up: D₊_i = d_i + s_i, U₊_i = u_i d_{i+1} / D₊_{i+1}, s_i = U₊_i (u_i s_{i+1}) − λ.
    // Top-down: D₋_i = p_i + u_i² d_{i+1}, l_i = u_i d_{i+1} / D₋_i, p_{i+1} = (d p_i) / D₋_i − λ.
    // One loop runs both (from the two ends) so that their chains overlap too.
    s[n - 1] = lam.map(|x| -x);
    p[0] = lam.map(|x| d[0] - x);
    for k in 0..n - 1 {
        let i = n - 2 - k;
        let (ud, us) = (u[i] * d[i + 1], u[i]);
        let (s1, mut s0, mut upi) = (s[i + 1], [0.0; LANES], [0.0; LANES]);
        for c in 0..LANES {
            let dp = d[i + 1] + s1[c];
            upi[c] = ud / dp;
            s0[c] = upi[c].mul_add(us * s1[c], -lam[c]);
        }
        up[i + 1] = upi;
        s[i] = s0;
        let (udk, u2d, dk) = (u[k] * d[k + 1], u[k] * u[k] * d[k + 1], d[k + 1]);
        let (pk, mut lk, mut p1) = (p[k], [0.0; LANES], [0.0; LANES]);
        for c in 0..LANES {
            let inv = 1.0 / (pk[c] + u2d);
            lk[c] = udk * inv;
            p1[c] = (dk * pk[c]).mul_add(inv, -lam[c]);
        }
        l[k] = lk;
        p[k + 1] = p1;
    }
    // The twist index: least |γ_r| = |p_r + s_r + λ| (the first such, lane by lane).
    let (mut r, mut best) = ([0usize; LANES], [f64::INFINITY; LANES]);
    for i in 0..n {
        for c in 0..LANES {
            let g = (p[i][c] + s[i][c] + lam[c]).abs();
            if g < best[c] {
                best[c] = g;
                r[c] = i;
            }
        }
    }
    r
}

/// Lane c's vector from its twist index r: `z_r = 1`; below r `z_i = −U₊_{i−1} z_{i−1}`,
/// above r `z_i = −l_i z_{i+1}`; normalised. False if it came out non-finite.
fn spread(scratch: &TwistScratch, c: usize, r: usize, z: &mut [f64]) -> bool {
    let n = z.len();
    let (up, l) = (&scratch.up[..n], &scratch.l[..n]);
    z[r] = 1.0;
    let mut norm2 = 1.0;
    for i in r + 1..n {
        z[i] = -up[i][c] * z[i - 1];
        norm2 += z[i] * z[i];
    }
    for i in (0..r).rev() {
        z[i] = -l[i][c] * z[i + 1];
        norm2 += z[i] * z[i];
    }
    if !(norm2.is_finite() && norm2 > 0.0) {
        return false;
    }
    let inv_norm = 1.0 / norm2.sqrt();
    z.iter_mut().for_each(|v| *v *= inv_norm);
    true
}

/// One eigenvector with every pivot bounded away from zero (|pivot| ≥ MIN_POSITIVE/ε), for the
/// rare λ whose fast pass met an exactly zero pivot.
fn guarded_vector(d: &[f64], u: &[f64], lambda: f64, scratch: &mut TwistScratch, z: &mut [f64]) {
    let n = d.len();
    let tiny = f64::MIN_POSITIVE / f64::EPSILON;
    let guard = |x: f64| if x.abs() < tiny { tiny.copysign(x) } else { x };
    let TwistScratch { s, p, up, l } = scratch;
    s[n - 1][0] = -lambda;
    p[0][0] = d[0] - lambda;
    for k in 0..n - 1 {
        let i = n - 2 - k;
        let dp = guard(d[i + 1] + s[i + 1][0]);
        up[i + 1][0] = u[i] * d[i + 1] / dp;
        s[i][0] = up[i + 1][0].mul_add(u[i] * s[i + 1][0], -lambda);
        let inv = 1.0 / guard(p[k][0] + u[k] * u[k] * d[k + 1]);
        l[k][0] = u[k] * d[k + 1] * inv;
        p[k + 1][0] = (d[k + 1] * p[k][0]).mul_add(inv, -lambda);
    }
    let (mut r, mut best) = (0, f64::INFINITY);
    for i in 0..n {
        let g = (p[i][0] + s[i][0] + lambda).abs();
        if g < best {
            (best, r) = (g, i);
        }
    }
    spread(scratch, 0, r, z);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ‖T z − λ z‖ for T = U D Uᵀ.
    fn residual(d: &[f64], u: &[f64], lambda: f64, z: &[f64]) -> f64 {
        let n = d.len();
        let mut worst = 0.0f64;
        for i in 0..n {
            let below = if i + 1 < n {
                u[i] * u[i] * d[i + 1]
            } else {
                0.0
            };
            let mut tz = (d[i] + below) * z[i];
            if i + 1 < n {
                tz += u[i] * d[i + 1] * z[i + 1];
            }
            if i > 0 {
                tz += u[i - 1] * d[i] * z[i - 1];
            }
            worst = worst.max((tz - lambda * z[i]).abs());
        }
        worst
    }

    /// An exactly zero pivot (λ = D_n with the last link uncoupled) makes the fast pass
    /// non-finite; the guarded pass still returns the eigenvector e_n.
    #[test]
    fn survives_a_zero_pivot() {
        let (d, u) = ([2.0, 3.0, 5.0], [0.5, 0.0]);
        let mut z = vec![0.0; 3];
        twisted_vectors(&d, &u, &[5.0], &mut TwistScratch::default(), &mut z);
        assert!(
            (z[2].abs() - 1.0).abs() < 1e-15 && z[0] == 0.0 && z[1] == 0.0,
            "{z:?}"
        );
    }

    /// Well-separated eigenvalues in batches of 1..=LANES + 1 (short batches padded): residuals at
    /// round-off, and each vector the same bit for bit whatever batch and lane it ran in.
    #[test]
    fn batches_give_residuals_at_round_off_and_the_same_bits() {
        let (d, u) = ([4.0, 3.0, 2.0, 1.0, 0.5], [-0.7, -0.8, -0.9, -0.6]);
        let q: Vec<f64> = d.to_vec();
        let e: Vec<f64> = (0..4).map(|i| u[i] * u[i] * d[i + 1]).collect();
        let w = super::super::dqds_eigenvalues(&q, &e).unwrap();
        let mut scratch = TwistScratch::default();
        let mut all = vec![0.0; 25];
        twisted_vectors(&d, &u, &w, &mut scratch, &mut all);
        for (k, &lambda) in w.iter().enumerate() {
            let z = &all[5 * k..5 * k + 5];
            assert!(
                residual(&d, &u, lambda, z) < 1e-14 * w[4],
                "λ = {lambda}: {z:?}"
            );
            let mut one = vec![0.0; 5];
            twisted_vectors(&d, &u, &[lambda], &mut scratch, &mut one);
            assert_eq!(one, z, "λ = {lambda} alone vs in a batch");
        }
    }
}
