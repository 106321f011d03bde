//! `pendula map --resume` from every state a killed run can leave, the run identity it checks
//! (spec and shard, of a finished file and of a checkpoint), and the map file derived from
//! `--plot` when `-o` is not given.
//!
//! The kill points use the test-only hook `PENDULA_TEST_ABORT_AT=<phase>`
//! (`pendula::store::map::abort_point`), which aborts the process at that phase as `kill -9`
//! would: no destructors, no clean-up.

use hdf5::types::TypeDescriptor;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pendula"))
}

/// Runs pendula in `dir` (aborting at `abort_at` if given): exit code (`None`: killed by a
/// signal), stdout, stderr.
fn run(dir: &Path, args: &[&str], abort_at: Option<&str>) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir).args(args);
    cmd.env_remove("PENDULA_TEST_ABORT_AT");
    if let Some(phase) = abort_at {
        cmd.env("PENDULA_TEST_ABORT_AT", phase);
    }
    let out = crate::spawn::output(&mut cmd);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(dir, args, None);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// A one-line refusal, exit 2, whose message contains every needle.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let (code, _, err) = run(dir, args, None);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` not in: {err}");
    }
    err
}

/// Every dataset under `/map` (the coordinates, the variables, the tile mask and steps, the
/// chain in `/map/model`) as (shape, value bits): what "bit-identical" compares. Provenance
/// attributes (the creation time, the command line) are left out on purpose.
type Datasets = BTreeMap<String, (Vec<usize>, Vec<u64>)>;

fn datasets(path: &Path) -> Datasets {
    fn walk(g: &hdf5::Group, prefix: &str, out: &mut Datasets) {
        for name in g.member_names().unwrap() {
            let full = format!("{prefix}/{name}");
            if let Ok(ds) = g.dataset(&name) {
                let bits: Vec<u64> = match ds.dtype().unwrap().to_descriptor().unwrap() {
                    TypeDescriptor::Float(_) => ds
                        .read_raw::<f64>()
                        .unwrap()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect(),
                    TypeDescriptor::Integer(_) => ds
                        .read_raw::<i64>()
                        .unwrap()
                        .iter()
                        .map(|&v| v as u64)
                        .collect(),
                    TypeDescriptor::Unsigned(_) => ds.read_raw::<u64>().unwrap(),
                    other => panic!("{full}: unexpected type {other:?}"),
                };
                out.insert(full, (ds.shape(), bits));
            } else {
                walk(&g.group(&name).unwrap(), &full, out);
            }
        }
    }
    let f = hdf5::File::open(path).unwrap();
    let mut out = Datasets::new();
    walk(&f.group("map").unwrap(), "map", &mut out);
    assert!(out.contains_key("map/flip_step") && out.contains_key("map/tile_done"));
    out
}

/// `name` + `suffix` in `dir`.
fn beside(dir: &Path, name: &str, suffix: &str) -> PathBuf {
    dir.join(format!("{name}{suffix}"))
}

/// Nothing of a run but its file: no checkpoint, no staging or half-removed checkpoint, no
/// `.partial`.
fn assert_clean(dir: &Path, name: &str) {
    for s in [".tiles", ".tiles.new", ".tiles.old", ".partial"] {
        assert!(!beside(dir, name, s).exists(), "{name}{s} left behind");
    }
}

/// 3 × 3 tiles, so an abort in the assembly phase leaves a half-written `.partial`.
const BASE: [&str; 9] = [
    "map",
    "--resolution",
    "48",
    "--tile",
    "16",
    "--t-end",
    "4",
    "--threads",
    "2",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [&BASE[..], extra].concat()
}

