//! The README reads true: every image it links exists and is made by `analyses/make-figures.sh`
//! (or is the browser test's screenshot), and the numbers it quotes beside a figure are what the
//! shipped spec sets or prints today.

use assert_cmd::Command;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &str) -> String {
    std::fs::read_to_string(root().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The targets of `![alt](path)` links.
fn image_links(md: &str) -> Vec<String> {
    md.split("![")
        .skip(1)
        .filter_map(|s| {
            s.split_once("](")?
                .1
                .split_once(')')
                .map(|(p, _)| p.to_string())
        })
        .collect()
}

#[test]
fn every_linked_image_exists_and_has_a_maker() {
    let readme = read("README.md");
    let script = read("analyses/make-figures.sh");
    let links = image_links(&readme);
    assert!(links.len() >= 5, "{links:?}");
    for l in &links {
        assert!(
            root().join(l).is_file(),
            "README links {l}, which is missing"
        );
        let name = Path::new(l).file_name().unwrap().to_str().unwrap();
        // The viewer's screenshot comes from the browser test; every other image from a spec.
        let made = if name == "viewer.png" {
            read("tests/browser/viewer.test.mjs").contains("PENDULA_SCREENSHOT")
        } else {
            script
                .lines()
                .any(|row| row.trim_end_matches('"').ends_with(name))
        };
        assert!(made, "{l}: nothing regenerates it");
    }
    // Every spec the script names is shipped.
    // The table's rows: a quoted `spec figure image` triple.
    let rows = script.lines().filter(|r| {
        let r = r.trim_start();
        r.starts_with('"') && r[1..].starts_with(|c: char| c.is_ascii_lowercase())
    });
    for row in rows {
        let spec = row
            .trim_start()
            .trim_start_matches('"')
            .split_whitespace()
            .next()
            .unwrap();
        assert!(
            root().join(format!("analyses/{spec}.toml")).is_file(),
            "make-figures.sh runs analyses/{spec}.toml, which is missing"
        );
    }
}

#[test]
fn the_flip_figure_is_described_as_its_spec_sets_it() {
    let readme = read("README.md");
    let spec = read("analyses/double-pendulum-flip.toml");
    let t: toml::Table = spec.parse().unwrap();
    assert_eq!(t["map"]["resolution"].as_integer(), Some(1024));
    assert_eq!(t["integrator"]["dt"].as_float(), Some(0.01));
    assert_eq!(t["map"]["t_end"].as_float(), Some(20.0));
    assert!(readme.contains("1024 × 1024 grid"));
    assert!(readme.contains("RK4, dt = 0.01 s, up to 20 s"));
}

/// The damped, driven spectrum's energy balance quoted in the README, recomputed (0.4 s).
#[test]
fn the_quoted_energy_balance_of_the_damped_spectrum_is_current() {
    let readme = read("README.md");
    let quote = "E goes from −19.2 J to 58.8 J, W = 78.0 J, drift\n1.6e-7";
    assert!(
        readme.contains(quote),
        "the README no longer quotes: {quote}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("pendula")
        .unwrap()
        .current_dir(root())
        .args([
            "run",
            "analyses/damped-double-pendulum-spectrum.toml",
            "--json",
        ])
        .args(["-o", dir.path().join("d.h5").to_str().unwrap()])
        .args(["--plot", dir.path().join("d.png").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    assert_eq!(format!("{:.1}", f("energy_initial")), "-19.2");
    assert_eq!(format!("{:.1}", f("energy_end")), "58.8");
    assert_eq!(format!("{:.1}", f("energy_work")), "78.0");
    assert_eq!(format!("{:.1e}", f("relative_energy_drift")), "1.6e-7");
}
