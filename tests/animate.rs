//! The visual lab: animation frames (count, bob positions against the integrator, trace fade),
//! GIF/PNG output, determinism, the energy budget's closure, and the CLI's bad-input errors.

use assert_cmd::Command;
use pendula::analysis::animate::{AnimationKinematics, LinkEndPath};
use pendula::analysis::{
    animation_trajectory, simulate, AnimateOptions, AnimateStyle, EnergyBudget, SimulateOptions,
};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, Damping, Link, PivotMotion};
use pendula::observe::Silent;
use pendula::plot::animation::{write_animation, Animation, GifPalette, BOB_RADIUS};
use pendula::plot::lab::EnergyFigure;
use std::f64::consts::PI;

fn opts(duration: f64, fps: f64, size: (u32, u32)) -> AnimateOptions {
    AnimateOptions {
        fps,
        duration,
        speed: 1.0,
        substeps: 10,
        traces: vec![2],
        trace_time: 1.0,
        size,
        style: AnimateStyle::default(),
        gif: None,
        frames: None,
    }
}

fn rk4(o: &AnimateOptions) -> Method {
    Method::Rk4 { dt: o.sample_dt() }
}

fn triple() -> Chain {
    Chain::new(ChainParams::equal_points(3)).unwrap()
}

#[test]
fn frame_count_is_duration_times_fps_in_gif_and_pngs() {
    let chain = triple();
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(1.2, 10.0, (160, 120));
    o.gif = Some(dir.path().join("a.gif"));
    o.frames = Some(dir.path().join("frames"));
    let x0 = [2.0, 2.5, 3.0, 0.0, 0.0, 0.0];
    let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
    let kin = AnimationKinematics::new(&chain, &tr, &o);
    let anim = Animation::new(&kin, &o);
    assert_eq!(anim.frames(), 12);
    let stats = write_animation(&anim, o.gif.as_deref(), o.frames.as_deref(), &mut Silent).unwrap();
    assert_eq!(stats.frames, 12);
    // Decode the GIF independently: 12 frames of 160 × 120, 10 cs apart, looping.
    let file = std::fs::File::open(o.gif.as_ref().unwrap()).unwrap();
    let mut decoder = gif::DecodeOptions::new().read_info(file).unwrap();
    assert_eq!((decoder.width(), decoder.height()), (160, 120));
    let mut count = 0;
    while let Some(f) = decoder.read_next_frame().unwrap() {
        assert_eq!(f.delay, 10);
        count += 1;
    }
    assert_eq!(count, 12);
    let pngs = std::fs::read_dir(o.frames.as_ref().unwrap())
        .unwrap()
        .count();
    assert_eq!(pngs, 12);
    assert!(!dir.path().join("a.gif.partial").exists());
}

#[test]
fn gif_bytes_are_deterministic() {
    let chain = triple();
    let dir = tempfile::tempdir().unwrap();
    let o = opts(0.5, 10.0, (120, 100));
    let x0 = [2.0, 2.5, 3.0, 0.0, 0.0, 0.0];
    let mut bytes = vec![];
    for name in ["a.gif", "b.gif"] {
        let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
        let kin = AnimationKinematics::new(&chain, &tr, &o);
        let anim = Animation::new(&kin, &o);
        let p = dir.path().join(name);
        write_animation(&anim, Some(&p), None, &mut Silent).unwrap();
        bytes.push(std::fs::read(&p).unwrap());
    }
    assert_eq!(bytes[0], bytes[1]);
}

