//! `pendula manifolds` as a command: the figure over a final-state map (`--map-file`, checked
//! against the run's model and the section's axes, refusals naming the field, exit 2, no file),
//! and a stop request (SIGINT) during the growth, which writes the branches so far marked
//! incomplete (the patterns of tests/interrupt.rs).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "common/running.rs"]
mod running;
#[path = "common/spawn.rs"]
mod spawn;

/// The Baker–Gollub pendulum θ̈ + θ̇/2 + sin θ = A cos(2t/3) as a spec's model.
fn model(a: f64) -> String {
    format!(
        "[model]\npreset = \"simple\"\ngravity = 1.0\nlength = 1.0\nmass = 1.0\n\
         [model.damping]\nabsolute = 0.5\n[model.drive.torque]\namplitude = {a}\nfrequency = 0.6666666666666666\n"
    )
}

/// A small final-state map of the pendulum at amplitude `a` over (x, y) at release.
fn write_map(dir: &Path, name: &str, a: f64, x: &str, y: &str) {
    let window = if x == "theta1" {
        "[-3.141592653589793, 3.141592653589793, -4.0, 3.0]"
    } else {
        "[-4.0, 3.0, -3.141592653589793, 3.141592653589793]"
    };
    let spec = format!(
        "kind = \"map\"\n{}[integrator]\nmethod = \"rk4\"\ndt = {}\n\
         [map]\nkind = \"final-state\"\nresolution = 12\nx = \"{x}\"\ny = \"{y}\"\n\
         window = {window}\nt_end = 30.0\n",
        model(a),
        3.0 * std::f64::consts::PI / 200.0
    );
    let toml = dir.join(format!("{name}.toml"));
    std::fs::write(&toml, spec).unwrap();
    let (code, _, err) = spawn::run(
        &["run", toml.to_str().unwrap(), "-o", &format!("{name}.h5")],
        dir,
    );
    assert_eq!(code, 0, "{err}");
}

/// The manifolds spec of the pendulum's period-1 saddle at A = 1.15 (short branches).
fn write_manifolds(dir: &Path, extra: &str) {
    let spec = format!(
        "kind = \"manifolds\"\n{}[initial]\ntheta = [-2.86]\nomega = [0.9]\n\
         [manifolds]\nresolution = 0.05\narclength = 3.0\n{extra}",
        model(1.15)
    );
    std::fs::write(dir.join("m.toml"), spec).unwrap();
}

/// The RGB pixels of a PNG, with its width.
fn pixels(path: &Path) -> (usize, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(step)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width as usize, px)
}

