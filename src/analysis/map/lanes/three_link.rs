//! The three-link chain on the lanes: the right-hand side of `model/chain/small.rs` for N = 3
//! written lane by lane (state only; its tangent maps take the scalar path).
//!
//! The arithmetic is the scalar route's operation for operation (M(θ) and F by the same
//! `small::mass_and_force`, damping −D θ̇ and the torque added as `add_damping_and_torque` does,
//! M⁻¹ by the same `small::inverse_spd` and α = M⁻¹F by `small::mat_vec`, the stage formulas of
//! `integrate::Rk4`), so the only difference from the scalar path is sin/cos: the lanes use the
//! vectorisable [`sin_cos`] (≈ 1 ulp), the scalar path the C library's. Flip steps and
//! final-state classes therefore agree wherever chaos does not amplify that last bit past a
//! decision (see the map tests' three-link lanes module for how often it does).

use super::engine::LaneModel;
use super::sincos::sin_cos;
use crate::model::chain::small::{inverse_spd, mass_and_force, mat_vec};
use crate::model::Chain;

/// Constants of a three-link chain (chain.rs's), with its damping and drive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreeLink {
    /// a_jk, row-major 3 × 3 (symmetric).
    pub a: [f64; 9],
    pub b: [f64; 3],
    pub g: f64,
    /// D tridiagonal: the diagonal and the (j, j + 1) entries, as `Chain` holds them.
    pub d_diag: [f64; 3],
    pub d_off: [f64; 2],
    /// Whether the scalar route applies damping (any damping coefficient non-zero).
    pub damped: bool,
    /// Torque on link 1: amplitude (N·m), Ω (rad/s), φ; `None` for none.
    pub torque: Option<[f64; 3]>,
    /// Pivot x and y amplitudes (m), Ω, φ; `None` for a fixed pivot.
    pub pivot: Option<[f64; 4]>,
}

impl ThreeLink {
    /// The kernel's constants, if `chain` has three links.
    pub fn of(chain: &Chain) -> Option<ThreeLink> {
        if chain.links() != 3 {
            return None;
        }
        let (a, b) = (chain.a(), chain.b());
        let d = chain.damping_matrix();
        let drive = &chain.params().drive;
        Some(ThreeLink {
            a: std::array::from_fn(|i| a[i]),
            b: [b[0], b[1], b[2]],
            g: chain.gravity(),
            d_diag: [d[0], d[4], d[8]],
            d_off: [d[1], d[5]],
            damped: !chain.params().damping.is_zero(),
            torque: drive.torque.map(|h| [h.amplitude, h.frequency, h.phase]),
            pivot: drive
                .pivot
                .map(|p| [p.x_amplitude, p.y_amplitude, p.frequency, p.phase]),
        })
    }

    /// Whether a drive acts (a torque or a moving pivot).
    pub fn driven(&self) -> bool {
        self.torque.is_some() || self.pivot.is_some()
    }

    /// θ̈ at time t, as `Chain::small_eval::<3>` computes it (see the module doc).
    #[inline(always)]
    fn accel<const DAMPED: bool, const DRIVEN: bool>(
        &self,
        t: f64,
        theta: [f64; 3],
        omega: [f64; 3],
    ) -> [f64; 3] {
        let mut s = [0.0; 3];
        let mut c = [0.0; 3];
        for j in 0..3 {
            (s[j], c[j]) = sin_cos(theta[j]);
        }
        let (gx, gy) = match self.pivot {
            Some([ax, ay, om, ph]) if DRIVEN => {
                let acc = -(om * om) * sin_cos(om * t + ph).1;
                (ax * acc, self.g + ay * acc)
            }
            _ => (0.0, self.g),
        };
        let (m, mut f) = mass_and_force(&self.a, &self.b, (gx, gy), &s, &c, &omega);
        if DAMPED {
            for j in 0..3 {
                f[j] -= self.d_diag[j] * omega[j];
                if j + 1 < 3 {
                    f[j] -= self.d_off[j] * omega[j + 1];
                    f[j + 1] -= self.d_off[j] * omega[j];
                }
            }
        }
        f[0] += match self.torque {
            Some([amp, om, ph]) if DRIVEN => amp * sin_cos(om * t + ph).1,
            _ => 0.0,
        };
        mat_vec(&inverse_spd(&m), &f)
    }
}