/// The GIF has one global palette and no local ones; it holds the bob colour exactly, and
/// every frame paints every bob's centre with that one index, so the bobs' red cannot shift
/// between frames. Decoded frames are the rendered frames to within the palette's steps.
#[test]
fn gif_frames_share_one_global_palette_and_the_bob_index() {
    let chain = triple();
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(1.0, 10.0, (480, 360));
    o.traces = vec![1, 2];
    let x0 = [2.0, 2.5, 3.0, 0.0, 0.0, 0.0];
    let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
    let kin = AnimationKinematics::new(&chain, &tr, &o);
    let anim = Animation::new(&kin, &o);
    let path = dir.path().join("a.gif");
    write_animation(&anim, Some(&path), None, &mut Silent).unwrap();

    let palette = GifPalette::of(&anim);
    assert!(palette.colours().len() <= 256);
    let bob = palette
        .colours()
        .iter()
        .position(|c| *c == o.style.bob)
        .expect("the bob colour is a palette entry") as u8;

    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options
        .read_info(std::fs::File::open(&path).unwrap())
        .unwrap();
    let global = decoder.global_palette().expect("a global palette").to_vec();
    assert_eq!(&global[..palette.bytes().len()], &palette.bytes()[..]);
    let (w, h) = (480usize, 360usize);
    let mut k = 0;
    while let Some(f) = decoder.read_next_frame().unwrap() {
        assert!(f.palette.is_none(), "frame {k} has a local palette");
        assert_eq!((f.width as usize, f.height as usize), (w, h));
        let idx = f.buffer.to_vec();
        for (j, &(bx, by)) in anim.bob_pixels(k).iter().enumerate() {
            let (x, y) = (bx.floor() as usize, by.floor() as usize);
            if x < w && y < h {
                assert_eq!(idx[y * w + x], bob, "frame {k}, bob {}", j + 1);
            }
        }
        // The indexed frame against the RGB frame it was made from.
        let rgb = anim.render(k).unwrap();
        let mut err = 0u64;
        let mut worst = 0u8;
        for (p, &i) in idx.iter().enumerate() {
            let c = &global[3 * i as usize..3 * i as usize + 3];
            for ch in 0..3 {
                let d = rgb[3 * p + ch].abs_diff(c[ch]);
                err += u64::from(d);
                worst = worst.max(d);
            }
        }
        let mean = err as f64 / (3 * w * h) as f64;
        assert!(mean < 1.5, "frame {k}: mean colour error {mean:.2}");
        k += 1;
    }
    assert_eq!(k, 10);
}

/// Centroid of the pixels within `r` of `centre` whose colour is within 40 of `colour`.
fn centroid(
    rgb: &[u8],
    w: usize,
    centre: (f64, f64),
    r: f64,
    colour: [u8; 3],
) -> (f64, f64, usize) {
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0usize);
    let h = rgb.len() / (3 * w);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
            if (fx - centre.0).hypot(fy - centre.1) > r {
                continue;
            }
            let p = &rgb[3 * (y * w + x)..3 * (y * w + x) + 3];
            let d: i32 = (0..3).map(|c| (p[c] as i32 - colour[c] as i32).abs()).sum();
            if d < 40 {
                sx += fx;
                sy += fy;
                n += 1;
            }
        }
    }
    (sx / n.max(1) as f64, sy / n.max(1) as f64, n)
}

#[test]
fn bobs_sit_where_the_integrator_says_at_t_k() {
    // Unequal links so that a mix-up of links would show.
    let chain = Chain::new(ChainParams::new(vec![
        Link::point(1.0, 1.0),
        Link::point(0.7, 2.0),
        Link::point(0.5, 0.5),
    ]))
    .unwrap();
    let mut o = opts(2.0, 20.0, (600, 400));
    o.speed = 1.5;
    o.substeps = 8;
    let x0 = [1.0, -0.5, 0.8, 0.0, 0.0, 0.0];
    let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
    let kin = AnimationKinematics::new(&chain, &tr, &o);
    let anim = Animation::new(&kin, &o);
    let vp = anim.viewport;
    for k in [0usize, 17, 39] {
        // t_k = k · α / fps; the integrator run on its own to t_k with the same step.
        let t_k = k as f64 * o.speed / o.fps;
        assert!((anim.time(k) - t_k).abs() < 1e-12);
        let theta = if k == 0 {
            x0[..3].to_vec()
        } else {
            let alone = simulate(
                &chain,
                &rk4(&o),
                &x0,
                &SimulateOptions {
                    t_end: t_k,
                    dt_out: t_k,
                },
                &mut Silent,
            )
            .unwrap();
            alone.final_state()[..3].to_vec()
        };
        let rgb = anim.render(k).unwrap();
        let (mut x, mut y) = (0.0, 0.0);
        let lengths = [1.0, 0.7, 0.5];
        for j in 0..3 {
            x += lengths[j] * theta[j].sin();
            y -= lengths[j] * theta[j].cos();
            let expect = (vp.cx + vp.scale * x, vp.cy - vp.scale * y);
            let (cx, cy, n) = centroid(&rgb, 600, expect, 2.0 * BOB_RADIUS, o.style.bob);
            assert!(n > 60, "frame {k} bob {}: only {n} bob pixels", j + 1);
            let err = (cx - expect.0).hypot(cy - expect.1);
            assert!(
                err < 0.75,
                "frame {k} bob {}: centroid off by {err:.2} px",
                j + 1
            );
        }
    }
}