/// The figure is drawn over the map: its raster's colours (the unsettled grey of this chaotic
/// pendulum's map, 0x9a9a9a) are in the PNG together with the branches' white and black, and
/// the file names the map. Refusals: a map of another amplitude, a map over other axes, a
/// missing file, each a one-line error naming manifolds.map_file (--map-file on the command
/// line) with exit 2 and no output.
#[test]
fn the_figure_is_drawn_over_a_map_of_the_same_model_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_map(d, "same", 1.15, "theta1", "omega1");
    write_map(d, "other", 1.07, "theta1", "omega1");
    write_map(d, "swapped", 1.15, "omega1", "theta1");

    write_manifolds(d, "map_file = \"same.h5\"\n");
    let (code, out, err) = spawn::run(
        &["run", "m.toml", "-o", "m.h5", "--plot", "m.png", "--json"],
        d,
    );
    assert_eq!(code, 0, "{err}");
    let v = spawn::json(&out);
    assert_eq!(v["map_file"], "same.h5", "{v}");
    // The map's raster is the box of its grey; the branches are drawn inside it, stable
    // white and unstable black (the figure's own white and ink lie outside).
    let (w, px) = pixels(&d.join("m.png"));
    let grey = [0x9a, 0x9a, 0x9a];
    let at = |i: usize| (i % w, i / w);
    let inside: Vec<(usize, usize)> = (0..px.len()).filter(|&i| px[i] == grey).map(at).collect();
    assert!(
        inside.len() > 100_000,
        "the map's raster: {} grey pixels",
        inside.len()
    );
    let (x0, x1) = (
        inside.iter().map(|p| p.0).min().unwrap(),
        inside.iter().map(|p| p.0).max().unwrap(),
    );
    let (y0, y1) = (
        inside.iter().map(|p| p.1).min().unwrap(),
        inside.iter().map(|p| p.1).max().unwrap(),
    );
    let count = |c: [u8; 3]| {
        (0..px.len())
            .filter(|&i| {
                let (x, y) = at(i);
                px[i] == c && x > x0 && x < x1 && y > y0 && y < y1
            })
            .count()
    };
    let (white, black) = (count([0xff, 0xff, 0xff]), count([0, 0, 0]));
    assert!(
        white > 300 && black > 300,
        "branches over the raster: {white} white, {black} black pixels"
    );
    let f = hdf5::File::open(d.join("m.h5")).unwrap();
    let name: hdf5::types::VarLenUnicode = f
        .group("manifolds")
        .unwrap()
        .attr("map_file")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert_eq!(name.as_str(), "same.h5");
    drop(f);

    // The same run on the command line, through --map-file.
    let (code, _, err) = spawn::run(
        &[
            "manifolds",
            "--preset",
            "simple",
            "--gravity",
            "1",
            "--length",
            "1",
            "--mass",
            "1",
            "--damping",
            "0.5",
            "--torque-amplitude",
            "1.07",
            "--torque-frequency",
            "0.6666666666666666",
            "--theta",
            "-2.86",
            "--omega",
            "0.9",
            "--arclength",
            "1",
            "--resolution",
            "0.05",
            "--map-file",
            "same.h5",
            "-o",
            "cli.h5",
        ],
        d,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--map-file") && err.contains("another model"),
        "the flag's name: {err}"
    );
    assert!(!d.join("cli.h5").exists());

    for (file, says) in [
        ("other.h5", "another model"),
        ("swapped.h5", "its axes are (omega1, theta1)"),
        ("missing.h5", "missing.h5"),
    ] {
        write_manifolds(d, &format!("map_file = \"{file}\"\n"));
        let (code, _, err) = spawn::run(&["run", "m.toml", "-o", "r.h5", "--plot", "r.png"], d);
        assert_eq!(code, 2, "{file}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(
            err.contains("manifolds.map_file") && err.contains(says),
            "{file}: {err}"
        );
        assert!(
            !d.join("r.h5").exists() && !d.join("r.png").exists(),
            "{file}"
        );
    }
}

/// The Poincaré section of two conservative links is no map's (θ, θ̇) at release: a
/// map_file there is refused before any work, naming the field.
#[test]
fn a_two_link_section_refuses_a_map_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("dp.toml"),
        "kind = \"manifolds\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [2.0, 2.0]\n\
         [manifolds]\nstart = \"return\"\nmap_file = \"basins.h5\"\n",
    )
    .unwrap();
    let (code, _, err) = spawn::run(&["run", "dp.toml", "-o", "dp.h5"], d);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("manifolds.map_file") && err.contains("driven one-link chain"),
        "{err}"
    );
    assert!(!d.join("dp.h5").exists());
}

/// SIGINT during a growth that would take hours (arclength 1e4 at resolution 1e-3): the run
/// stops within 2 s of CPU with exit 1 and one line saying "interrupted", and the file holds
/// the branch so far, marked incomplete (`complete` = 0, `ended` = "interrupted") with its
/// neighbours within the resolution.
#[test]
fn a_stop_request_ends_the_growth_and_writes_the_branch_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_manifolds(d, "");
    let spec = std::fs::read_to_string(d.join("m.toml")).unwrap().replace(
        "resolution = 0.05\narclength = 3.0",
        "resolution = 0.001\narclength = 10000.0",
    );
    std::fs::write(d.join("m.toml"), spec).unwrap();
    let mut child = {
        let _g = spawn::spawn_guard();
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .args(["run", "m.toml", "-o", "m.h5"])
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    running::wait_running(&mut child, Duration::from_secs(1), "pendula manifolds");
    let cpu = running::cpu_time(child.id());
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let (status, took) =
        running::wait_stopped(&mut child, cpu, Duration::from_secs(2), "pendula manifolds");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(took < Duration::from_secs(2), "{err}: took {took:?}");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    let f = hdf5::File::open(d.join("m.h5")).unwrap();
    let g = f.group("manifolds").unwrap();
    let complete: i8 = g.attr("complete").unwrap().read_scalar().unwrap();
    assert_eq!(complete, 0);
    let b = g.group("unstable_plus").unwrap();
    let ended: hdf5::types::VarLenUnicode = b.attr("ended").unwrap().read_scalar().unwrap();
    assert_eq!(ended.as_str(), "interrupted");
    let gap: f64 = b.attr("largest_gap").unwrap().read_scalar().unwrap();
    assert!(gap <= 0.001, "largest gap {gap}");
    let n = b.dataset("theta").unwrap().size();
    assert!(n > 8, "{n} points");
}
