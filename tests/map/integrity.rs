//! Map files are input: a shard or map changed after pendula wrote it (a value edited in one
//! tile, `class` overwritten, tiles from another map, a `complete` attribute set by hand), a
//! broken structure (wrong type or shape, links, a huge declared dataset) or a path that is not
//! a regular file is refused by `merge`, `render` and `measure` alike: one line, exit 2, nothing
//! written. Files written before tile checksums are read with a warning and the same numbers.

use crate::spawn::{run, spawn_guard};
use pendula::store::map::{MapReader, Verified};
use std::path::Path;

/// The three readers of a map file, on `file` (writing `out.h5` / `out.png` if they accept).
fn readers(file: &str) -> [Vec<String>; 3] {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    [
        v(&["merge", file, "-o", "out.h5"]),
        v(&["render", file, "-o", "out.png"]),
        v(&["measure", file, "--what", "boundary-dimension"]),
    ]
}

/// `args` is refused in one line containing `needle`, with exit 2, writing nothing.
fn refused(d: &Path, args: &[String], needle: &str) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = run(&a, d);
    assert_eq!(code, 2, "{a:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{a:?}: {err}");
    assert!(err.contains(needle), "{a:?}: {err}");
    assert!(!d.join("out.h5").exists() && !d.join("out.png").exists());
}

fn ok(d: &Path, args: &[&str]) -> String {
    let (code, _, err) = run(args, d);
    assert_eq!(code, 0, "{args:?}: {err}");
    err
}

/// Opens `name` in `d` for writing and hands its `/map` group to `f` (under the spawn guard:
/// no child may inherit the open file).
fn tamper(d: &Path, from: &str, name: &str, f: impl FnOnce(&hdf5::File, &hdf5::Group)) {
    std::fs::copy(d.join(from), d.join(name)).unwrap();
    let _g = spawn_guard();
    let file = hdf5::File::open_rw(d.join(name)).unwrap();
    let g = file.group("map").unwrap();
    f(&file, &g);
}

/// A 128² flip-time map in 8 × 8 tiles of 16: the whole map and its four shards.
fn shards(d: &Path) {
    let base = ["map", "--resolution", "128", "--tile", "16", "--t-end", "4"];
    ok(d, &[&base[..], &["-o", "single.h5"]].concat());
    for i in 1..=4 {
        let (s, o) = (format!("{i}/4"), format!("s{i}.h5"));
        ok(d, &[&base[..], &["--shard", &s, "-o", &o]].concat());
    }
    // The same grid computed to another t_end: a foreign map of the same shape.
    ok(
        d,
        &[
            "map",
            "--resolution",
            "128",
            "--tile",
            "16",
            "--t-end",
            "3",
            "--shard",
            "2/4",
            "-o",
            "other2.h5",
        ],
    );
}

