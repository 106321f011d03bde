//! Store layer: write a file, read it back with the hdf5 crate (and with h5py/xarray
//! when available), and check that failures leave nothing that looks complete.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/python.rs"]
mod python;

use hdf5::types::VarLenUnicode;
use ndarray::{arr0, Array1, Array2};
use pendula::store::memory::{Attr, MemGroup, Values};
use pendula::store::{check_output_path, dimscale, H5Out, Provenance, StoreError, Tile};

const TIME: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
const LINKS: [i64; 3] = [1, 2, 3];

fn theta() -> Array2<f64> {
    Array2::from_shape_fn((5, 3), |(i, j)| i as f64 * 0.1 + j as f64)
}

fn partial(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".partial");
    PathBuf::from(p)
}

/// The reference file: one group, coordinates time (5) and link (3), a 2-D and a 1-D
/// variable, integer/byte variables, a nested group, attributes and provenance.
fn write_sample(path: &Path) -> PathBuf {
    let out = H5Out::create(path, false).unwrap();
    sample_body(&out);
    out.finish().unwrap()
}

/// The sample's contents, written to a file or to a memory image.
fn sample_body(out: &H5Out) {
    out.provenance(
        &Provenance::now(
            "pendula simulate --links 3 analyses/sample.toml",
            "[chain]\nlinks = 3\n",
        ),
        "store test: a 3-link chain",
    )
    .unwrap();
    {
        let g = out.group("trajectory").unwrap();
        g.coord("time", &TIME, "s", "time").unwrap();
        g.coord_i64("link", &LINKS, "1", "link index").unwrap();
        g.var(
            "theta",
            &["time", "link"],
            &theta(),
            "rad",
            "link angle from the downward vertical",
        )
        .unwrap()
        .attr_f64("valid_max", std::f64::consts::PI)
        .unwrap();
        let energy = Array1::from_iter(TIME.iter().map(|t| 1.0 + 1e-9 * t));
        g.var("energy", &["time"], &energy, "J", "total energy")
            .unwrap();
        let flips = Array2::from_shape_fn((5, 3), |(i, j)| (i * j) as i32);
        g.var("flips", &["time", "link"], &flips, "1", "number of flips")
            .unwrap();
        let mask = Array1::from_vec(vec![1u8, 0, 1]);
        g.var("active", &["link"], &mask, "1", "link is driven")
            .unwrap();
        g.var("steps", &[], arr0(1000i64).view(), "1", "steps taken")
            .unwrap();
        g.attr_f64("dt", 0.25)
            .unwrap()
            .attr_i64("n_links", 3)
            .unwrap()
            .attr_str("integrator", "rk4")
            .unwrap()
            .attr_f64s("lengths", &[1.0, 0.5, 0.25])
            .unwrap()
            .attr_bool("damped", true)
            .unwrap();
        let sub = g.group("diagnostics").unwrap();
        sub.coord("time", &TIME[..2], "s", "time").unwrap();
        sub.var(
            "err",
            &["time"],
            &Array1::from_vec(vec![1e-12, 2e-12]),
            "1",
            "error estimate",
        )
        .unwrap();
    }
}

fn read_str(loc: &hdf5::Location, name: &str) -> String {
    loc.attr(name)
        .unwrap()
        .read_scalar::<VarLenUnicode>()
        .unwrap()
        .as_str()
        .to_string()
}

