//! The two-link chain on the lanes: its equations of motion, written once for the state and
//! its deviation vectors.
//!
//! Any two-link chain has `M(θ) α = F` with `M = [[a11, a12 cosΔ], [a12 cosΔ, a22]]`,
//! `F1 = −a12 ω2² sinΔ − g b1 sin θ1`, `F2 = a12 ω1² sinΔ − g b2 sin θ2` (Δ = θ1 − θ2;
//! chain.rs's constants), which for unit point masses is exactly benchmark F's formula. Damping
//! adds `−D θ̇`, and a drive the pivot's acceleration in the effective gravity,
//! `F_j −= b_j (g_y sin θ_j + g_x cos θ_j)`, and the torque on link 1, each lane at its own time.
//!
//! A deviation δ = (δθ, δω) obeys `M δα = δF − δM α`, which for two links is, row by row,
//!
//! ```text
//! r1 = a12 (sinΔ α2 − ω2² cosΔ) δΔ − q1 δθ1 − 2 a12 ω2 sinΔ δω2 − (D δω)_1
//! r2 = a12 (ω1² cosΔ + sinΔ α1) δΔ − q2 δθ2 + 2 a12 ω1 sinΔ δω1 − (D δω)_2
//! ```
//!
//! with `q_j = b_j (g_y cos θ_j − g_x sin θ_j)` (g·b_j cos θ_j undriven): the G and H blocks of
//! `Chain::rhs_tangent`, solved with the inverse that served the state. With no deviation
//! vectors (K = 0) only the state's part is computed.

use super::engine::LaneModel;
use super::sincos::sin_cos;

/// Constants of a two-link chain (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoLink {
    pub a11: f64,
    pub a12: f64,
    pub a22: f64,
    /// g·b1 and g·b2.
    pub gb1: f64,
    pub gb2: f64,
    /// The symmetric damping matrix D (Q = −D θ̇), applied where the kind compiles it in.
    pub d11: f64,
    pub d12: f64,
    pub d22: f64,
    /// The periodic drive, applied where the kind compiles it in.
    pub drive: TwoLinkDrive,
}

/// A two-link chain's drive in the lanes' terms: gravity acts through `b_j (g_y sin θ_j +
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

impl TwoLink {
    /// Whether any damping coefficient is non-zero.
    pub fn damped(&self) -> bool {
        self.d11 != 0.0 || self.d12 != 0.0 || self.d22 != 0.0
    }

    /// Whether a drive acts: a torque or a pivot motion of non-zero amplitude.
    pub fn driven(&self) -> bool {
        let d = &self.drive;
        d.torque[0] != 0.0 || d.pivot[0] != 0.0 || d.pivot[1] != 0.0
    }
}