impl LaneModel<6> for ThreeLink {
    /// The state derivative (ω, α); a three-link lane carries no deviation vectors.
    #[inline(always)]
    fn deriv<const K: usize, const DAMPED: bool, const DRIVEN: bool>(
        &self,
        t: f64,
        u: &[f64; 6],
        _v: &[[f64; 6]; K],
    ) -> ([f64; 6], [[f64; 6]; K]) {
        const { assert!(K == 0, "the three-link lanes have no tangent equations") };
        let al = self.accel::<DAMPED, DRIVEN>(t, [u[0], u[1], u[2]], [u[3], u[4], u[5]]);
        ([u[3], u[4], u[5], al[0], al[1], al[2]], [[0.0; 6]; K])
    }

    /// The scalar path's code: the first watched link beyond ±π (no "both" code past N = 2).
    #[inline(always)]
    fn link_code(flipped: u8) -> u8 {
        flipped.trailing_zeros() as u8 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{Fixed, Widest};
    use super::super::flip::flip_run3;
    use super::*;
    use crate::model::{ChainParams, Damping, Drive, Harmonic, PivotMotion};

    /// A damped, torque- and pivot-driven three-link chain (every branch of `accel`).
    fn driven() -> ThreeLink {
        let mut p = ChainParams::equal_points(3);
        p.damping = Damping {
            absolute: vec![0.2, 0.1, 0.05],
            joint: vec![0.05, 0.02, 0.04],
        };
        p.drive = Drive {
            torque: Some(Harmonic {
                amplitude: 0.8,
                frequency: 1.5,
                phase: 0.2,
            }),
            pivot: Some(PivotMotion {
                x_amplitude: 0.03,
                y_amplitude: 0.02,
                frequency: 1.5,
                phase: 0.0,
            }),
        };
        let p = ThreeLink::of(&Chain::new(p).unwrap()).unwrap();
        assert!(p.damped && p.driven());
        p
    }

    /// Lane widths 1, 4, 8 and the dispatched width give the same flip steps, links, located
    /// times (bits) and step counts, a non-finite start included (it ends at once, unflipped).
    #[test]
    fn lane_widths_give_the_same_bits() {
        let p = driven();
        let mut y0: Vec<[f64; 6]> = (0..41)
            .map(|i| {
                let s = i as f64;
                [
                    -3.0 + 0.15 * s,
                    2.9 - 0.14 * s,
                    0.05 * s - 1.0,
                    0.0,
                    0.0,
                    0.0,
                ]
            })
            .collect();
        y0[7][1] = f64::NAN;
        let (n, h, mask) = (600u32, 0.01, 0b111u8);
        let run = |lanes: usize| {
            let mut k = vec![-1i32; y0.len()];
            let mut link = vec![0u8; y0.len()];
            let mut t = vec![0.0; y0.len()];
            let steps = match lanes {
                1 => flip_run3::<Fixed<1>>(&p, &y0, n, h, mask, &mut k, &mut link, &mut t),
                4 => flip_run3::<Fixed<4>>(&p, &y0, n, h, mask, &mut k, &mut link, &mut t),
                8 => flip_run3::<Fixed<8>>(&p, &y0, n, h, mask, &mut k, &mut link, &mut t),
                _ => flip_run3::<Widest>(&p, &y0, n, h, mask, &mut k, &mut link, &mut t),
            };
            let bits: Vec<u64> = t.iter().map(|x| x.to_bits()).collect();
            (k, link, bits, steps)
        };
        let want = run(1);
        assert!(
            want.0.iter().filter(|&&k| k > 0).count() > 10,
            "{:?}",
            want.0
        );
        assert!(want.0[7] <= 0, "the NaN start must not count as a flip");
        for lanes in [4, 8, 16] {
            assert_eq!(run(lanes), want, "{lanes} lanes");
        }
    }
}