#[test]
fn writes_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    assert_eq!(write_sample(&path), path);
    assert!(!partial(&path).exists());

    let f = hdf5::File::open(&path).unwrap();
    // Provenance at the root.
    assert_eq!(read_str(&f, "Conventions"), "CF-1.8");
    assert_eq!(read_str(&f, "pendula_version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(read_str(&f, "spec"), "[chain]\nlinks = 3\n");
    assert_eq!(read_str(&f, "title"), "store test: a 3-link chain");
    assert!(read_str(&f, "command_line").starts_with("pendula simulate"));
    let created = read_str(&f, "created_utc");
    humantime::parse_rfc3339(&created).unwrap();
    assert!(read_str(&f, "history").starts_with(&created));
    let commit = read_str(&f, "git_commit");
    let hash = commit.strip_suffix("-dirty").unwrap_or(&commit);
    assert!(commit == "unknown" || hash.len() == 40, "{commit}");

    let g = f.group("trajectory").unwrap();
    let time = g.dataset("time").unwrap();
    assert_eq!(time.read_raw::<f64>().unwrap(), TIME.to_vec());
    assert_eq!(g.dataset("link").unwrap().read_raw::<i64>().unwrap(), LINKS);
    let th = g.dataset("theta").unwrap();
    assert_eq!(th.read_2d::<f64>().unwrap(), theta());
    assert_eq!(read_str(&th, "units"), "rad");
    assert_eq!(
        read_str(&th, "long_name"),
        "link angle from the downward vertical"
    );
    assert_eq!(
        th.attr("valid_max").unwrap().read_scalar::<f64>().unwrap(),
        std::f64::consts::PI
    );
    assert_eq!(read_str(&time, "units"), "s");
    assert_eq!(
        g.dataset("flips").unwrap().read_2d::<i32>().unwrap()[[4, 2]],
        8
    );
    assert_eq!(
        g.dataset("active").unwrap().read_raw::<u8>().unwrap(),
        vec![1, 0, 1]
    );
    assert_eq!(
        g.dataset("steps").unwrap().read_scalar::<i64>().unwrap(),
        1000
    );
    assert_eq!(
        g.dataset("energy")
            .unwrap()
            .read_raw::<f64>()
            .unwrap()
            .len(),
        5
    );

    // Group attributes.
    assert_eq!(g.attr("dt").unwrap().read_scalar::<f64>().unwrap(), 0.25);
    assert_eq!(g.attr("n_links").unwrap().read_scalar::<i64>().unwrap(), 3);
    assert_eq!(read_str(&g, "integrator"), "rk4");
    assert_eq!(
        g.attr("lengths").unwrap().read_raw::<f64>().unwrap(),
        vec![1.0, 0.5, 0.25]
    );
    assert_eq!(g.attr("damped").unwrap().read_scalar::<i8>().unwrap(), 1);

    // Chunked and compressed.
    assert!(th.is_chunked());
    assert!(th
        .filters()
        .iter()
        .any(|flt| matches!(flt, hdf5::filters::Filter::Deflate(_))));

    // Dimension scales: coordinates are scales, variables have one per axis.
    assert!(dimscale::is_scale(&time).unwrap());
    assert!(dimscale::is_scale(&g.dataset("link").unwrap()).unwrap());
    assert!(!dimscale::is_scale(&th).unwrap());
    assert_eq!(dimscale::num_scales(&th, 0).unwrap(), 1);
    assert_eq!(dimscale::num_scales(&th, 1).unwrap(), 1);
    assert!(th.attr("DIMENSION_LIST").is_ok());
    assert!(time.attr("NAME").is_ok());
    assert!(time.attr("REFERENCE_LIST").is_ok());

    // The nested group's variable uses the nested group's own time coordinate.
    let sub = g.group("diagnostics").unwrap();
    let err = sub.dataset("err").unwrap();
    assert_eq!(dimscale::num_scales(&err, 0).unwrap(), 1);
    assert_eq!(
        sub.dataset("time")
            .unwrap()
            .read_raw::<f64>()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn non_contiguous_views_are_written_in_logical_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.h5");
    let out = H5Out::create(&path, false).unwrap();
    {
        let g = out.group("g").unwrap();
        g.coord_i64("link", &LINKS, "1", "link index").unwrap();
        g.coord("time", &TIME, "s", "time").unwrap();
        let th = theta();
        g.var("theta_t", &["link", "time"], th.t(), "rad", "transposed")
            .unwrap();
    }
    out.finish().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    let back = f.dataset("g/theta_t").unwrap().read_2d::<f64>().unwrap();
    assert_eq!(back, theta().t());
}

#[test]
fn large_variables_are_split_into_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.h5");
    let n = 200_000;
    let out = H5Out::create(&path, false).unwrap();
    {
        let g = out.group("g").unwrap();
        let t: Vec<f64> = (0..n).map(|i| i as f64).collect();
        g.coord("time", &t, "s", "time").unwrap();
        g.coord_i64("link", &LINKS, "1", "link index").unwrap();
        let x = Array2::from_shape_fn((n, 3), |(i, j)| (i + j) as f64);
        g.var("x", &["time", "link"], &x, "1", "x").unwrap();
    }
    out.finish().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    let x = f.dataset("g/x").unwrap();
    let chunk = x.chunk().unwrap();
    assert_eq!(chunk[1], 3);
    assert!(chunk[0] < n && chunk[0] * 3 * 8 <= 1 << 20, "{chunk:?}");
    // Compression works: a smooth ramp compresses well below its raw size.
    assert!(x.storage_size() < (n * 3 * 8 / 2) as u64);
}

#[test]
fn tiles_written_as_raw_chunks_read_back_through_hdf5_and_the_image() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.h5");
    let out = H5Out::create(&path, false).unwrap();
    write_tiles(&out);
    let path = out.finish().unwrap();
    let image = H5Out::memory();
    write_tiles(&image);
    let m = image.into_memory().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    let g = f.group("g").unwrap();
    // 7 × 5 in 3 × 2 chunks: tiles at (0, 0) and the partial edge tile at (6, 4) written,
    // the rest the fill value (NaN would not compare equal in the image check).
    let v: Array2<f64> = g.dataset("v").unwrap().read_2d().unwrap();
    let u: Array2<i32> = g.dataset("u").unwrap().read_2d().unwrap();
    let w = g.dataset("w").unwrap().read_dyn::<u8>().unwrap();
    for i in 0..7 {
        for j in 0..5 {
            let want = if i < 3 && j < 2 {
                (10 * i + j) as f64
            } else if i == 6 && j == 4 {
                64.0
            } else {
                -9.5
            };
            assert_eq!(v[(i, j)], want, "v {i} {j}");
            let want_u = if i < 3 && j < 2 {
                (i * j) as i32 - 3
            } else {
                -1
            };
            assert_eq!(u[(i, j)], want_u, "u {i} {j}");
            for l in 0..2 {
                let want_w = if i < 3 && j < 2 { (i + j + l) as u8 } else { 7 };
                assert_eq!(w[[i, j, l]], want_w, "w {i} {j} {l}");
            }
        }
    }
    // Stored compressed: the unwritten chunks take no space.
    assert!(g.dataset("v").unwrap().storage_size() < 7 * 5 * 8);
    assert_image_is_file(&g, m.group("g").unwrap());
}

