//! The pixel grid of an initial-condition map and its tiling.
//!
//! Pixel (i, j) — row i, column j, row-major index p = i·W + j — starts at the state `base` with
//! component `x.index` set to `x.lo + (j + 0.5)·((x.hi − x.lo)/W)` and `y.index` to
//! `y.lo + (i + 0.5)·((y.hi − y.lo)/H)`. With the default window [−π, π)² this is benchmark F's
//! `−π + (j + 0.5)·(2π/W)` to the bit (π − (−π) is exactly 2π in binary64).

use crate::model::Chain;
use serde::Serialize;

/// One axis of the map: a state component and its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GridAxis {
    /// Index into the state (θ_1..θ_N, ω_1..ω_N), 0-based.
    pub index: usize,
    pub lo: f64,
    pub hi: f64,
}

impl GridAxis {
    /// Centre of pixel `j` of `n`.
    #[inline]
    pub fn centre(&self, j: usize, n: usize) -> f64 {
        self.lo + (j as f64 + 0.5) * ((self.hi - self.lo) / n as f64)
    }
}

/// The grid: resolution, the two axes, the fixed rest of the state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    /// Columns.
    pub x: GridAxis,
    /// Rows.
    pub y: GridAxis,
    /// The state every pixel starts from before its two coordinates are set.
    pub base: Vec<f64>,
    /// An energy-shell grid: one velocity is solved from the energy (see [`Shell`]).
    pub shell: Option<Shell>,
}

/// An energy-shell grid: after the two map coordinates are set, the velocity `omega` (a state
/// index N..2N, neither map axis) is the larger root of E(x) = `energy`, which must be ≥ 0
/// (the convention θ̇_j ≥ 0 of a Poincaré plane; with the other velocities zero the two roots
/// are ±, so this is the non-negative one). E is quadratic in θ̇_j:
/// ½ M_jj θ̇_j² + (Σ_{k≠j} M_jk θ̇_k) θ̇_j + T_rest + V − E = 0. Pixels without a real
/// non-negative root are energetically forbidden and are not integrated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shell {
    pub omega: usize,
    /// J.
    pub energy: f64,
}

impl Shell {
    /// E(x) as the quadratic a θ̇_j² + b θ̇_j + e0 in the solved velocity θ̇_j: (a, b, e0), e0
    /// the energy with θ̇_j = 0 (which `x[omega]` is set to).
    fn quadratic(&self, chain: &Chain, x: &mut [f64]) -> (f64, f64, f64) {
        let n = chain.links();
        let j = self.omega - n;
        x[self.omega] = 0.0;
        let m = chain.mass_matrix(&x[..n]);
        let a = 0.5 * m[j * n + j];
        let b: f64 = (0..n).map(|k| m[j * n + k] * x[n + k]).sum();
        let e0 = chain.kinetic_energy(x) + chain.potential_energy(&x[..n]);
        (a, b, e0)
    }

    /// Solves `x[omega]` in place; false if no real root ≥ 0 exists.
    pub fn solve(&self, chain: &Chain, x: &mut [f64]) -> bool {
        let (a, b, e0) = self.quadratic(chain, x);
        // With θ̇_j = 0: c = T_rest + V − E.
        let c = e0 - self.energy;
        let disc = b * b - 4.0 * a * c;
        if disc.is_nan() || disc < 0.0 {
            return false;
        }
        let sq = disc.sqrt();
        // The larger root, without cancellation.
        let root = if b <= 0.0 {
            (sq - b) / (2.0 * a)
        } else {
            -2.0 * c / (b + sq)
        };
        if root.is_nan() || root < 0.0 {
            return false;
        }
        x[self.omega] = root;
        true
    }

    /// The least energy of a state whose coordinates other than the solved velocity are those
    /// of `x`: E with θ̇_j at the non-negative value that minimises the kinetic energy (the
    /// vertex of the quadratic in [`Shell::solve`], or 0). A point is on the shell's reach,
    /// i.e. [`Shell::solve`] succeeds, exactly when this is ≤ the shell's energy.
    pub fn least_energy(&self, chain: &Chain, x: &mut [f64]) -> f64 {
        let (a, b, e0) = self.quadratic(chain, x);
        let t = (-b / (2.0 * a)).max(0.0);
        e0 + (a * t + b) * t
    }
}

/// What an energy shell reaches of a grid's window (see [`Grid::reach`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// The bounding box (x range, y range) of the reachable lattice points, padded by one
    /// lattice step and kept inside the window; `None` when no lattice point is reachable.
    pub window: Option<((f64, f64), (f64, f64))>,
    /// The least energy over the lattice (J): below it nothing of the window is reachable.
    pub least: f64,
}

