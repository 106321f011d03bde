//! An assembled map: its header (what a map file carries), its arrays, benchmark F's flip
//! statistics and checksums (FNV-1a, the point-symmetry test).

use super::*;

/// What a map is, besides its arrays: the header a map file carries (`store::map` writes and
/// reads it), and what its figure's titles and scales are made from.
#[derive(Debug, Clone, PartialEq)]
pub struct MapHeader {
    pub title: String,
    pub model_name: String,
    pub kind: MapKindId,
    pub spec_hash: String,
    pub width: usize,
    pub height: usize,
    pub tile: usize,
    pub t_max: f64,
    pub dt: f64,
    pub n_steps: u32,
    pub energy_skip: bool,
    pub kernel: String,
    pub flip_target: String,
    pub x_name: String,
    pub y_name: String,
    /// `[x_lo, x_hi, y_lo, y_hi]`.
    pub window: [f64; 4],
    pub shard: Option<(usize, usize)>,
    pub complete: bool,
    /// Per tile (row-major): whether the file holds it.
    pub tile_done: Vec<bool>,
    pub tile_steps: Vec<u64>,
    /// Link parameters, for figure titles.
    pub link_length: Vec<f64>,
    pub link_mass: Vec<f64>,
    pub gravity: f64,
    /// The state every pixel starts from before its two coordinates are set.
    pub base_state: Vec<f64>,
    /// Energy-shell grids: (E, the solved velocity's name).
    pub shell: Option<(f64, String)>,
    /// Damping per link (N·m·s), for figure titles.
    pub damping_absolute: Vec<f64>,
    pub damping_joint: Vec<f64>,
    /// Torque drive (amplitude N·m, frequency rad/s) and pivot drive (x, y amplitude m,
    /// frequency rad/s), if any.
    pub torque: Option<(f64, f64)>,
    pub pivot: Option<(f64, f64, f64)>,
}

impl MapHeader {
    pub fn tiling(&self) -> Tiling {
        Tiling::new(self.width, self.height, self.tile)
    }
    pub fn is_flip(&self) -> bool {
        self.kind.is_flip()
    }
}

impl PartialEq for MapData {
    /// Bit for bit in the f64 arrays (see [`same_bits`]).
    fn eq(&self, o: &Self) -> bool {
        (self.width, self.height, self.aux_width, self.steps)
            == (o.width, o.height, o.aux_width, o.steps)
            && self.flip_step == o.flip_step
            && self.flip_link == o.flip_link
            && self.class == o.class
            && same_bits(&self.value, &o.value)
            && same_bits(&self.aux, &o.aux)
            && self.done == o.done
    }
}

/// A whole map in memory (tests, benchmarks, rendering, assembling small files).
#[derive(Debug, Clone)]
pub struct MapData {
    pub width: usize,
    pub height: usize,
    pub flip_step: Vec<i32>,
    pub flip_link: Vec<u8>,
    pub class: Vec<u8>,
    pub value: Vec<f64>,
    /// [`MapKind::aux_columns`] per pixel, pixel-major (empty for other kinds).
    pub aux: Vec<f64>,
    pub aux_width: usize,
    /// Per tile: whether it is filled in.
    pub done: Vec<bool>,
    pub steps: u64,
}

impl MapData {
    pub fn new(opts: &MapOptions) -> MapData {
        let np = opts.grid.pixels();
        let flip = matches!(opts.kind, MapKind::FlipTime { .. });
        let m = opts.kind.aux_columns(opts.grid.base.len() / 2);
        MapData {
            width: opts.grid.width,
            height: opts.grid.height,
            flip_step: if flip { vec![0; np] } else { vec![] },
            flip_link: if flip { vec![0; np] } else { vec![] },
            class: vec![0; np],
            value: if flip { vec![] } else { vec![f64::NAN; np] },
            aux: vec![f64::NAN; np * m],
            aux_width: m,
            done: vec![false; opts.tiling().count()],
            steps: 0,
        }
    }

