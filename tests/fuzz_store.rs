//! A bounded, deterministic fuzz of the map-file readers, beside the spec fuzzer
//! (`tests/fuzz_spec.rs`): small maps are written here by the library, then copied and broken
//! in every way a careless tool or a hostile user could — variables deleted, retyped, reshaped,
//! declared huge, turned into groups or soft and external links; attributes deleted, retyped,
//! emptied, made huge, NaN or one-element (`window`); shards relabelled, `complete` flipped,
//! dimension scales made non-monotonic, constant or logarithmic; single values edited inside
//! tiles — and every mutant goes through the code `merge`, `render` and `measure` run:
//! [`MapReader::open_within`] (under a memory budget), `read_all`, `read_tile`, `symmetry`, the
//! merge's assembly ([`write_map`] from `read_tile`) and measure's map labels
//! ([`map_labels`]). None may panic or allocate past the budget; every refusal is one line;
//! no value edited inside a tile of a checksummed file is accepted.
//!
//! The label-grid reader of `measure --labels` ([`pendula::store::read_labels`]) is fuzzed in
//! [`label_datasets_of_hostile_files`].

use pendula::analysis::map::{self, spec_hash, FlipTarget, MapKind, MapOptions, TileResult};
use pendula::analysis::measure::labels::map_labels;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use pendula::store::map::{write_map, Assembly, MapInfo, MapReader};
use pendula::store::Provenance;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The memory budget of the whole test binary: an allocation that would take the live heap
/// above it fails, which aborts the binary (a test failure, never a swapped machine).
const HEAP_BUDGET: usize = 2 << 30;
/// The budget [`MapReader::open_within`] is given: a map needing more is refused.
const READ_BUDGET: f64 = 256.0 * 1024.0 * 1024.0;
/// Random value edits per base file.
const EDITS: usize = 60;