#[test]
fn kill_at_every_phase_then_resume_gives_the_bit_identical_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &args(&["-o", "whole.h5"]));
    let want = datasets(&d.join("whole.h5"));
    assert_clean(d, "whole.h5");

    // (phase, how often in a row it is hit, what must be on disk after the kill)
    let phases: [(&str, usize, &[&str]); 5] = [
        ("checkpoint", 1, &[".tiles.new"]),
        ("tile", 3, &[".tiles"]),
        ("assembly", 1, &[".tiles", ".partial"]),
        ("assembled", 1, &["", ".tiles"]),
        ("clean-up", 1, &["", ".tiles.old"]),
    ];
    for (phase, times, left) in phases {
        let name = format!("{phase}.h5");
        let a = args(&["-o", &name, "--resume"]);
        for k in 0..times {
            let (code, _, err) = run(d, &a, Some(phase));
            assert_eq!(code, None, "{phase} #{k}: the run was not aborted: {err}");
            for s in left {
                assert!(beside(d, &name, s).exists(), "{phase}: no {name}{s}");
            }
        }
        if phase == "tile" {
            // Each aborted run stored one more tile.
            let tiles = std::fs::read_dir(beside(d, &name, ".tiles"))
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
                .count();
            assert_eq!(tiles, times, "{phase}");
        }
        if phase == "clean-up" {
            // The half-removed checkpoint has lost its manifest: the state that used to
            // make --resume exit 2 ("no readable manifest").
            assert!(!beside(d, &name, ".tiles.old/manifest.json").exists());
        }
        let out = ok(d, &[&a[..], &["--json"]].concat());
        assert_eq!(
            datasets(&d.join(&name)),
            want,
            "{phase}: resumed file differs"
        );
        assert_clean(d, &name);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let finished_before = matches!(phase, "assembled" | "clean-up");
        assert_eq!(
            v["already_complete"].as_bool().unwrap_or(false),
            finished_before,
            "{phase}: {v}"
        );
        // A requeued job resumes a finished file: nothing to do, exit 0.
        let again = ok(d, &[&a[..], &["--json"]].concat());
        assert!(again.contains("\"already_complete\":true"), "{again}");
    }

    // A complete file beside a stale checkpoint of this run (e.g. copied back by hand) and a
    // stale .partial: --resume keeps the file and deletes the leftovers.
    std::fs::create_dir(beside(d, "whole.h5", ".tiles")).unwrap();
    std::fs::write(beside(d, "whole.h5", ".partial"), b"torn").unwrap();
    ok(d, &args(&["-o", "whole.h5", "--resume"]));
    assert_clean(d, "whole.h5");
    assert_eq!(datasets(&d.join("whole.h5")), want);
}

#[test]
fn resume_refuses_another_shard_or_spec_of_a_file_or_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &args(&["--shard", "2/3", "-o", "s.h5"]));
    let shard = datasets(&d.join("s.h5"));
    refused(
        d,
        &args(&["--shard", "3/3", "-o", "s.h5", "--resume"]),
        &[
            "--shard: the file s.h5 holds shard 2/3, not 3/3",
            "--shard 2/3",
        ],
    );
    refused(
        d,
        &args(&["-o", "s.h5", "--resume"]),
        &["--shard: the file s.h5 holds shard 2/3, not the whole map"],
    );
    let e = refused(
        d,
        &[
            &BASE[..6],
            &["5", "--shard", "2/3", "-o", "s.h5", "--resume"],
        ]
        .concat(),
        &[
            "--resume: the file s.h5 holds another map (map.t_end: 4.0 there, 5.0 in this run)",
            "--force",
        ],
    );
    assert!(!e.contains("threads"), "{e}");
    // The refusals changed nothing; the right shard is a finished no-op.
    assert_eq!(datasets(&d.join("s.h5")), shard);
    let out = ok(
        d,
        &args(&["--shard", "2/3", "-o", "s.h5", "--resume", "--json"]),
    );
    assert!(out.contains("\"already_complete\":true"), "{out}");

    // The whole map against a file of one shard, the other way round.
    ok(d, &args(&["-o", "w.h5"]));
    refused(
        d,
        &args(&["--shard", "1/3", "-o", "w.h5", "--resume"]),
        &[
            "--shard: the file w.h5 holds the whole map, not shard 1/3",
            "no --shard",
        ],
    );

    // A checkpoint of shard 2/3 (killed after its first tile).
    let (code, _, err) = run(d, &args(&["--shard", "2/3", "-o", "c.h5"]), Some("tile"));
    assert_eq!(code, None, "{err}");
    let ckpt = d.join("c.h5.tiles");
    assert!(ckpt.join("manifest.json").exists());
    refused(
        d,
        &args(&["--shard", "3/3", "-o", "c.h5", "--resume"]),
        &["--shard: the checkpoint c.h5.tiles holds shard 2/3, not 3/3"],
    );
    refused(
        d,
        &[
            &BASE[..6],
            &["5", "--shard", "2/3", "-o", "c.h5", "--resume"],
        ]
        .concat(),
        &[
            "--resume: the checkpoint c.h5.tiles holds another map",
            "t_end",
        ],
    );
    assert!(ckpt.join("manifest.json").exists() && !d.join("c.h5").exists());
    ok(d, &args(&["--shard", "2/3", "-o", "c.h5", "--resume"]));
    assert_eq!(datasets(&d.join("c.h5")), shard);
    assert_clean(d, "c.h5");
}