#[test]
fn a_tampered_or_foreign_shard_is_refused_naming_the_tile() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    shards(d);
    // Tile 1 (tile row 0, column 1) is shard 2's first: pixels rows 0..16, columns 16..32.
    tamper(d, "s2.h5", "step.h5", |_, g| {
        let ds = g.dataset("flip_step").unwrap();
        let mut k = ds.read_2d::<i32>().unwrap();
        k[(3, 20)] += 1;
        ds.write(&k).unwrap();
    });
    tamper(d, "s2.h5", "class.h5", |_, g| {
        let ds = g.dataset("class").unwrap();
        let c = ds.read_2d::<u8>().unwrap().mapv(|_| 255u8);
        ds.write(&c).unwrap();
    });
    // Shard 2 of another map, given this map's spec hash and spec: its tiles do not match.
    tamper(d, "other2.h5", "foreign.h5", |file, g| {
        let s2 = hdf5::File::open(d.join("s2.h5")).unwrap();
        let hash = s2.group("map").unwrap().attr("spec_hash").unwrap();
        let hash = hash.read_scalar::<hdf5::types::VarLenUnicode>().unwrap();
        g.attr("spec_hash").unwrap().write_scalar(&hash).unwrap();
        let spec = s2.attr("spec").unwrap();
        let spec = spec.read_scalar::<hdf5::types::VarLenUnicode>().unwrap();
        file.attr("spec").unwrap().write_scalar(&spec).unwrap();
    });
    for (file, needle) in [
        (
            "step.h5",
            "tile 1 (tile row 0, column 1) does not match its checksum",
        ),
        (
            "class.h5",
            "tile 1 (tile row 0, column 1) does not match its checksum",
        ),
        (
            "foreign.h5",
            "tile 1 (tile row 0, column 1) does not match its checksum",
        ),
    ] {
        let merge = ["merge", "s1.h5", file, "s3.h5", "s4.h5", "-o", "out.h5"];
        refused(d, &merge.map(String::from), needle);
        refused(d, &readers(file)[1], needle);
    }
    // A shard relabelled as another shard holds tiles that are not that shard's.
    tamper(d, "s2.h5", "relabelled.h5", |_, g| {
        let v: hdf5::types::VarLenUnicode = "3/4".parse().unwrap();
        g.attr("shard").unwrap().write_scalar(&v).unwrap();
    });
    let merge = [
        "merge",
        "s1.h5",
        "s2.h5",
        "relabelled.h5",
        "s4.h5",
        "-o",
        "out.h5",
    ];
    refused(d, &merge.map(String::from), "not a tile of shard 3/4");
    // The untouched shards still merge to the single run.
    ok(
        d,
        &["merge", "s1.h5", "s2.h5", "s3.h5", "s4.h5", "-o", "m.h5"],
    );
    let (a, b) = (
        MapReader::open(&d.join("single.h5")).unwrap(),
        MapReader::open(&d.join("m.h5")).unwrap(),
    );
    assert_eq!(a.verified(), Verified::Tiles);
    assert_eq!(a.read_all().unwrap(), b.read_all().unwrap());
}

#[test]
fn completeness_comes_from_the_tiles_not_the_attribute() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    shards(d);
    // 16 of 64 tiles, marked complete.
    tamper(d, "s1.h5", "marked.h5", |_, g| {
        g.attr("complete").unwrap().write_scalar(&1i8).unwrap();
    });
    for args in readers("marked.h5") {
        refused(
            d,
            &args,
            "attribute complete = 1 but the file holds 16 of 64 tiles",
        );
    }
    // ... and every tile marked done as well: the tiles it does not hold are not its shard's
    // (or, without the shard attribute, fail their checksums).
    tamper(d, "s1.h5", "all-done.h5", |_, g| {
        g.attr("complete").unwrap().write_scalar(&1i8).unwrap();
        let ds = g.dataset("tile_done").unwrap();
        ds.write(&ds.read_2d::<u8>().unwrap().mapv(|_| 1u8))
            .unwrap();
    });
    tamper(d, "all-done.h5", "all-done-whole.h5", |_, g| {
        let v: hdf5::types::VarLenUnicode = "".parse().unwrap();
        g.attr("shard").unwrap().write_scalar(&v).unwrap();
    });
    for args in readers("all-done.h5") {
        refused(
            d,
            &args,
            "tile 1 is marked done but is not a tile of shard 1/4",
        );
    }
    for args in readers("all-done-whole.h5") {
        refused(
            d,
            &args,
            "tile 1 (tile row 0, column 1) does not match its checksum",
        );
    }
    // The shard itself is incomplete, and says so.
    let r = MapReader::open(&d.join("s1.h5")).unwrap();
    assert!(!r.header.complete);
    refused(d, &readers("s1.h5")[2], "incomplete");
}

#[test]
fn paths_that_are_not_regular_files_are_refused_before_opening() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let fifo = d.join("x.h5");
    let made = crate::spawn::status(std::process::Command::new("mkfifo").arg(&fifo));
    assert!(made.success());
    std::fs::create_dir(d.join("dir.h5")).unwrap();
    std::fs::write(d.join("text.h5"), "not hdf5\n").unwrap();
    // A FIFO blocked `merge` forever in H5Fopen: each run must end on its own.
    for (file, needle) in [
        ("x.h5", "x.h5: is a FIFO (named pipe), not a regular file"),
        ("dir.h5", "dir.h5: is a directory, not a regular file"),
        ("text.h5", "text.h5: is not an HDF5 file"),
        ("none.h5", "none.h5: no such file"),
    ] {
        for args in readers(file) {
            refused(d, &args, needle);
        }
    }
}