fn write_tiles(out: &H5Out) {
    let g = out.group("g").unwrap();
    g.coord("y", &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "1", "y")
        .unwrap();
    g.coord("x", &[0.0, 1.0, 2.0, 3.0, 4.0], "1", "x").unwrap();
    g.coord_i64("link", &[1, 2], "1", "link").unwrap();
    let (shape, chunk) = ([7, 5], [3, 2]);
    let v = g
        .var_rows::<f64>("v", &["y", "x"], &shape, &chunk, -9.5, "1", "values")
        .unwrap();
    let first: Vec<f64> = (0..3)
        .flat_map(|i| (0..2).map(move |j| (10 * i + j) as f64))
        .collect();
    let tiles = [
        Tile {
            r0: 0,
            c0: 0,
            rows: 3,
            cols: 2,
            data: &first[..],
        },
        Tile {
            r0: 6,
            c0: 4,
            rows: 1,
            cols: 1,
            data: &[64.0][..],
        },
    ];
    v.write_tiles(&tiles).unwrap();
    let u = g
        .var_rows::<i32>("u", &["y", "x"], &shape, &chunk, -1, "1", "ints")
        .unwrap();
    let ints: Vec<i32> = (0..3)
        .flat_map(|i| (0..2).map(move |j| (i * j) - 3))
        .collect();
    u.write_tiles(&[Tile {
        r0: 0,
        c0: 0,
        rows: 3,
        cols: 2,
        data: &ints[..],
    }])
    .unwrap();
    let w = g
        .var_rows::<u8>(
            "w",
            &["y", "x", "link"],
            &[7, 5, 2],
            &[3, 2, 2],
            7,
            "1",
            "per link",
        )
        .unwrap();
    let bytes: Vec<u8> = (0..3u8)
        .flat_map(|i| (0..2u8).flat_map(move |j| (0..2u8).map(move |l| i + j + l)))
        .collect();
    w.write_tiles(&[Tile {
        r0: 0,
        c0: 0,
        rows: 3,
        cols: 2,
        data: &bytes[..],
    }])
    .unwrap();
}

