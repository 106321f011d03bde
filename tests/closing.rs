//! What a user sees when a command finishes: the last stderr line names every file the command
//! wrote (and how long it took), and `--json` prints exactly one JSON line on stdout.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn pendula(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("pendula").unwrap();
    c.current_dir(dir);
    c
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Runs `args` in a fresh folder and checks the closing line and the JSON line; returns the
/// closing line.
fn check(args: &[&str], setup: impl FnOnce(&Path)) -> String {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let before = files_under(dir.path());
    let out = pendula(dir.path())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    let last = stderr
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    let written: Vec<PathBuf> = files_under(dir.path())
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(!written.is_empty(), "{args:?} wrote nothing");
    assert!(last.starts_with("wrote "), "{args:?}: last line `{last}`");
    for p in &written {
        // Frames are named by their folder and count, every other file by its path.
        let named = match p.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) if d.ends_with("frames") => last.contains(&format!("{}/", d.display())),
            _ => last.contains(&p.display().to_string()),
        };
        assert!(named, "{args:?}: `{last}` does not name {}", p.display());
    }
    assert!(last.ends_with(" s)"), "{args:?}: no wall time in `{last}`");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: --json printed {stdout}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert!(v.is_object(), "{args:?}: {v}");
    last
}

#[test]
fn every_command_names_what_it_wrote() {
    let none = |_: &Path| {};
    check(
        &[
            "simulate", "--theta", "1,1", "--t-end", "0.5", "-o", "s.h5", "--plot", "s.png",
        ],
        none,
    );
    check(
        &[
            "modes", "--preset", "triple", "-o", "m.h5", "--plot", "m.svg",
        ],
        none,
    );
    let l = check(
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--transient",
            "0.5",
            "--t-end",
            "1.5",
            "-o",
            "l.h5",
            "--plot",
            "l.png",
        ],
        none,
    );
    assert!(l.contains("lyapunov spectrum"), "{l}");
    check(
        &[
            "poincare",
            "--energy-fraction",
            "0.3",
            "--random",
            "2",
            "--t-end",
            "5",
            "-o",
            "p.h5",
            "--plot",
            "p.png",
        ],
        none,
    );
    let l = check(
        &[
            "map",
            "--resolution",
            "16",
            "--t-end",
            "2",
            "-o",
            "f.h5",
            "--plot",
            "f.png",
        ],
        none,
    );
    assert!(l.contains("16²"), "{l}");
    check(
        &[
            "animate",
            "--theta",
            "1,1",
            "--duration",
            "0.2",
            "--fps",
            "10",
            "--gif",
            "a.gif",
            "--frames",
            "frames",
            "-o",
            "a.h5",
        ],
        none,
    );
    check(
        &["control", "--t-end", "0.5", "-o", "c.h5", "--plot", "c.png"],
        none,
    );
    // merge and render read a map made first.
    let shards = |d: &Path| {
        for i in 1..=2 {
            let name = format!("part{i}.h5");
            let shard = format!("{i}/2");
            let ok = pendula(d)
                .args(["map", "--resolution", "16", "--t-end", "2", "--tile", "8"])
                .args(["--shard", &shard, "-o", &name])
                .output()
                .unwrap();
            assert!(
                ok.status.success(),
                "{}",
                String::from_utf8_lossy(&ok.stderr)
            );
        }
    };
    check(
        &[
            "merge", "part1.h5", "part2.h5", "-o", "all.h5", "--plot", "all.png",
        ],
        shards,
    );
}

#[test]
fn a_run_that_writes_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula(dir.path())
        .args(["modes", "--preset", "double"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(last.contains("no files written"), "{last}");
    // The report itself is text on stdout, not JSON.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("equilibrium ++"), "{stdout}");
    assert!(serde_json::from_str::<serde_json::Value>(&stdout).is_err());
}

#[test]
fn lyapunov_prints_text_without_json_and_one_json_line_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "lyapunov",
        "--theta",
        "2,2",
        "--transient",
        "0.5",
        "--t-end",
        "2",
    ];
    let out = pendula(dir.path()).args(args).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lambda_i"), "{text}");
    assert!(!text.trim_start().starts_with('{'), "{text}");
    let out = pendula(dir.path())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout);
    assert_eq!(json.lines().count(), 1, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["estimator"], "spectrum");
    assert_eq!(v["exponents"].as_array().unwrap().len(), 4);
}