struct Budgeted;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Budgeted {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        if now > HEAP_BUDGET {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: forwarded as given.
        let p = unsafe { System.alloc(l) };
        if p.is_null() {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded as given.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Budgeted = Budgeted;

fn double() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

/// A base map: its file, its self-description and the tiles it holds.
struct Base {
    path: PathBuf,
    info: MapInfo,
}

/// Writes a 32² map of `kind` in tiles of 8 (all tiles, or shard `shard`) to `dir/name`.
fn base(dir: &Path, name: &str, kind: MapKind, shard: Option<(usize, usize)>) -> Base {
    let chain = double();
    let mut opts = MapOptions::benchmark_f(32, 1.0);
    opts.tile = 8;
    opts.kind = kind;
    let tiling = opts.tiling();
    let tiles: Vec<usize> = match shard {
        Some((i, n)) => tiling.shard(i, n),
        None => (0..tiling.count()).collect(),
    };
    let mut got: BTreeMap<usize, TileResult> = BTreeMap::new();
    map::run_tiles(&chain, &opts, &tiles, &mut Silent, &mut |t| {
        got.insert(t.index, t);
        Ok(())
    })
    .unwrap();
    let info = MapInfo {
        title: format!("fuzz {name}"),
        model_name: "double".into(),
        spec_hash: spec_hash(&chain, &opts),
        opts: opts.clone(),
        x_name: "theta1".into(),
        y_name: "theta2".into(),
        shard,
        spec_text: String::new(),
    };
    let mut have = vec![false; tiling.count()];
    for &t in &tiles {
        have[t] = true;
    }
    let path = dir.join(name);
    let prov = Provenance::now("fuzz", "");
    let mut source = |t: usize| Ok(got[&t].clone());
    write_map(
        &path,
        false,
        Assembly {
            chain: &chain,
            info: &info,
            have: &have,
            source: &mut source,
            prov: &prov,
        },
    )
    .unwrap();
    Base { path, info }
}

/// A mutation of a copy of a base file: its class (for the counts) and what it does.
type Mutate = Box<dyn Fn(&hdf5::File, &hdf5::Group)>;
type Mutation = (String, Mutate);

fn var_names(g: &hdf5::Group) -> Vec<String> {
    g.member_names().unwrap()
}

/// The structural mutations of `path`'s `/map` group: every variable and attribute broken
/// in every listed way.
fn mutations(path: &Path) -> Vec<Mutation> {
    let f = hdf5::File::open(path).unwrap();
    let g = f.group("map").unwrap();
    let vars: Vec<String> = var_names(&g)
        .into_iter()
        .filter(|n| g.dataset(n).is_ok())
        .collect();
    let attrs = g.attr_names().unwrap();
    drop(g);
    drop(f);
    let mut out: Vec<Mutation> = Vec::new();
    let mut add = |class: &str, m: Mutate| {
        out.push((class.to_string(), m));
    };
    for v in vars {
        let n = v.clone();
        add(
            "delete variable",
            Box::new(move |_, g| g.unlink(&n).unwrap()),
        );
        let n = v.clone();
        add(
            "variable as f64",
            Box::new(move |_, g| {
                let shape = g.dataset(&n).unwrap().shape();
                g.unlink(&n).unwrap();
                g.new_dataset::<f64>()
                    .shape(shape)
                    .create(n.as_str())
                    .unwrap();
            }),
        );
        let n = v.clone();
        add(
            "variable as i64",
            Box::new(move |_, g| {
                let shape = g.dataset(&n).unwrap().shape();
                g.unlink(&n).unwrap();
                g.new_dataset::<i64>()
                    .shape(shape)
                    .create(n.as_str())
                    .unwrap();
            }),
        );
        let n = v.clone();
        add(
            "variable as u8",
            Box::new(move |_, g| {
                let shape = g.dataset(&n).unwrap().shape();
                g.unlink(&n).unwrap();
                g.new_dataset::<u8>()
                    .shape(shape)
                    .create(n.as_str())
                    .unwrap();
            }),
        );
        for (label, shape) in [
            ("variable 1-D", vec![7usize]),
            ("variable scalar", vec![]),
            ("variable transposed", vec![]),
            ("variable half", vec![]),
            ("variable 3-D", vec![2, 2, 2]),
        ] {
            let n = v.clone();
            add(
                label,
                Box::new(move |_, g| {
                    let ds = g.dataset(&n).unwrap();
                    let old = ds.shape();
                    let ty = ds.dtype().unwrap();
                    let new: Vec<usize> = match label {
                        "variable transposed" => old.iter().rev().copied().collect(),
                        "variable half" => {
                            let mut s = old.clone();
                            if let Some(x) = s.first_mut() {
                                *x = (*x / 2).max(1) + usize::from(*x == 1);
                            }
                            s
                        }
                        _ => shape.clone(),
                    };
                    drop(ds);
                    g.unlink(&n).unwrap();
                    g.new_dataset_builder()
                        .empty_as(&ty)
                        .shape(new)
                        .create(n.as_str())
                        .unwrap();
                }),
            );
        }
        let n = v.clone();
        add(
            "variable declared huge",
            Box::new(move |_, g| {
                let ds = g.dataset(&n).unwrap();
                let ty = ds.dtype().unwrap();
                let rank = ds.ndim().max(1);
                drop(ds);
                g.unlink(&n).unwrap();
                let shape = vec![1_000_000usize; rank];
                let chunk = vec![64usize; rank];
                g.new_dataset_builder()
                    .empty_as(&ty)
                    .chunk(chunk)
                    .shape(shape)
                    .create(n.as_str())
                    .unwrap();
            }),
        );
        let n = v.clone();
        add(
            "soft link",
            Box::new(move |_, g| {
                g.unlink(&n).unwrap();
                g.link_soft("/map/tile_row", &n).unwrap();
            }),
        );
        let n = v.clone();
        add(
            "hard link to another variable",
            Box::new(move |_, g| {
                let target = if n == "class" {
                    "/map/tile_done"
                } else {
                    "/map/class"
                };
                g.unlink(&n).unwrap();
                g.link_hard(target, &n).unwrap();
            }),
        );
        let n = v.clone();
        add(
            "dangling soft link",
            Box::new(move |_, g| {
                g.unlink(&n).unwrap();
                g.link_soft("/nowhere", &n).unwrap();
            }),
        );
        let n = v.clone();
        add(
            "external link",
            Box::new(move |_, g| {
                g.unlink(&n).unwrap();
                g.link_external("/etc/passwd", "/x", &n).unwrap();
            }),
        );
        let n = v.clone();
        add(
            "variable as group",
            Box::new(move |_, g| {
                g.unlink(&n).unwrap();
                g.create_group(&n).unwrap();
            }),
        );
        let n = v.clone();
        add(
            "dimension scale",
            Box::new(move |_, g| {
                // Coordinates: non-monotonic, constant, logarithmic values (same shape).
                let ds = g.dataset(&n).unwrap();
                if let Ok(v) = ds.read_raw::<f64>() {
                    let len = v.len();
                    let w: Vec<f64> = (0..len)
                        .map(|i| match i % 3 {
                            0 => 1.0,
                            1 => (i as f64).exp(),
                            _ => -(i as f64),
                        })
                        .collect();
                    let _ = ds.write_raw(&w);
                }
            }),
        );
    }
    for a in attrs {
        let n = a.clone();
        add(
            "delete attribute",
            Box::new(move |_, g| g.delete_attr(&n).unwrap()),
        );
        let values: [(&str, Vec<f64>); 6] = [
            ("attribute one f64", vec![1.0]),
            ("attribute NaN", vec![f64::NAN]),
            ("attribute inf", vec![f64::INFINITY]),
            ("attribute huge", vec![1.7e308, -1.7e308, 1.7e308, -1.7e308]),
            ("attribute reversed", vec![3.0, -3.0, 3.0, -3.0]),
            ("attribute empty", vec![]),
        ];
        for (label, v) in values {
            let n = a.clone();
            add(
                label,
                Box::new(move |_, g| {
                    g.delete_attr(&n).unwrap();
                    if v.len() == 1 {
                        g.new_attr::<f64>()
                            .create(n.as_str())
                            .unwrap()
                            .write_scalar(&v[0])
                            .unwrap();
                    } else {
                        g.new_attr::<f64>()
                            .shape(v.len())
                            .create(n.as_str())
                            .unwrap()
                            .write_raw(&v)
                            .unwrap();
                    }
                }),
            );
        }
        for (label, v) in [
            ("attribute 0", 0i64),
            ("attribute -1", -1),
            ("attribute i64::MAX", i64::MAX),
            ("attribute 2^32", 1 << 32),
        ] {
            let n = a.clone();
            add(
                label,
                Box::new(move |_, g| {
                    g.delete_attr(&n).unwrap();
                    g.new_attr::<i64>()
                        .create(n.as_str())
                        .unwrap()
                        .write_scalar(&v)
                        .unwrap();
                }),
            );
        }
        for (label, v) in [
            ("attribute text", "x"),
            ("attribute shard 0/4", "0/4"),
            ("attribute shard 5/4", "5/4"),
            ("attribute shard 1/0", "1/0"),
            ("attribute line break", "a\nb"),
            ("attribute empty text", ""),
        ] {
            let n = a.clone();
            add(
                label,
                Box::new(move |_, g| {
                    g.delete_attr(&n).unwrap();
                    let s: hdf5::types::VarLenUnicode = v.parse().unwrap();
                    g.new_attr::<hdf5::types::VarLenUnicode>()
                        .create(n.as_str())
                        .unwrap()
                        .write_scalar(&s)
                        .unwrap();
                }),
            );
        }
        let n = a.clone();
        add(
            "attribute i8 flipped",
            Box::new(move |_, g| {
                if let Ok(v) = g.attr(&n).and_then(|x| x.read_scalar::<i8>()) {
                    let _ = g.attr(&n).unwrap().write_scalar(&(1 - v));
                }
            }),
        );
    }
    add(
        "extra variable and attribute",
        Box::new(|_, g| {
            g.new_dataset::<f64>().shape(3).create("extra").unwrap();
            g.new_attr::<i64>()
                .create("extra")
                .unwrap()
                .write_scalar(&7i64)
                .unwrap();
        }),
    );
    add(
        "map as soft link",
        Box::new(|f, _| {
            f.relink("map", "real_map").unwrap();
            f.link_soft("/real_map", "map").unwrap();
        }),
    );
    add("model deleted", Box::new(|_, g| g.unlink("model").unwrap()));
    add(
        "model link_length declared huge",
        Box::new(|_, g| {
            let m = g.group("model").unwrap();
            m.unlink("link_length").unwrap();
            m.new_dataset::<f64>()
                .chunk(4096)
                .shape(1usize << 40)
                .create("link_length")
                .unwrap();
        }),
    );
    out
}

/// What a refusal is about, for the counts.
fn refusal_class(m: &str) -> &'static str {
    let has = |s: &str| m.contains(s);
    if has("checksum") {
        "checksum"
    } else if has("link") && (has("soft") || has("external")) {
        "link"
    } else if has("values, expected") {
        "element type"
    } else if has("has shape") {
        "shape"
    } else if has("no variable")
        || has("not a dataset")
        || has("no group")
        || has("not a group")
        || has("no /map")
    {
        "missing"
    } else if has("memory budget") || has("pixels, above") {
        "size"
    } else if has("tile_done") || has("tile_steps") || has("not a tile of shard") {
        "tiles"
    } else if has("attribute") {
        "attribute"
    } else {
        "other"
    }
}

/// Runs `path` through the readers' code; `Err` is the refusal. `base` is the unbroken map's
/// description, for the merge's assembly.
fn read_everything(path: &Path, out: &Path, base: &MapInfo) -> Result<(), String> {
    let r = MapReader::open_within(path, READ_BUDGET).map_err(|e| e.to_string())?;
    let h = r.header.clone();
    let d = r.read_all().map_err(|e| format!("read_all: {e}"))?;
    for t in (0..h.tile_done.len()).filter(|&t| h.tile_done[t]) {
        r.read_tile(t).map_err(|e| format!("read_tile: {e}"))?;
    }
    if h.complete {
        r.symmetry().map_err(|e| format!("symmetry: {e}"))?;
    }
    let grids = r.grids(&d);
    // measure's labels of the map (refusals here are measure's, e.g. an incomplete shard).
    let _ = map_labels(&grids, None, &[], None, "fuzz.h5");
    // merge: the file's tiles assembled again (as for one shard).
    if h.spec_hash == base.spec_hash {
        let chain = double();
        let prov = Provenance::now("fuzz merge", "");
        let mut source = |t: usize| r.read_tile(t);
        let _ = std::fs::remove_file(out);
        write_map(
            out,
            true,
            Assembly {
                chain: &chain,
                info: base,
                have: &h.tile_done,
                source: &mut source,
                prov: &prov,
            },
        )
        .map_err(|e| format!("merge: {e}"))?;
        MapReader::open_within(out, READ_BUDGET).map_err(|e| format!("merged: {e}"))?;
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    files: usize,
    accepted: usize,
    accepted_by: BTreeMap<String, usize>,
    refused: BTreeMap<&'static str, usize>,
    panics: Vec<String>,
    multi_line: Vec<String>,
    edits_accepted: Vec<String>,
}

fn copy_and(src: &Path, dst: &Path, f: impl FnOnce(&hdf5::File, &hdf5::Group)) {
    std::fs::copy(src, dst).unwrap();
    let file = hdf5::File::open_rw(dst).unwrap();
    let g = file.group("map").unwrap();
    f(&file, &g);
}

#[test]
fn hostile_map_files_are_refused_in_one_line_and_never_panic() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let lyapunov = MapKind::Lyapunov {
        renorm_steps: 10,
        blocks: 10,
        tolerance: None,
    };
    let bases = [
        base(
            d,
            "flip.h5",
            MapKind::FlipTime {
                target: FlipTarget::Any,
            },
            None,
        ),
        base(
            d,
            "flip-shard.h5",
            MapKind::FlipTime {
                target: FlipTarget::Any,
            },
            Some((2, 3)),
        ),
        base(d, "lyapunov.h5", lyapunov, None),
        base(d, "ftle.h5", MapKind::Ftle, Some((1, 2))),
    ];
    let mut c = Counts::default();
    let mut rng = StdRng::seed_from_u64(37);
    let out = d.join("merged.h5");
    for (b, base) in bases.iter().enumerate() {
        read_everything(&base.path, &out, &base.info).expect("the unbroken map reads");
        let mut cases: Vec<(String, PathBuf)> = Vec::new();
        for (i, (class, m)) in mutations(&base.path).into_iter().enumerate() {
            let p = d.join(format!("m{b}-{i}.h5"));
            copy_and(&base.path, &p, |f, g| m(f, g));
            cases.push((class, p));
        }
        // Single values edited inside a tile the file holds: each must be refused.
        let r = MapReader::open(&base.path).unwrap();
        let done: Vec<usize> = (0..r.header.tile_done.len())
            .filter(|&t| r.header.tile_done[t])
            .collect();
        let tiling = r.header.tiling();
        let names: Vec<&str> = if r.header.is_flip() {
            vec!["flip_step", "flip_link", "class", "flip_time_located"]
        } else {
            let mut v = vec!["class", r.header.kind.value().unwrap().name];
            v.extend(r.header.kind.aux().iter().map(|a| a.name));
            v
        };
        drop(r);
        for e in 0..EDITS {
            let tile = done[rng.random_range(0..done.len())];
            let rect = tiling.rect(tile);
            let (i, j) = (
                rng.random_range(rect.r0..rect.r1),
                rng.random_range(rect.c0..rect.c1),
            );
            let name = names[rng.random_range(0..names.len())];
            let p = d.join(format!("e{b}-{e}.h5"));
            copy_and(&base.path, &p, |_, g| {
                let ds = g.dataset(name).unwrap();
                let sel = ndarray::s![i..i + 1, j..j + 1];
                match ds.dtype().unwrap().size() {
                    1 => {
                        let v = ds.read_slice_2d::<u8, _>(sel).unwrap()[(0, 0)];
                        ds.write_slice(&ndarray::arr2(&[[v.wrapping_add(1)]]), sel)
                            .unwrap();
                    }
                    4 => {
                        let v = ds.read_slice_2d::<i32, _>(sel).unwrap()[(0, 0)];
                        ds.write_slice(&ndarray::arr2(&[[v.wrapping_add(1)]]), sel)
                            .unwrap();
                    }
                    _ => {
                        let v = ds.read_slice_2d::<f64, _>(sel).unwrap()[(0, 0)];
                        let w = if v.is_nan() {
                            0.0
                        } else {
                            f64::from_bits(v.to_bits() ^ 1)
                        };
                        ds.write_slice(&ndarray::arr2(&[[w]]), sel).unwrap();
                    }
                }
            });
            cases.push((format!("edit {name} in tile {tile}"), p));
        }
        for (class, p) in cases {
            c.files += 1;
            let run = catch_unwind(AssertUnwindSafe(|| read_everything(&p, &out, &base.info)));
            match run {
                Err(e) => {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    c.panics.push(format!("{}: {class}: {msg}", p.display()));
                }
                Ok(Ok(())) => {
                    c.accepted += 1;
                    *c.accepted_by.entry(class.clone()).or_default() += 1;
                    if class.starts_with("edit ") {
                        c.edits_accepted.push(format!("{}: {class}", p.display()));
                    }
                }
                Ok(Err(m)) => {
                    if m.contains('\n') {
                        c.multi_line.push(format!("{class}: {m}"));
                    }
                    *c.refused.entry(refusal_class(&m)).or_default() += 1;
                }
            }
            let _ = std::fs::remove_file(&p);
        }
    }
    let refused: usize = c.refused.values().sum();
    eprintln!(
        "fuzz_store: {} files, {} accepted (changes pendula does not read), {refused} refused {:?}, {} panics, peak heap {} KiB",
        c.files,
        c.accepted,
        c.refused,
        c.panics.len(),
        PEAK.load(Ordering::Relaxed) >> 10
    );
    eprintln!("fuzz_store: accepted by mutation: {:?}", c.accepted_by);
    assert!(c.panics.is_empty(), "panics:\n{}", c.panics.join("\n"));
    assert!(
        c.multi_line.is_empty(),
        "refusals over several lines:\n{}",
        c.multi_line.join("\n")
    );
    assert!(
        c.edits_accepted.is_empty(),
        "edited tiles accepted:\n{}",
        c.edits_accepted.join("\n")
    );
    assert!(c.files >= 500, "{} files", c.files);
}

/// `measure --labels FILE:/dataset` on hostile files: wrong ranks and types, declared-huge
/// datasets, links, non-monotonic, constant or logarithmic dimension scales.
///
#[test]
fn label_datasets_of_hostile_files() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let p = d.join("labels.h5");
    {
        let f = hdf5::File::create(&p).unwrap();
        let grid = ndarray::Array2::from_shape_fn((64, 64), |(i, j)| ((i + j) % 3) as i32);
        f.new_dataset_builder()
            .with_data(&grid)
            .create("ok")
            .unwrap();
        f.new_dataset_builder()
            .with_data(&grid.mapv(f64::from))
            .create("float")
            .unwrap();
        f.new_dataset::<i32>()
            .shape((2, 2, 2))
            .create("rank3")
            .unwrap();
        f.new_dataset::<i32>().shape(()).create("scalar").unwrap();
        f.new_dataset::<i32>()
            .shape((0, 64))
            .create("empty")
            .unwrap();
        f.new_dataset::<i32>()
            .chunk((64, 64))
            .shape((1_000_000, 1_000_000))
            .create("huge")
            .unwrap();
        f.link_soft("/ok", "soft").unwrap();
        f.link_external("/etc/passwd", "/x", "external").unwrap();
        for (name, xs) in [
            (
                "nonmonotonic",
                (0..64).map(|i| f64::from(i % 7)).collect::<Vec<_>>(),
            ),
            ("constant", vec![1.0; 64]),
            (
                "log",
                (0..64).map(|i| 10f64.powf(f64::from(i) / 8.0)).collect(),
            ),
            (
                "ends_in_zero",
                (0..64)
                    .map(|i| if i == 63 { 0.0 } else { f64::from(i + 1) })
                    .collect(),
            ),
            (
                "descending",
                (0..64).map(|i| f64::from(63 - i) / 63.0).collect(),
            ),
            (
                "nan",
                (0..64)
                    .map(|i| if i == 5 { f64::NAN } else { f64::from(i) })
                    .collect(),
            ),
        ] {
            let ds = f
                .new_dataset_builder()
                .with_data(&grid)
                .create(name)
                .unwrap();
            let x = f
                .new_dataset_builder()
                .with_data(&xs)
                .create(format!("{name}_x").as_str())
                .unwrap();
            let y = f
                .new_dataset_builder()
                .with_data(&(0..64).map(f64::from).collect::<Vec<_>>())
                .create(format!("{name}_y").as_str())
                .unwrap();
            pendula::store::dimscale::set_scale(&x, "x").unwrap();
            pendula::store::dimscale::set_scale(&y, "y").unwrap();
            pendula::store::dimscale::attach_scale(&ds, &x, 1).unwrap();
            pendula::store::dimscale::attach_scale(&ds, &y, 0).unwrap();
        }
    }
    let names = [
        "ok",
        "float",
        "rank3",
        "scalar",
        "empty",
        "huge",
        "soft",
        "external",
        "nonmonotonic",
        "constant",
        "log",
        "ends_in_zero",
        "descending",
        "nan",
        "absent",
    ];
    let mut panics = Vec::new();
    for n in names {
        // The budget the CLI would apply: here at most 2²⁴ pixels.
        let fits = |nx: usize, ny: usize| {
            if nx.saturating_mul(ny) > 1 << 24 {
                Err(pendula::error::FieldError::new(
                    "labels",
                    format!("{nx} × {ny} pixels are over the budget"),
                ))
            } else {
                Ok(())
            }
        };
        let r = catch_unwind(|| pendula::store::read_labels(&p, &format!("/{n}"), true, fits));
        match r {
            Err(_) => panics.push(n),
            Ok(Err(e)) => assert!(!e.to_string().contains('\n'), "{n}: {e}"),
            Ok(Ok(l)) => {
                if let Some(e) = l.extent {
                    // A descending linear scale is a valid, mirrored axis.
                    assert!(
                        e.iter().all(|v| v.is_finite()) && e[0] != e[1] && e[2] < e[3],
                        "{n}: {e:?}"
                    );
                    assert_eq!(n == "descending", e[0] > e[1], "{n}: {e:?}");
                }
                assert!(
                    !matches!(
                        n,
                        "nonmonotonic" | "constant" | "log" | "ends_in_zero" | "nan"
                    ) || l.extent.is_none(),
                    "{n}: an extent from a scale that is not linear: {:?}",
                    l.extent
                );
            }
        }
    }
    assert!(panics.is_empty(), "panics: {panics:?}");
}