#[test]
fn dimension_mismatches_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.h5");
    dimension_mismatches(&H5Out::create(&path, false).unwrap());
    // The memory image refuses the same writes with the same errors.
    dimension_mismatches(&H5Out::memory());
}

fn dimension_mismatches(out: &H5Out) {
    let g = out.group("g").unwrap();
    g.coord("time", &TIME, "s", "time").unwrap();
    g.coord_i64("link", &LINKS, "1", "link index").unwrap();
    let th = theta();
    let e = g
        .var("a", &["link", "time"], &th, "rad", "wrong order")
        .unwrap_err();
    assert!(
        matches!(e, StoreError::Dims { .. }) && e.to_string().contains("length"),
        "{e}"
    );
    let e = g.var("b", &["time"], &th, "rad", "too few").unwrap_err();
    assert!(matches!(e, StoreError::Dims { .. }), "{e}");
    let e = g
        .var("c", &["time", "nope"], &th, "rad", "missing")
        .unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    g.var("ok", &["time", "link"], &th, "rad", "fine").unwrap();
    let e = g
        .var("d", &["time", "ok"], &th, "rad", "not a coordinate")
        .unwrap_err();
    assert!(e.to_string().contains("not a coordinate"), "{e}");
    let e = g
        .var("a/b", &["time", "link"], &th, "rad", "bad name")
        .unwrap_err();
    assert!(matches!(e, StoreError::Name { .. }), "{e}");
    let e = g
        .attr_f64("dup", 1.0)
        .and_then(|g| g.attr_f64("dup", 2.0))
        .unwrap_err();
    assert!(e.to_string().contains("dup"), "{e}");
    let e = g.var("ok", &["time"], &TIME, "s", "taken").unwrap_err();
    assert!(e.to_string().contains("ok"), "{e}");
    assert!(out.group("g").is_err(), "a second group g");
    let r = g
        .var_rows::<u8>("r", &["time", "link"], &[5, 3], &[2, 3], 0, "1", "rows")
        .unwrap();
    r.write_rows(3, th.slice(ndarray::s![0..2, ..]).mapv(|v| v as u8).view())
        .unwrap();
    let e = r
        .write_rows(4, Array2::<u8>::zeros((2, 3)).view())
        .unwrap_err();
    assert!(e.to_string().contains("rows 4..6"), "{e}");
}

/// Reads attribute `name` of `loc` as the type `a` has.
fn file_attr(loc: &hdf5::Location, name: &str, like: &Attr) -> Attr {
    let a = loc.attr(name).unwrap();
    match like {
        Attr::F64(_) => Attr::F64(a.read_scalar().unwrap()),
        Attr::I64(_) => Attr::I64(a.read_scalar().unwrap()),
        Attr::I8(_) => Attr::I8(a.read_scalar().unwrap()),
        Attr::Str(_) => Attr::Str(read_str(loc, name)),
        Attr::F64s(_) => Attr::F64s(a.read_raw().unwrap()),
        Attr::U8s(_) => Attr::U8s(a.read_raw().unwrap()),
    }
}

/// The dimension-scale bookkeeping HDF5 adds, which the image has no need of.
const SCALE_ATTRS: [&str; 4] = ["CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST"];

fn assert_attrs(loc: &hdf5::Location, attrs: &[(String, Attr)]) {
    let mut names: Vec<String> = loc.attr_names().unwrap();
    names.retain(|n| !SCALE_ATTRS.contains(&n.as_str()));
    names.sort();
    let mut ours: Vec<String> = attrs.iter().map(|a| a.0.clone()).collect();
    ours.sort();
    assert_eq!(names, ours, "{}", loc.name());
    for (name, a) in attrs {
        assert_eq!(&file_attr(loc, name, a), a, "{} {name}", loc.name());
    }
}

