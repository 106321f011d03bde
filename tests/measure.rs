//! Oracles for the label-grid measures: straight and round boundaries (D = 1, α = 1), exact
//! uncertain fractions and entropies of a half-plane, and Newton's z³ = 1 basins
//! (published D ≈ 1.42, α ≈ 0.58, Wada).

use pendula::analysis::measure::*;

fn grid(n: usize, f: impl Fn(f64, f64) -> i32) -> LabelGrid {
    let mut v = Vec::with_capacity(n * n);
    for iy in 0..n {
        for ix in 0..n {
            let x = (ix as f64 + 0.5) / n as f64;
            let y = (iy as f64 + 0.5) / n as f64;
            v.push(f(x, y));
        }
    }
    LabelGrid::new(n, n, &v).unwrap()
}

/// Newton's method for z³ = 1 on [−1, 1]²: label = the root reached (0, 1, 2).
fn newton(n: usize) -> LabelGrid {
    let roots = [
        (1.0, 0.0),
        (-0.5, 0.75f64.sqrt()),
        (-0.5, -(0.75f64.sqrt())),
    ];
    grid(n, |x, y| {
        let (mut a, mut b) = (2.0 * x - 1.0, 2.0 * y - 1.0);
        for _ in 0..200 {
            // z − (z³ − 1)/(3z²) = (2z³ + 1)/(3z²)
            let (a2, b2) = (a * a - b * b, 2.0 * a * b);
            let (a3, b3) = (a2 * a - b2 * b, a2 * b + b2 * a);
            let (nr, ni) = (2.0 * a3 + 1.0, 2.0 * b3);
            let (dr, di) = (3.0 * a2, 3.0 * b2);
            let d = dr * dr + di * di;
            if d == 0.0 {
                break;
            }
            a = (nr * dr + ni * di) / d;
            b = (ni * dr - nr * di) / d;
        }
        let mut best = 0;
        let mut dist = f64::INFINITY;
        for (k, r) in roots.iter().enumerate() {
            let q = (a - r.0).powi(2) + (b - r.1).powi(2);
            if q < dist {
                dist = q;
                best = k;
            }
        }
        best as i32
    })
}

fn inside(d: f64, ci: (f64, f64)) -> bool {
    ci.0 <= d && d <= ci.1
}

#[test]
fn half_plane_and_circle_have_dimension_one() {
    let half = grid(1024, |x, _| (x < 0.3).into());
    let circle = grid(1024, |x, y| {
        ((x - 0.5).powi(2) + (y - 0.5).powi(2) < 0.1).into()
    });
    for (name, g) in [("half-plane", &half), ("circle", &circle)] {
        let b = box_dimension(g, &BoxOptions::default()).unwrap();
        // The digitised circle's staircase and curvature at the coarsest boxes bias D low by ~0.04.
        assert!(
            (b.dimension - 1.0).abs() < 0.05,
            "{name}: D = {}",
            b.dimension
        );
        if name == "half-plane" {
            assert!(inside(1.0, b.ci), "{name}: {:?}", b.ci);
        }
        let u = uncertainty_exponent(g, &UncertaintyOptions::default()).unwrap();
        assert!((u.alpha - 1.0).abs() < 0.03, "{name}: α = {}", u.alpha);
        let e = basin_entropy(g, &EntropyOptions::default()).unwrap();
        assert!(
            e.sbb < std::f64::consts::LN_2 && !e.fractal_by_log2,
            "{name}: {}",
            e.sbb
        );
    }
}

#[test]
fn half_plane_uncertain_fraction_and_entropy_are_exact() {
    // Vertical boundary between columns 307 and 308 of 1024: pixels within ε of it are uncertain.
    let n = 1024;
    let g = grid(n, |x, _| (x < 0.3).into());
    let u = uncertainty_exponent(&g, &UncertaintyOptions { max_eps: 16 }).unwrap();
    for (e, f) in u.eps.iter().zip(&u.fraction) {
        let expect = (2 * e) as f64 / (n - 32) as f64;
        assert!((f - expect).abs() < 1e-12, "ε = {e}: {f} vs {expect}");
    }
    // One shift (none): 5-px boxes over columns 0..1020; the boundary at x = 307.2·…: column
    // index of the first label-0 pixel is 308 (x = 308.5/1024 ≥ 0.3), so box 61 (305..310)
    // holds 3 columns of label 1 and 2 of label 0.
    let e = basin_entropy(
        &g,
        &EntropyOptions {
            eps: 5,
            shifts: 1,
            seed: 1,
        },
    )
    .unwrap();
    let s = -(0.6f64 * 0.6f64.ln() + 0.4 * 0.4f64.ln());
    assert!((e.sbb - s).abs() < 1e-12, "S_bb = {} vs {s}", e.sbb);
    let boxes = (204 * 204) as f64;
    assert!((e.sb - 204.0 * s / boxes).abs() < 1e-12, "S_b = {}", e.sb);
}

#[test]
fn newton_basins_fractal_and_wada() {
    let g = newton(800);
    assert_eq!(g.n_labels(), 3);
    let b = box_dimension(&g, &BoxOptions::default()).unwrap();
    let u = uncertainty_exponent(&g, &UncertaintyOptions::default()).unwrap();
    let e = basin_entropy(&g, &EntropyOptions::default()).unwrap();
    let w = wada_test(&g, &WadaOptions::default()).unwrap();
    eprintln!(
        "newton: D = {} {:?}, α = {} {:?}, S_b = {} S_bb = {} {:?}, W = {:?}",
        b.dimension, b.ci, u.alpha, u.ci, e.sb, e.sbb, e.sbb_ci, w.fraction
    );
    assert!((b.dimension - 1.42).abs() < 0.08, "D = {}", b.dimension);
    assert!((0.55..=0.65).contains(&u.alpha), "α = {}", u.alpha);
    assert!(w.wada, "W(r) = {:?}", w.fraction);
}

#[test]
fn three_sectors_are_not_wada() {
    // Three labels meeting at one point: the boundary is three rays, not Wada.
    let g = grid(512, |x, y| {
        let a = (y - 0.5).atan2(x - 0.5);
        ((a + std::f64::consts::PI) / (2.0 * std::f64::consts::PI / 3.0)).floor() as i32
    });
    let w = wada_test(&g, &WadaOptions::default()).unwrap();
    assert!(
        !w.wada && *w.fraction.last().unwrap() < 0.1,
        "{:?}",
        w.fraction
    );
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let g = newton(256);
    let run = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| {
                let b = box_dimension(&g, &BoxOptions::default()).unwrap();
                let u = uncertainty_exponent(&g, &UncertaintyOptions { max_eps: 8 }).unwrap();
                let e = basin_entropy(&g, &EntropyOptions::default()).unwrap();
                let w = wada_test(&g, &WadaOptions::default()).unwrap();
                (b.dimension, b.ci, u.alpha, e.sb, e.sbb, w.fraction)
            })
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn bad_grids_are_refused() {
    assert!(matches!(
        LabelGrid::new(4, 4, &[1; 16]),
        Err(MeasureError::FewLabels(1))
    ));
    assert!(LabelGrid::new(4, 3, &[1; 16]).is_err());
    let g = grid(64, |x, _| (x < 0.5).into());
    assert!(uncertainty_exponent(&g, &UncertaintyOptions { max_eps: 16 }).is_err());
    assert!(wada_test(&g, &WadaOptions::default()).is_err()); // two labels
}
