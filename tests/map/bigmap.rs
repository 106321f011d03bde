//! Maps of any size in bounded memory: a shard's estimate counts its own tiles, a size over
//! the budget is refused naming `--shard` and `--max-memory` (never `--force`), merge streams
//! tile by tile, and a figure of a map larger than its raster is drawn from a decimated read
//! equal to a decimation of the whole map.

use crate::spawn::{json, run};
use pendula::store::map::{decimate, MapReader};
use pendula::store::StoreError;
use std::path::Path;

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(args, dir);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn dry_memory(dir: &Path, extra: &[&str]) -> f64 {
    let args = [&["map", "--dry-run", "--json", "-o", "m.h5"][..], extra].concat();
    json(&ok(dir, &args))["memory_bytes"].as_f64().unwrap()
}

#[test]
fn a_shard_is_estimated_by_its_own_tiles() {
    let dir = tempfile::tempdir().unwrap();
    // 10⁹ pixels (no energy skip, so the dry run does not test every pixel).
    let big = ["--resolution", "32768", "--no-energy-skip"];
    let whole = dry_memory(dir.path(), &big);
    let shard = dry_memory(dir.path(), &[&big[..], &["--shard", "1/64"]].concat());
    // The assembly's band of the whole run (512 tiles of 64², ~125 MB) dominates; a 1/64
    // shard holds 8 of them, and what is left is the bookkeeping, the tiles in flight and
    // the figure (a decimated read of at most 1024² pixels).
    assert!(shard < whole / 2.0, "shard {shard} vs whole {whole}");
    // The 10⁹-pixel map fits in well under 1 GB, whole or as a shard.
    assert!(whole < 1e9, "{whole}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_map_over_the_budget_names_shard_and_max_memory_never_force() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "map",
        "--resolution",
        "20000",
        "--max-memory",
        "100M",
        "--dry-run",
        "-o",
        "m.h5",
    ];
    for extra in [&[][..], &["--force"]] {
        let a = [&args[..], extra].concat();
        let (code, _, err) = run(&a, dir.path());
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("--shard") && err.contains("--max-memory"),
            "{err}"
        );
        assert!(!err.contains("--force"), "{err}");
    }
    // The same map as a 1/64 shard fits, and so does the whole map under the default budget.
    ok(dir.path(), &[&args[..], &["--shard", "1/64"]].concat());
    ok(
        dir.path(),
        &["map", "--resolution", "20000", "--dry-run", "-o", "m.h5"],
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn merge_streams_within_a_budget_below_the_whole_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["map", "--resolution", "512", "--t-end", "2", "--json"];
    for i in 1..=4 {
        let shard = format!("{i}/4");
        let out = format!("s{i}.h5");
        ok(d, &[&base[..], &["--shard", &shard, "-o", &out]].concat());
    }
    let single_run = json(&ok(d, &[&base[..], &["-o", "single.h5"]].concat()));
    // The whole map read at once would need 512² × 22 bytes ≈ 5.5 MB; merge holds a band of
    // tiles, so it runs under a 4 MB budget and writes the single run's map.
    let merged = ok(
        d,
        &[
            "merge",
            "s1.h5",
            "s2.h5",
            "s3.h5",
            "s4.h5",
            "-o",
            "merged.h5",
            "--max-memory",
            "4M",
            "--json",
        ],
    );
    let single = MapReader::open(&d.join("single.h5")).unwrap();
    let m = MapReader::open(&d.join("merged.h5")).unwrap();
    assert_eq!(
        json(&merged)["checksum"]["fnv1a64"],
        single_run["checksum"]["fnv1a64"]
    );
    let (a, b) = (single.read_all().unwrap(), m.read_all().unwrap());
    assert_eq!(a.flip_step, b.flip_step);
    assert_eq!(a.class, b.class);
    assert_eq!(a.flip_link, b.flip_link);
    // read_all itself is refused under that budget, naming the budget as a field, which the
    // CLI spells --max-memory.
    let small = MapReader::open_within(&d.join("merged.h5"), 4.0 * 1024.0 * 1024.0).unwrap();
    let e = small.read_all().unwrap_err();
    let StoreError::OverBudget { what, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(what.field(), pendula::limits::MEMORY_BUDGET);
    let spelt = e.render(&|f| {
        if f == pendula::limits::MEMORY_BUDGET {
            "--max-memory".into()
        } else {
            f.into()
        }
    });
    assert!(
        spelt.ends_with("more than the memory budget of 4.0 MB (--max-memory)"),
        "{spelt}"
    );
}

#[test]
fn a_decimated_read_is_the_decimation_of_the_whole_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 100 × 70 pixels in 32² tiles (edge tiles partial), a flip map and a value map, whole and
    // as a shard (tiles not held read as not computed).
    ok(
        d,
        &[
            "map",
            "--resolution",
            "100x70",
            "--t-end",
            "3",
            "-o",
            "flip.h5",
        ],
    );
    ok(
        d,
        &[
            "map",
            "--resolution",
            "100x70",
            "--t-end",
            "3",
            "--shard",
            "2/3",
            "-o",
            "shard.h5",
        ],
    );
    ok(
        d,
        &[
            "map",
            "--kind",
            "lyapunov",
            "--resolution",
            "100x70",
            "--t-end",
            "2",
            "-o",
            "lyap.h5",
        ],
    );
    for name in ["flip.h5", "shard.h5", "lyap.h5"] {
        let r = MapReader::open(&d.join(name)).unwrap();
        let whole = r.read_all().unwrap();
        for step in [1, 2, 3, 7, 33, 100] {
            let a = r.read_decimated(step).unwrap();
            let b = decimate(&whole, step);
            assert_eq!((a.width, a.height), (b.width, b.height), "{name} {step}");
            assert_eq!(a.class, b.class, "{name} {step}");
            assert_eq!(a.flip_step, b.flip_step, "{name} {step}");
            assert_eq!(a.flip_link, b.flip_link, "{name} {step}");
            let same = |x: &[f64], y: &[f64]| {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
            };
            assert!(same(&a.value, &b.value), "{name} {step}");
            assert!(same(&a.aux, &b.aux), "{name} {step}");
        }
    }
}