/// Every group, variable (values, shape, coordinate or not) and attribute of the image is in
/// the file, and the file has no others.
fn assert_image_is_file(g: &hdf5::Group, m: &MemGroup) {
    assert_attrs(g, &m.attrs);
    let mut names = g.member_names().unwrap();
    names.sort();
    let mut ours: Vec<String> = m.vars.iter().map(|v| v.name.clone()).collect();
    ours.extend(m.groups.iter().map(|c| c.name.clone()));
    ours.sort();
    assert_eq!(names, ours, "{}", g.name());
    for v in &m.vars {
        let ds = g.dataset(&v.name).unwrap();
        assert_eq!(ds.shape(), v.shape, "{}", v.name);
        assert_eq!(dimscale::is_scale(&ds).unwrap(), v.coord, "{}", v.name);
        let back = match &v.values {
            Values::F64(_) => Values::F64(ds.read_raw().unwrap()),
            Values::I64(_) => Values::I64(ds.read_raw().unwrap()),
            Values::I32(_) => Values::I32(ds.read_raw().unwrap()),
            Values::U8(_) => Values::U8(ds.read_raw().unwrap()),
            other => panic!("{}: sample has no {other:?}", v.name),
        };
        assert_eq!(back, v.values, "{}", v.name);
        assert_attrs(&ds, &v.attrs);
    }
    for c in &m.groups {
        assert_image_is_file(&g.group(&c.name).unwrap(), c);
    }
}

#[test]
fn memory_image_is_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_sample(&dir.path().join("s.h5"));
    let out = H5Out::memory();
    sample_body(&out);
    let image = out.into_memory().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    // Provenance differs in its time stamp only: compare the groups below the root.
    assert_image_is_file(
        &f.group("trajectory").unwrap(),
        image.group("trajectory").unwrap(),
    );
    assert!(image
        .attrs
        .iter()
        .any(|(k, v)| k == "title" && *v == Attr::Str("store test: a 3-link chain".into())));
    let th = image.group("trajectory").unwrap().var("theta").unwrap();
    assert_eq!(th.dims, ["time", "link"]);
    assert_eq!(th.values, Values::F64(theta().iter().copied().collect()));
    // A transposed view lands in logical order, as in the file.
    let out = H5Out::memory();
    let g = out.group("g").unwrap();
    g.coord_i64("link", &LINKS, "1", "link index").unwrap();
    g.coord("time", &TIME, "s", "time").unwrap();
    g.var(
        "theta_t",
        &["link", "time"],
        theta().t(),
        "rad",
        "transposed",
    )
    .unwrap();
    drop(g);
    let m = out.into_memory().unwrap();
    let want: Vec<f64> = theta().t().iter().copied().collect();
    assert_eq!(
        m.group("g").unwrap().var("theta_t").unwrap().values,
        Values::F64(want)
    );
}

#[test]
fn empty_coordinates_and_variables_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.h5");
    let out = H5Out::create(&path, false).unwrap();
    {
        let g = out.group("g").unwrap();
        g.coord("event", &[], "s", "time of event").unwrap();
        g.var(
            "what",
            &["event"],
            &Array1::<i64>::zeros(0),
            "1",
            "which link",
        )
        .unwrap();
    }
    out.finish().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    assert_eq!(f.dataset("g/what").unwrap().shape(), vec![0]);
}