/// A driven pivot is drawn where its motion s(t) = A cos(Ωt + φ) has taken it, and the
/// spirograph traces the bob in the lab frame: its speed is the lab-frame speed, checked
/// against finite differences of the traced positions.
#[test]
fn a_driven_pivot_is_drawn_where_it_is() {
    let mut params = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    let pivot = PivotMotion {
        x_amplitude: 0.4,
        y_amplitude: 0.1,
        frequency: 3.0,
        phase: 0.3,
    };
    params.drive.pivot = Some(pivot);
    let chain = Chain::new(params).unwrap();
    let mut o = opts(2.0, 20.0, (600, 400));
    o.traces = vec![0];
    let x0 = [0.6, 0.0];
    let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
    let kin = AnimationKinematics::new(&chain, &tr, &o);
    let anim = Animation::new(&kin, &o);
    let vp = anim.viewport;
    let path = LinkEndPath::new(&chain, &tr, 0);
    let (pos, speed) = (&path.position, &path.speed);
    for k in [0usize, 9, 23, 37] {
        let i = o.frame_sample(k);
        let t = tr.t[i];
        let th = tr.theta[[i, 0]];
        let c = (3.0 * t + 0.3).cos();
        let world = [0.4 * c + th.sin(), 0.1 * c - th.cos()];
        let expect = vp.to_pixel(world);
        let rgb = anim.render(k).unwrap();
        let (cx, cy, n) = centroid(&rgb, 600, expect, 2.0 * BOB_RADIUS, o.style.bob);
        assert!(n > 60, "frame {k}: only {n} bob pixels");
        let err = (cx - expect.0).hypot(cy - expect.1);
        assert!(err < 0.75, "frame {k}: bob centroid off by {err:.2} px");
        assert!((pos[i][0] - world[0]).abs() < 1e-12 && (pos[i][1] - world[1]).abs() < 1e-12);
    }
    // Lab-frame speed against central differences of the path (samples 1e-2 s apart, O(h²)).
    let h = tr.t[1] - tr.t[0];
    for i in [5usize, 60, 150] {
        let v = ((pos[i + 1][0] - pos[i - 1][0]).hypot(pos[i + 1][1] - pos[i - 1][1])) / (2.0 * h);
        assert!(
            (v - speed[i]).abs() < 2e-3 * speed[i].max(1.0),
            "sample {i}: speed {} vs finite difference {v}",
            speed[i]
        );
    }
}