#[test]
fn a_broken_map_structure_is_refused_with_exit_2_by_every_reader() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    ok(
        d,
        &["map", "--resolution", "32", "--tile", "8", "-o", "f.h5"],
    );
    let replace = |g: &hdf5::Group, name: &str| {
        g.unlink(name).unwrap();
    };
    tamper(d, "f.h5", "missing.h5", |_, g| replace(g, "class"));
    tamper(d, "f.h5", "dtype.h5", |_, g| {
        let k = g.dataset("flip_step").unwrap().read_2d::<i32>().unwrap();
        replace(g, "flip_step");
        g.new_dataset_builder()
            .with_data(&k.mapv(f64::from))
            .create("flip_step")
            .unwrap();
    });
    tamper(d, "f.h5", "shape.h5", |_, g| {
        let k = g.dataset("flip_step").unwrap().read_2d::<i32>().unwrap();
        replace(g, "flip_step");
        g.new_dataset_builder()
            .with_data(&k.slice(ndarray::s![..16, ..]))
            .create("flip_step")
            .unwrap();
    });
    tamper(d, "f.h5", "soft.h5", |_, g| {
        replace(g, "class");
        g.link_soft("/map/flip_link", "class").unwrap();
    });
    tamper(d, "f.h5", "external.h5", |_, g| {
        replace(g, "class");
        g.link_external("/etc/passwd", "/x", "class").unwrap();
    });
    // 20 KB declaring 10¹² bytes: refused from its shape, before any read (it aborted).
    tamper(d, "f.h5", "huge.h5", |_, g| {
        replace(g, "class");
        g.new_dataset::<u8>()
            .chunk((1024, 1024))
            .shape((1_000_000, 1_000_000))
            .create("class")
            .unwrap();
    });
    tamper(d, "f.h5", "steps.h5", |_, g| {
        let ds = g.dataset("tile_steps").unwrap();
        ds.write(&ds.read_2d::<i64>().unwrap().mapv(|v| -v))
            .unwrap();
    });
    tamper(d, "f.h5", "width.h5", |_, g| {
        g.attr("width")
            .unwrap()
            .write_scalar(&1_000_000_000i64)
            .unwrap();
        g.attr("height")
            .unwrap()
            .write_scalar(&1_000_000_000i64)
            .unwrap();
    });
    for (file, needle) in [
        ("missing.h5", "has no variable /map/class"),
        (
            "dtype.h5",
            "/map/flip_step holds float64 values, expected int32",
        ),
        (
            "shape.h5",
            "/map/flip_step has shape [16, 32], expected [32, 32]",
        ),
        ("soft.h5", "/map/class is a soft link"),
        ("external.h5", "/map/class is an external link"),
        (
            "huge.h5",
            "/map/class has shape [1000000, 1000000], expected [32, 32]",
        ),
        ("steps.h5", "tile_steps holds -"),
        (
            "width.h5",
            "attributes width and height declare 1000000000x1000000000 pixels",
        ),
    ] {
        for args in readers(file) {
            refused(d, &args, needle);
        }
    }
}

#[test]
fn files_without_tile_checksums_are_read_with_a_warning_and_the_same_numbers() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    ok(
        d,
        &["map", "--resolution", "32", "--tile", "8", "-o", "f.h5"],
    );
    tamper(d, "f.h5", "old.h5", |_, g| {
        g.unlink("tile_checksum").unwrap()
    });
    let (new, old) = (
        MapReader::open(&d.join("f.h5")).unwrap(),
        MapReader::open(&d.join("old.h5")).unwrap(),
    );
    assert_eq!(new.verified(), Verified::Tiles);
    assert_eq!(old.verified(), Verified::NoChecksums);
    assert!(new.warning().is_none());
    assert_eq!(new.read_all().unwrap(), old.read_all().unwrap());
    let err = ok(d, &["render", "old.h5", "-o", "old.png"]);
    assert!(
        err.contains("warning: old.h5 has no tile checksums"),
        "{err}"
    );
    // Their totals are still checked: class overwritten changes the forbidden count.
    tamper(d, "old.h5", "old-class.h5", |_, g| {
        let ds = g.dataset("class").unwrap();
        ds.write(&ds.read_2d::<u8>().unwrap().mapv(|_| 255u8))
            .unwrap();
    });
    for args in readers("old-class.h5") {
        refused(d, &args, "attribute n_forbidden =");
    }
}