impl LaneModel<4> for TwoLink {
    #[inline(always)]
    fn deriv<const K: usize, const DAMPED: bool, const DRIVEN: bool>(
        &self,
        t: f64,
        y: &[f64; 4],
        v: &[[f64; 4]; K],
    ) -> ([f64; 4], [[f64; 4]; K]) {
        let p = self;
        let [th1, th2, w1, w2] = *y;
        let (s1, c1) = sin_cos(th1);
        let (s2, c2) = sin_cos(th2);
        let sd = s1 * c2 - c1 * s2;
        let cd = c1 * c2 + s1 * s2;
        let (mut r1, mut r2, q1, q2);
        if DRIVEN {
            let d = &p.drive;
            let [ax, ay, om, ph] = d.pivot;
            // s̈ = −Ω² (ax, ay) cos(Ωt + φ).
            let acc = -(om * om) * sin_cos(om * t + ph).1;
            let (gx, gy) = (ax * acc, d.g + ay * acc);
            r1 = -p.a12 * w2 * w2 * sd - d.b1 * (gy * s1 + gx * c1);
            r2 = p.a12 * w1 * w1 * sd - d.b2 * (gy * s2 + gx * c2);
            let [amp, om, ph] = d.torque;
            r1 += amp * sin_cos(om * t + ph).1;
            q1 = d.b1 * (gy * c1 - gx * s1);
            q2 = d.b2 * (gy * c2 - gx * s2);
        } else {
            r1 = -p.a12 * w2 * w2 * sd - p.gb1 * s1;
            r2 = p.a12 * w1 * w1 * sd - p.gb2 * s2;
            q1 = p.gb1 * c1;
            q2 = p.gb2 * c2;
        }
        if DAMPED {
            r1 -= p.d11.mul_add(w1, p.d12 * w2);
            r2 -= p.d12.mul_add(w1, p.d22 * w2);
        }
        let bc = p.a12 * cd;
        let inv = 1.0 / (p.a11 * p.a22 - bc * bc);
        let a1 = (p.a22 * r1 - bc * r2) * inv;
        let a2 = (p.a11 * r2 - bc * r1) * inv;
        let mut dv = [[0.0; 4]; K];
        if K > 0 {
            // The tangent block's coefficients (module doc).
            let e1 = p.a12 * (sd * a2 - w2 * w2 * cd);
            let e2 = p.a12 * (w1 * w1 * cd + sd * a1);
            let h12 = -2.0 * p.a12 * w2 * sd;
            let h21 = 2.0 * p.a12 * w1 * sd;
            for j in 0..K {
                let [u1, u2, x1, x2] = v[j];
                let dd = u1 - u2;
                let mut f1 = e1 * dd - q1 * u1 + h12 * x2;
                let mut f2 = e2 * dd - q2 * u2 + h21 * x1;
                if DAMPED {
                    f1 -= p.d11.mul_add(x1, p.d12 * x2);
                    f2 -= p.d12.mul_add(x1, p.d22 * x2);
                }
                dv[j] = [
                    x1,
                    x2,
                    (p.a22 * f1 - bc * f2) * inv,
                    (p.a11 * f2 - bc * f1) * inv,
                ];
            }
        }
        ([w1, w2, a1, a2], dv)
    }

    /// Benchmark F's convention: 1, 2, or 3 for both links in the same step.
    #[inline(always)]
    fn link_code(flipped: u8) -> u8 {
        flipped
    }
}

/// Unit point masses (benchmark F's chain), for the unit tests.
#[cfg(test)]
pub(super) const UNIT: TwoLink = TwoLink {
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

/// Damped, driven rods-like constants (every branch of `deriv` compiled in), for the unit
/// tests.
#[cfg(test)]
pub(super) const RODS_DRIVEN: TwoLink = TwoLink {
    a11: 4.0 / 3.0,
    a12: 0.5,
    a22: 1.0 / 3.0,
    gb1: 1.5 * 9.81,
    gb2: 0.5 * 9.81,
    d11: 0.4,
    d12: -0.05,
    d22: 0.25,
    drive: TwoLinkDrive {
        b1: 1.5,
        b2: 0.5,
        g: 9.81,
        torque: [1.5, 2.0, 0.3],
        pivot: [0.05, 0.02, 3.0, 0.1],
    },
};

/// 29 two-link starts across the square and a NaN one (it ends after its first step), for the
/// unit tests that run every lane width.
#[cfg(test)]
pub(super) fn starts() -> Vec<[f64; 4]> {
    let mut y0: Vec<[f64; 4]> = (0..29)
        .map(|i| [-3.0 + 0.2 * i as f64, 2.9 - 0.19 * i as f64, 0.3, -0.1])
        .collect();
    y0.push([f64::NAN, 0.0, 0.0, 0.0]);
    y0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tangent block against central differences of the state derivative: J·v from
    /// `deriv` matches (f(y + εv) − f(y − εv)) / 2ε to the differences' own error.
    #[test]
    fn tangent_block_is_the_jacobian() {
        let p = RODS_DRIVEN;
        let y = [0.7, -1.9, 1.3, -0.4];
        let v = [[0.3, -0.8, 0.5, 0.2]];
        let t = 0.37;
        let (_, jv) = p.deriv::<1, true, true>(t, &y, &v);
        let eps = 1e-6;
        let shift = |s: f64| {
            let mut z = y;
            for c in 0..4 {
                z[c] += s * v[0][c];
            }
            p.deriv::<1, true, true>(t, &z, &v).0
        };
        let (fp, fm) = (shift(eps), shift(-eps));
        for c in 0..4 {
            let fd = (fp[c] - fm[c]) / (2.0 * eps);
            assert!(
                (fd - jv[0][c]).abs() < 1e-7 * (1.0 + fd.abs()),
                "{c}: {fd} vs {}",
                jv[0][c]
            );
        }
    }
}