impl Grid {
    /// The part of the window the energy shell reaches, found on a `samples` × `samples`
    /// lattice of cell centres over the window (`None` for a grid without a shell). The box
    /// is the lattice's: a reachable sliver narrower than a lattice step between two
    /// unreachable points can be missed, and the box is one step wider than the reachable
    /// points on every side for that reason.
    pub fn reach(&self, chain: &Chain, samples: usize) -> Option<Reach> {
        let shell = self.shell?;
        let samples = samples.max(2);
        let (x, y) = (&self.x, &self.y);
        let mut state = self.base.clone();
        let mut least = f64::INFINITY;
        let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
        for i in 0..samples {
            for j in 0..samples {
                state[x.index] = x.centre(j, samples);
                state[y.index] = y.centre(i, samples);
                let e = shell.least_energy(chain, &mut state);
                least = least.min(e);
                if e <= shell.energy {
                    x0 = x0.min(j);
                    x1 = x1.max(j);
                    y0 = y0.min(i);
                    y1 = y1.max(i);
                }
            }
        }
        let window = (x0 != usize::MAX).then(|| {
            let side = |a: &GridAxis, lo: usize, hi: usize| {
                let step = (a.hi - a.lo) / samples as f64;
                (
                    (a.lo + lo as f64 * step - step).max(a.lo),
                    (a.lo + (hi + 1) as f64 * step + step).min(a.hi),
                )
            };
            (side(x, x0, x1), side(y, y0, y1))
        });
        Some(Reach { window, least })
    }

    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// The start state of pixel (row `i`, column `j`), written into `out`.
    #[inline]
    pub fn state_into(&self, i: usize, j: usize, out: &mut [f64]) {
        out.copy_from_slice(&self.base);
        out[self.x.index] = self.x.centre(j, self.width);
        out[self.y.index] = self.y.centre(i, self.height);
    }

    /// The start state of pixel (i, j) of `chain`, on the energy shell if there is one; false
    /// (and `out` unspecified in the solved velocity) where the shell is out of reach.
    #[inline]
    pub fn start(&self, chain: &Chain, i: usize, j: usize, out: &mut [f64]) -> bool {
        self.state_into(i, j, out);
        self.shell.is_none_or(|s| s.solve(chain, out))
    }

    pub fn state(&self, i: usize, j: usize) -> Vec<f64> {
        let mut v = self.base.clone();
        self.state_into(i, j, &mut v);
        v
    }

    /// Column centres.
    pub fn x_centres(&self) -> Vec<f64> {
        (0..self.width)
            .map(|j| self.x.centre(j, self.width))
            .collect()
    }

    /// Row centres.
    pub fn y_centres(&self) -> Vec<f64> {
        (0..self.height)
            .map(|i| self.y.centre(i, self.height))
            .collect()
    }
}

/// Square tiles of `size` pixels (clipped at the right and bottom edges), numbered row-major.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tiling {
    pub width: usize,
    pub height: usize,
    pub size: usize,
}

/// Rows `r0..r1`, columns `c0..c1` of one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    pub index: usize,
    pub r0: usize,
    pub r1: usize,
    pub c0: usize,
    pub c1: usize,
}

impl TileRect {
    pub fn rows(&self) -> usize {
        self.r1 - self.r0
    }
    pub fn cols(&self) -> usize {
        self.c1 - self.c0
    }
    pub fn pixels(&self) -> usize {
        self.rows() * self.cols()
    }
}

impl Tiling {
    pub fn new(width: usize, height: usize, size: usize) -> Tiling {
        Tiling {
            width,
            height,
            size: size.max(1),
        }
    }

    /// The default tile edge: 64, or 32 for maps up to 256 pixels on a side so that small
    /// maps still split into enough tiles for the threads.
    pub fn default_size(width: usize, height: usize) -> usize {
        if width.max(height) <= 256 {
            32
        } else {
            64
        }
    }

    pub fn cols(&self) -> usize {
        self.width.div_ceil(self.size)
    }
    pub fn rows(&self) -> usize {
        self.height.div_ceil(self.size)
    }
    pub fn count(&self) -> usize {
        self.rows() * self.cols()
    }

    pub fn rect(&self, index: usize) -> TileRect {
        let (ti, tj) = (index / self.cols(), index % self.cols());
        TileRect {
            index,
            r0: ti * self.size,
            r1: ((ti + 1) * self.size).min(self.height),
            c0: tj * self.size,
            c1: ((tj + 1) * self.size).min(self.width),
        }
    }

    /// The tiles of shard `i` of `n` (1-based): every n-th tile, so that each shard gets a
    /// fair share of the cheap and the expensive regions.
    pub fn shard(&self, i: usize, n: usize) -> Vec<usize> {
        (0..self.count()).filter(|t| t % n == i - 1).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn centres_match_benchmark_f() {
        let a = GridAxis {
            index: 0,
            lo: -PI,
            hi: PI,
        };
        for w in [64usize, 128, 1000] {
            for j in [0, 1, w / 2, w - 1] {
                assert_eq!(
                    a.centre(j, w),
                    -PI + (j as f64 + 0.5) * (2.0 * PI / w as f64)
                );
            }
        }
    }

    #[test]
    fn tiles_cover_once() {
        let t = Tiling::new(100, 70, 32);
        let mut hit = vec![0u8; 100 * 70];
        for k in 0..t.count() {
            let r = t.rect(k);
            for i in r.r0..r.r1 {
                for j in r.c0..r.c1 {
                    hit[i * 100 + j] += 1;
                }
            }
        }
        assert!(hit.iter().all(|&h| h == 1));
        let mut all: Vec<usize> = (1..=3).flat_map(|i| t.shard(i, 3)).collect();
        all.sort();
        assert_eq!(all, (0..t.count()).collect::<Vec<_>>());
    }
}