#[test]
fn without_o_the_map_file_is_the_figure_path_with_h5() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = [
        "map",
        "--resolution",
        "32",
        "--t-end",
        "2",
        "--plot",
        "m.png",
    ];
    ok(d, &a);
    assert!(d.join("m.png").exists());
    let r = pendula::store::map::MapReader::open(&d.join("m.h5")).unwrap();
    assert!(r.header.complete);
    assert_clean(d, "m.h5");
    // The derived file is refused like -o, naming --plot, the path and the ways out.
    let before = std::fs::metadata(d.join("m.h5"))
        .unwrap()
        .modified()
        .unwrap();
    refused(d, &a, &["--plot", "m.h5", "-o", "--force"]);
    let after = std::fs::metadata(d.join("m.h5"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
    ok(d, &[&a[..], &["--force"]].concat());
    // -o still wins over the derived path.
    ok(d, &[&a[..], &["--force", "-o", "other.h5"]].concat());
    assert!(d.join("other.h5").exists());
    // Neither -o nor --plot: refused, naming -o.
    refused(d, &a[..5], &["-o", "--plot"]);
}

#[test]
fn sigterm_leaves_the_checkpoint_and_no_file_and_resume_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let slow = crate::basics::slow_map("96");
    ok(d, &[&slow[..], &["-o", "whole.h5"]].concat());
    let a = [&slow[..], &["-o", "term.h5"]].concat();
    let ckpt = d.join("term.h5.tiles");
    let tiles = || {
        std::fs::read_dir(&ckpt)
            .map(|r| {
                r.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
                    .count()
            })
            .unwrap_or(0)
    };
    let mut child = crate::spawn::spawn(
        Command::new(bin())
            .current_dir(d)
            .args(&a)
            .env_remove("PENDULA_TEST_ABORT_AT")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    // Five tiles on disk, with a deadline: if they never come the test fails (killing the run)
    // instead of signalling anyway.
    crate::running::poll_child(
        &mut child,
        "5 tiles checkpointed",
        std::time::Duration::from_secs(120),
        |_| (tiles() >= 5).then_some(()),
    );
    let sent = crate::spawn::status(Command::new("kill").args(["-TERM", &child.id().to_string()]));
    assert!(sent.success());
    let status = child.wait().unwrap();
    // 5 of 144 tiles done when the signal is sent: the run cannot have finished.
    assert!(!status.success(), "the run finished before SIGTERM landed");
    // Caught (exit 1) or not (killed by the signal): the same state on disk.
    assert!(
        status.code().is_none() || status.code() == Some(1),
        "{status}"
    );
    assert!(tiles() >= 5 && ckpt.join("manifest.json").exists());
    assert!(!d.join("term.h5").exists() && !d.join("term.h5.partial").exists());
    // Without --resume the checkpoint is not silently discarded.
    refused(d, &a, &["--resume"]);
    ok(d, &[&a[..], &["--resume"]].concat());
    assert_eq!(datasets(&d.join("term.h5")), datasets(&d.join("whole.h5")));
    assert_clean(d, "term.h5");
}