#[test]
fn drop_without_finish_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    {
        let out = H5Out::create(&path, false).unwrap();
        assert_eq!(out.partial_path(), partial(&path));
        let g = out.group("g").unwrap();
        g.coord("time", &TIME, "s", "time").unwrap();
        assert!(partial(&path).exists());
        assert!(!path.exists());
    }
    assert!(!path.exists());
    assert!(!partial(&path).exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn panic_while_writing_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    let p = path.clone();
    let r = std::panic::catch_unwind(move || {
        let out = H5Out::create(&p, false).unwrap();
        let g = out.group("g").unwrap();
        g.coord("time", &TIME, "s", "time").unwrap();
        panic!("analysis failed half-way");
    });
    assert!(r.is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn finish_renames_partial_and_force_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    write_sample(&path);
    assert!(path.exists() && !partial(&path).exists());

    // Without force: refused before anything is written, old file intact.
    let before = std::fs::read(&path).unwrap();
    let e = H5Out::create(&path, false).unwrap_err();
    assert!(matches!(e, StoreError::Exists { .. }), "{e}");
    assert!(e.to_string().contains("--force"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // With force: the old file stays until finish replaces it.
    let out = H5Out::create(&path, true).unwrap();
    out.group("new").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    out.finish().unwrap();
    let f = hdf5::File::open(&path).unwrap();
    assert!(f.group("new").is_ok());
    assert!(f.group("trajectory").is_err());

    // A forced run that fails leaves the old file as it was.
    let before = std::fs::read(&path).unwrap();
    drop(H5Out::create(&path, true).unwrap());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!partial(&path).exists());
}

#[test]
fn check_output_path_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.h5");
    check_output_path(&path, false).unwrap();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "the probe is removed"
    );

    std::fs::write(&path, b"old results").unwrap();
    let e = check_output_path(&path, false).unwrap_err();
    assert!(matches!(e, StoreError::Exists { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("use --force") && msg.contains("out.h5"),
        "{msg}"
    );
    check_output_path(&path, true).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"old results",
        "removes nothing"
    );

    let missing = dir.path().join("no/such/dir/out.h5");
    let e = check_output_path(&missing, true).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StoreError::BadParent { .. }), "{msg}");
    assert!(
        msg.contains("no/such/dir") && msg.contains("does not exist"),
        "{msg}"
    );

    let under_file = path.join("out.h5");
    let e = check_output_path(&under_file, true).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StoreError::BadParent { .. }), "{msg}");
    assert!(msg.contains("not a directory"), "{msg}");

    let e = check_output_path(dir.path(), true).unwrap_err();
    assert!(matches!(e, StoreError::IsDirectory { .. }), "{e}");

    // A bare file name means the current directory, which exists.
    check_output_path(Path::new("pendula-test-does-not-exist.h5"), false).unwrap();
}

/// An output directory the user cannot write to is refused before any work. Root is not bound
/// by permission bits (CAP_DAC_OVERRIDE), so as root the check runs in the real binary under
/// `setpriv` (util-linux) with that capability dropped, where the bits bind again.
#[cfg(unix)]
#[test]
fn check_output_path_refuses_read_only_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = ro.join("out.h5");
    let bits_bind = std::fs::write(ro.join("probe"), b"").is_err();
    let message = if bits_bind {
        check_output_path(&out, false).unwrap_err().to_string()
    } else {
        let run = Command::new("setpriv")
            .args(["--bounding-set", "-dac_override,-dac_read_search", "--"])
            .arg(env!("CARGO_BIN_EXE_pendula"))
            .args([
                "simulate", "--preset", "simple", "--theta", "1", "--t-end", "0.01", "-o",
            ])
            .arg(&out)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "running as root, where permission bits do not bind, this check drops \
                     CAP_DAC_OVERRIDE with setpriv, which cannot run ({e}): install util-linux \
                     or run the tests as a normal user"
                )
            });
        assert_eq!(run.status.code(), Some(2), "{run:?}");
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(message.contains("not writable"), "{message}");
    assert!(!out.exists());
}

#[test]
fn provenance_now_fills_build_facts() {
    let p = Provenance::now("pendula x", "spec");
    assert_eq!(p.pendula_version, env!("CARGO_PKG_VERSION"));
    humantime::parse_rfc3339(&p.created_utc).unwrap();
    assert!(p.created_utc.ends_with('Z'));
    if let Some(c) = &p.git_commit {
        // The commit, marked `-dirty` when the sources built differ from it (build.rs).
        let hash = c.strip_suffix("-dirty").unwrap_or(c);
        assert!(
            hash.len() == 40 && hash.chars().all(|ch| ch.is_ascii_hexdigit()),
            "{c}"
        );
    }
    assert_eq!(p.git_commit.as_deref(), pendula::store::build_git_commit());
}

/// Reads the sample file with h5py and xarray (h5netcdf). Skipped, saying why, where
/// the Python readers are missing (tests/common/python.rs).
#[test]
fn python_h5py_and_xarray_read_the_file() {
    if !python::readers_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py.h5");
    write_sample(&path);
    for group in ["trajectory", "trajectory/diagnostics"] {
        println!("{}", python::check_h5(&path, group));
    }
}