#[test]
fn traces_fade_linearly_over_trace_time() {
    // No gravity: one link spins uniformly at 2π/3 rad/s, so the trace is an arc whose
    // points have known ages.
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 0.0;
    let chain = Chain::new(p).unwrap();
    let omega = 2.0 * PI / 3.0;
    let mut o = opts(2.0, 25.0, (600, 400));
    o.traces = vec![0];
    o.trace_time = 1.2;
    o.style.traces = vec![[0, 0, 0]];
    let x0 = [0.0, omega];
    let tr = animation_trajectory(&chain, &rk4(&o), &x0, &o, &mut Silent).unwrap();
    let kin = AnimationKinematics::new(&chain, &tr, &o);
    let anim = Animation::new(&kin, &o);
    let k = 45;
    let rgb = anim.render(k).unwrap();
    let t_now = anim.time(k);
    let vp = anim.viewport;
    // Darkness of the darkest pixel near a point (0: background, 1: full trace colour).
    let dark = |p: (f64, f64)| {
        let mut best: f64 = 0.0;
        for dy in -2i32..=2 {
            for dx in -2i32..=2 {
                let (x, y) = (p.0 as i32 + dx, p.1 as i32 + dy);
                let i = 3 * (y as usize * 600 + x as usize);
                let grey = rgb[i..i + 3].iter().map(|&c| c as f64).sum::<f64>() / 3.0;
                best = best.max(1.0 - grey / 255.0);
            }
        }
        best
    };
    let mut last = 1.1;
    for age in [0.2, 0.4, 0.6, 0.8, 1.0] {
        let th = omega * (t_now - age);
        let p = vp.to_pixel([th.sin(), -th.cos()]);
        let d = dark(p);
        let expect = o.trace_alpha(age);
        assert!((expect - (1.0 - age / 1.2)).abs() < 1e-12);
        assert!(
            (d - expect).abs() < 0.1,
            "age {age}: darkness {d:.3}, expected {expect:.3}"
        );
        assert!(d < last, "trace must get lighter with age");
        last = d;
    }
    // Older than trace_time: gone.
    let th = omega * (t_now - 1.5);
    assert!(dark(vp.to_pixel([th.sin(), -th.cos()])) < 0.02);
}

#[test]
fn energy_budget_closes() {
    // Conservative: Σ T_j + V equals the model's energy (an independent route) at every sample.
    let chain = triple();
    let x0 = [2.0, 2.5, 3.0, 0.0, 0.0, 0.0];
    let sim = SimulateOptions {
        t_end: 5.0,
        dt_out: 0.01,
    };
    let dop = Method::Dop853 {
        rtol: 1e-11,
        atol: 1e-11,
        h_max: f64::INFINITY,
    };
    let tr = simulate(&chain, &dop, &x0, &sim, &mut Silent).unwrap();
    let b = EnergyBudget::new(&chain, &tr);
    let scale = b.total[0].abs().max(9.81 * 6.0);
    for k in 0..b.t.len() {
        assert!(
            (b.sum_at(k) - b.total[k]).abs() < 1e-12 * scale,
            "sample {k}"
        );
    }
    // Damped: E(t) − W(t) stays E(0) to integrator accuracy while damping removes a lot.
    let mut p = ChainParams::equal_points(3);
    p.damping = Damping {
        absolute: vec![0.3; 3],
        joint: vec![],
    };
    let damped = Chain::new(p).unwrap();
    let tr = simulate(&damped, &dop, &x0, &sim, &mut Silent).unwrap();
    let b = EnergyBudget::new(&damped, &tr);
    let dissipated = -b.work.last().unwrap();
    assert!(
        dissipated > 0.2 * (b.total[0] - b.potential_floor),
        "{dissipated}"
    );
    let fig = EnergyFigure {
        budget: &b,
        title: String::new(),
    };
    let stack = fig.stack();
    assert_eq!(stack.len(), 3 + 2);
    let top = stack.last().unwrap();
    for k in 0..b.t.len() {
        assert!((b.sum_at(k) - b.total[k]).abs() < 1e-12 * scale);
        let drift = (b.balance_at(k) - b.total[0]).abs();
        assert!(drift < 1e-8 * scale, "sample {k}: balance drift {drift:e}");
        // The stacked figure's top is E(0) − V_min: the balance drawn closed.
        assert!((top[k] - (b.total[0] - b.potential_floor)).abs() < 1e-8 * scale);
    }
    // RK4 at seed 002's step (δt = 0.004 s) closes it to its own accuracy.
    let tr = simulate(&damped, &Method::Rk4 { dt: 0.004 }, &x0, &sim, &mut Silent).unwrap();
    let b = EnergyBudget::new(&damped, &tr);
    let worst = (0..b.t.len())
        .map(|k| (b.balance_at(k) - b.total[0]).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-4 * scale, "RK4 balance drift {worst:e}");
}

fn pendula() -> Command {
    Command::cargo_bin("pendula").unwrap()
}