    /// Copies a tile in (a tile given twice overwrites itself with the same values).
    pub fn insert(&mut self, tiling: &Tiling, t: &TileResult) {
        let r = tiling.rect(t.index);
        let w = self.width;
        let mut q = 0;
        for i in r.r0..r.r1 {
            for j in r.c0..r.c1 {
                let p = i * w + j;
                self.class[p] = t.class[q];
                if !t.flip_step.is_empty() {
                    self.flip_step[p] = t.flip_step[q];
                    self.flip_link[p] = t.flip_link[q];
                }
                if !t.value.is_empty() {
                    self.value[p] = t.value[q];
                }
                let m = self.aux_width;
                if m > 0 && t.aux.len() == t.class.len() * m {
                    self.aux[p * m..(p + 1) * m].copy_from_slice(&t.aux[q * m..(q + 1) * m]);
                }
                q += 1;
            }
        }
        if !self.done[t.index] {
            self.steps += t.steps;
        }
        self.done[t.index] = true;
    }

    pub fn complete(&self) -> bool {
        self.done.iter().all(|&d| d)
    }

    /// Benchmark F's checks of a flip-time map.
    pub fn flip_stats(&self, dt: f64) -> FlipStats {
        let mut s = FlipStats::of(&self.flip_step, &self.class, dt);
        s.symmetry_mismatches = Some(symmetry_mismatches(&self.flip_step));
        s
    }
}

/// Benchmark F's checksum and counts (symmetry only where the whole map is at hand).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlipStats {
    pub n_flipped: u64,
    pub sum_flip_steps: u64,
    pub sum_flip_time: f64,
    /// FNV-1a 64 of the int32 LE row-major flip steps, 16 hex digits.
    pub fnv1a64: String,
    pub n_forbidden: u64,
    pub n_forbidden_flipped: u64,
    pub n_diverged: u64,
    pub symmetry_mismatches: Option<u64>,
}

impl FlipStats {
    pub fn of(k: &[i32], class: &[u8], dt: f64) -> FlipStats {
        let mut f = Fnv::new();
        f.i32s(k);
        let mut s = FlipStats {
            n_flipped: 0,
            sum_flip_steps: 0,
            sum_flip_time: 0.0,
            fnv1a64: f.hex(),
            n_forbidden: 0,
            n_forbidden_flipped: 0,
            n_diverged: 0,
            symmetry_mismatches: None,
        };
        for (&k, &c) in k.iter().zip(class) {
            if k > 0 {
                s.n_flipped += 1;
                s.sum_flip_steps += k as u64;
            }
            if c == class::FORBIDDEN {
                s.n_forbidden += 1;
                s.n_forbidden_flipped += u64::from(k > 0);
            }
            s.n_diverged += u64::from(c == class::DIVERGED);
        }
        s.sum_flip_time = s.sum_flip_steps as f64 * dt;
        s
    }
}

/// Whether the map should be point-symmetric, pixel p ↔ P−1−p: the window is symmetric about 0
/// on both axes, the rest of the start state is 0, no energy shell picks a velocity sign, and the
/// equations are odd under x → −x (damping and a vertical pivot motion keep that; a torque or a
/// horizontal pivot motion break it). Only flip-time and final-state maps have exactly comparable
/// outputs (integers); the other kinds' values are left out.
pub fn point_symmetric(chain: &Chain, opts: &MapOptions) -> bool {
    let g = &opts.grid;
    let drive = &chain.params().drive;
    matches!(
        opts.kind,
        MapKind::FlipTime { .. } | MapKind::FinalState { .. }
    ) && g.x.lo == -g.x.hi
        && g.y.lo == -g.y.hi
        && g.base.iter().all(|&v| v == 0.0)
        && g.shell.is_none()
        && drive.torque.is_none()
        && drive.pivot.is_none_or(|p| p.x_amplitude == 0.0)
}

/// #p with k_p ≠ k_{P−1−p}: the grid and the ODE are symmetric under θ → −θ.
pub fn symmetry_mismatches(k: &[i32]) -> u64 {
    let n = k.len();
    (0..n).filter(|&p| k[p] != k[n - 1 - p]).count() as u64
}

/// FNV-1a 64, one byte at a time (benchmark F's checksum; also the spec hash).
#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn i32s(&mut self, v: &[i32]) {
        for x in v {
            self.bytes(&x.to_le_bytes());
        }
    }
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}
