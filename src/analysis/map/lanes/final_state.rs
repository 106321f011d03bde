//! Final-state maps on the lanes, and the energy-error map's plain run.
//!
//! The final-state rules of `basins::classify`, many pixels at once: each pixel runs until it
//! settles (undriven: stays near one vertical equilibrium for `settle.dwell_steps` steps,
//! [`Dwell`]; driven: repeats on the stroboscopic map, [`Stroboscope`], each lane at its own
//! time with its own ring of samples), diverges, or reaches `n_steps`: the same rule objects
//! `classify` uses, one per lane.

use super::super::basins::{Dwell, Outcome, Rule, Settle, Stroboscope};
use super::engine::{run, At, LaneModel, Lanes, Reduction, Width};
use super::three_link::ThreeLink;
use super::two_link::TwoLink;

/// A lane model with final-state maps: it says whether its chain's damping is compiled in.
pub trait Settling<const S: usize>: LaneModel<S> {
    fn damped(&self) -> bool;
}

/// The two-link final-state map always compiles damping in.
impl Settling<4> for TwoLink {
    fn damped(&self) -> bool {
        true
    }
}

/// Damping where the three-link chain has it.
impl Settling<6> for ThreeLink {
    fn damped(&self) -> bool {
        self.damped
    }
}

/// The final-state rules for two- or three-link chains, with [`Dwell`] or [`Stroboscope`]
/// lanes (damping as [`Settling::damped`] says, the drive where the settling rule is
/// stroboscopic). `aux` holds `aux.len() / y0.len()` (≥ 3 per link) columns per pixel, filled
/// as `classify` fills them. Returns the RK4 steps taken, summed over pixels.
pub fn final_state_run<W: Width, const S: usize, M: Settling<S>>(
    p: &M,
    y0: &[[f64; S]],
    n: u32,
    h: f64,
    settle: &Settle,
    out: &mut [Outcome],
    aux: &mut [f64],
) -> u64 {
    assert!(out.len() == y0.len());
    assert!(aux.len() >= 3 * (S / 2) * y0.len());
    assert!(aux.len().is_multiple_of(y0.len().max(1)));
    let damped = p.damped();
    let m = aux.len() / y0.len().max(1);
    match settle.strobe {
        None => {
            let rule = Dwell::new(*settle);
            let mut red = Settled {
                rule,
                n,
                h,
                m,
                out,
                aux,
            };
            run::<W, S, 0, M, _>(p, damped, false, y0, h, &mut red)
        }
        Some(strobe) => {
            let rule = Stroboscope::new(Vec::new(), *settle, strobe);
            let mut red = Settled {
                rule,
                n,
                h,
                m,
                out,
                aux,
            };
            run::<W, S, 0, M, _>(p, damped, true, y0, h, &mut red)
        }
    }
}

/// The settling reduction: each lane holds its own copy of `rule`.
struct Settled<'a, R> {
    rule: R,
    n: u32,
    h: f64,
    /// `aux` columns per pixel.
    m: usize,
    out: &'a mut [Outcome],
    aux: &'a mut [f64],
}

impl<const S: usize, R: Rule + Clone> Reduction<S, 0> for Settled<'_, R> {
    type Lane = R;

    fn lane(&self) -> R {
        self.rule.clone()
    }

    #[inline(always)]
    fn start(&mut self, rule: &mut R, px: usize, y: &[f64; S]) -> bool {
        let aux = &mut self.aux[px * self.m..][..self.m];
        match rule.start(y, self.n, self.h, aux) {
            Some(r) => {
                self.out[px] = r;
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<S>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        rule: &mut R,
        at: At<'_, L, S, 0>,
    ) -> Option<u64> {
        let y: [f64; S] = std::array::from_fn(|c| at.lanes.y[c][at.l]);
        let px = at.px;
        let aux = &mut self.aux[px * self.m..][..self.m];
        let r = rule.advance(&y, self.n, self.h, aux)?;
        self.out[px] = r;
        Some(r.steps)
    }
}

/// Integrates every state in `y` of a conservative two-link chain in place for exactly
/// `n_steps` steps (no stopping rule).
pub fn full_run<W: Width>(p: &TwoLink, y: &mut [[f64; 4]], n_steps: u32, h: f64) {
    if n_steps == 0 {
        return;
    }
    let y0 = y.to_vec();
    let mut red = Full {
        n: u64::from(n_steps),
        y,
    };
    run::<W, 4, 0, TwoLink, _>(p, false, false, &y0, h, &mut red);
}

/// The plain run: every pixel ends at `n` steps, its state written back.
struct Full<'a, const S: usize> {
    n: u64,
    y: &'a mut [[f64; S]],
}

impl<const S: usize> Reduction<S, 0> for Full<'_, S> {
    type Lane = ();

    fn lane(&self) {}

    fn deadline(&self) -> u64 {
        self.n
    }

    /// Only the deadline ends a pixel.
    #[inline(always)]
    fn due<const L: usize>(&self, _lanes: &Lanes<L, S, 0>) -> bool {
        false
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<S>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        _lane: &mut (),
        at: At<'_, L, S, 0>,
    ) -> Option<u64> {
        if at.k < self.n {
            return None;
        }
        self.y[at.px] = std::array::from_fn(|c| at.lanes.y[c][at.l]);
        Some(at.k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{Fixed, Widest};
    use super::super::two_link::{TwoLinkDrive, UNIT};
    use super::*;

    /// The final-state kernel gives the same pixels at every lane width (lanes refill at
    /// different moments, so this also checks the bookkeeping), and a damped pixel from rest
    /// near hanging settles at the hanging equilibrium with no turns.
    #[test]
    fn basin_lane_widths_agree() {
        use super::super::super::basins::label;
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
        let s1 = final_state_run::<Fixed<1>, 4, _>(
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
                4 => final_state_run::<Fixed<4>, 4, _>(
                    &p, &y0, 3000, 0.01, &settle, &mut got, &mut aux,
                ),
                8 => final_state_run::<Fixed<8>, 4, _>(
                    &p, &y0, 3000, 0.01, &settle, &mut got, &mut aux,
                ),
                _ => final_state_run::<Widest, 4, _>(
                    &p, &y0, 3000, 0.01, &settle, &mut got, &mut aux,
                ),
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
                1 => final_state_run::<Fixed<1>, 4, _>(&p, &y0, 4000, h, &settle, &mut o, &mut aux),
                4 => final_state_run::<Fixed<4>, 4, _>(&p, &y0, 4000, h, &settle, &mut o, &mut aux),
                8 => final_state_run::<Fixed<8>, 4, _>(&p, &y0, 4000, h, &settle, &mut o, &mut aux),
                _ => final_state_run::<Widest, 4, _>(&p, &y0, 4000, h, &settle, &mut o, &mut aux),
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