#[test]
fn cli_animate_writes_gif_still_and_figures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = pendula()
        .args([
            "animate",
            "--preset",
            "double",
            "--theta",
            "2,2",
            "--duration",
            "0.6",
        ])
        .args(["--fps", "10", "--width", "200", "--height", "150", "--json"])
        .arg("--gif")
        .arg(d.join("a.gif"))
        .arg("--plot")
        .arg(d.join("still.png"))
        .arg("--energy-plot")
        .arg(d.join("e.png"))
        .arg("--phase")
        .arg(d.join("p.svg"))
        .arg("--spirograph")
        .arg(d.join("s.png"))
        .arg("-o")
        .arg(d.join("a.h5"))
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["frames"], 6);
    // The energy budget is in the file: Σ_j T_j + V = E at every sample.
    let f = hdf5::File::open(d.join("a.h5")).unwrap();
    let g = f.group("trajectory").unwrap();
    let kin = g
        .dataset("kinetic_energy")
        .unwrap()
        .read_2d::<f64>()
        .unwrap();
    let pot: Vec<f64> = g.dataset("potential_energy").unwrap().read_raw().unwrap();
    let total: Vec<f64> = g.dataset("energy").unwrap().read_raw().unwrap();
    assert_eq!(kin.dim(), (total.len(), 2));
    for k in 0..total.len() {
        let sum = kin.row(k).sum() + pot[k];
        assert!(
            (sum - total[k]).abs() < 1e-12 * total[k].abs().max(1.0),
            "sample {k}"
        );
    }
    assert_eq!(v["sample_dt"], 0.01);
    for f in ["a.gif", "still.png", "e.png", "p.svg", "s.png", "a.h5"] {
        assert!(d.join(f).metadata().unwrap().len() > 100, "{f}");
    }
    // Refuses to overwrite without --force.
    pendula()
        .args([
            "animate",
            "--preset",
            "double",
            "--theta",
            "2,2",
            "--duration",
            "0.2",
        ])
        .arg("--gif")
        .arg(d.join("a.gif"))
        .assert()
        .code(2);
}

#[test]
fn cli_bad_input_exits_2_naming_the_flag_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("x.gif");
    let cases: [(&[&str], &str); 7] = [
        (&["--fps", "0"], "--fps"),
        (&["--fps", "-5"], "--fps"),
        (&["--duration", "0"], "--duration"),
        (&["--width", "0"], "--width"),
        (&["--height", "100000"], "--height"),
        (&["--trace", "4"], "--trace"),
        (
            &[
                "--duration",
                "1000",
                "--fps",
                "50",
                "--width",
                "4000",
                "--height",
                "4000",
            ],
            "--duration",
        ),
    ];
    for (extra, flag) in cases {
        let out = pendula()
            .args(["animate", "--preset", "triple", "--theta", "1,1,1"])
            .args(extra)
            .arg("--gif")
            .arg(&gif)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(flag), "{extra:?}: {err}");
        assert!(!gif.exists(), "{extra:?} wrote a file");
    }
    let out = pendula()
        .args([
            "simulate", "--preset", "double", "--theta", "1,1", "--t-end", "1",
        ])
        .args(["--phase-links", "3", "--phase"])
        .arg(dir.path().join("p.png"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--phase-links"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn the_analysis_spec_is_seed_002s_engine() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/analyses/triple-pendulum-animation.toml"
    ))
    .unwrap();
    let spec = pendula::spec::parse(&text, "triple-pendulum-animation.toml")
        .unwrap()
        .validate()
        .unwrap();
    let r = &spec.analysis;
    let o = pendula::kinds::animate::options(&**r).expect("an animation");
    assert_eq!(o.frame_count(), 300);
    // δt = α / (fps · S) = 1 / (25 · 10).
    assert_eq!(spec.method, Method::Rk4 { dt: 0.004 });
    assert_eq!(o.traces, vec![1, 2]);
    assert!(spec.figures.energy.is_some() && spec.figures.spirograph.is_some());
    // [figures] belongs to simulate and animate only.
    let bad = text.replace("kind = \"animate\"", "kind = \"modes\"");
    assert!(pendula::spec::parse(&bad, "x").unwrap().validate().is_err());
}
