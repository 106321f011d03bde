//! Map files after their run: `pendula merge` joins the shard files of one map into the file
//! a single run would write ([`merge`]), `pendula render` draws a map file ([`render`]). Both
//! read and write through the store's map files ([`crate::store::map`]); the front end checks
//! its paths and flags first and hands the reader's warnings to its user (`warn`).

use super::stream::{draw, StreamError};
use crate::plot::map::{draw_map_data, ColourMap, Show, COLOUR_MAPS};
use crate::spec::{self, Spec};
use crate::store::map::{write_map, Assembly, MapReader};
use crate::store::{prepare_output, Provenance};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A merge of shard files into one map file (and its figure).
pub struct Merge<'a> {
    /// The shard files (`pendula map --shard i/n`).
    pub inputs: &'a [PathBuf],
    /// The merged map file.
    pub out: &'a Path,
    /// Its figure, if any (its path checked by the front end).
    pub plot: Option<&'a Path>,
    /// The memory a shard file's reader may hold (bytes).
    pub budget: f64,
    /// Overwrite an existing `out`.
    pub force: bool,
    /// Return the JSON summary.
    pub json: bool,
}

/// Joins `m.inputs` into `m.out`: every tile in exactly one shard of the same map, the spec
/// read back from the first one; returns the JSON summary when `m.json` asks for it.
pub fn merge(
    m: &Merge<'_>,
    command_line: &str,
    warn: &mut dyn FnMut(&str),
) -> Result<Option<serde_json::Value>, StreamError> {
    let (inputs, out) = (m.inputs, m.out);
    let mut readers = Vec::new();
    for p in inputs {
        let r =
            MapReader::open_within(p, m.budget).map_err(|e| StreamError::refused("merge: ", e))?;
        readers.push(r);
    }
    for r in &readers {
        if let Some(w) = r.warning() {
            warn(&w);
        }
    }
    let first = &readers[0].header;
    for (r, p) in readers.iter().zip(inputs).skip(1) {
        if r.header.spec_hash != first.spec_hash {
            return Err(StreamError::Refused(format!(
                "merge: {} (spec hash {}) is not a shard of the same map as {} (spec hash {})",
                p.display(),
                r.header.spec_hash,
                inputs[0].display(),
                first.spec_hash
            )));
        }
    }
    let count = first.tile_done.len();
    let mut owner: Vec<Option<usize>> = vec![None; count];
    for (f, r) in readers.iter().enumerate() {
        for (t, &d) in r.header.tile_done.iter().enumerate() {
            if !d {
                continue;
            }
            if let Some(g) = owner[t] {
                return Err(StreamError::Refused(format!(
                    "merge: tile {t} is in both {} and {} (duplicate or overlapping shards)",
                    inputs[g].display(),
                    inputs[f].display()
                )));
            }
            owner[t] = Some(f);
        }
    }
    let missing: Vec<usize> = (0..count).filter(|&t| owner[t].is_none()).collect();
    if let Some(&t) = missing.first() {
        let shards: Vec<String> = readers
            .iter()
            .map(|r| {
                r.header
                    .shard
                    .map(|(i, n)| format!("{i}/{n}"))
                    .unwrap_or_else(|| "whole".into())
            })
            .collect();
        return Err(StreamError::Refused(format!(
            "merge: incomplete: {} of {count} tiles missing (first: tile {t}); shards given: {}",
            missing.len(),
            shards.join(", ")
        )));
    }
    let spec = spec_of_file(&inputs[0])?;
    let chain = planar(&spec)?;
    let mut info = super::info(&spec, chain, None);
    if info.spec_hash != first.spec_hash {
        return Err(StreamError::Refused(format!(
            "merge: {} was written by another pendula version (spec hash {} here, {} in the file)",
            inputs[0].display(),
            info.spec_hash,
            first.spec_hash
        )));
    }
    info.title = first.title.clone();
    prepare_output(out, m.force).map_err(|e| StreamError::Refused(format!("-o: {e}")))?;
    let prov = Provenance::now(command_line, &spec.text);
    let have = vec![true; count];
    let mut source = |t: usize| readers[owner[t].expect("checked complete")].read_tile(t);
    let assembly = Assembly {
        chain,
        info: &info,
        have: &have,
        source: &mut source,
        prov: &prov,
    };
    let written = write_map(out, m.force, assembly)?;
    if let Some(p) = m.plot {
        draw(out, p)?;
    }
    if !m.json {
        return Ok(None);
    }
    let mut v = json!({
        "kind": "merge", "inputs": inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "output": out.display().to_string(), "tiles": count, "complete": written.complete,
        "steps_total": written.steps, "spec_hash": info.spec_hash,
    });
    if let Some(f) = &written.flip {
        v["checksum"] = json!({"n_flipped": f.n_flipped, "sum_flip_steps": f.sum_flip_steps,
            "sum_flip_time": f.sum_flip_time, "fnv1a64": f.fnv1a64});
        v["n_forbidden"] = json!(f.n_forbidden);
        v["n_forbidden_flipped"] = json!(f.n_forbidden_flipped);
    }
    Ok(Some(v))
}

/// The planar chain of a map spec read back from a file (a map is offered for no other).
fn planar(spec: &Spec) -> Result<&crate::model::Chain, StreamError> {
    spec.model.planar().ok_or_else(|| {
        StreamError::Refused(format!(
            "{} is offered for the planar chain only",
            spec.analysis.kind().name
        ))
    })
}

/// Rebuilds the validated spec stored in a map file (root attribute `spec`).
fn spec_of_file(path: &Path) -> Result<Spec, StreamError> {
    let file = hdf5::File::open(path)
        .map_err(|e| StreamError::Refused(format!("cannot open {}: {e}", path.display())))?;
    let text = file
        .attr("spec")
        .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>())
        .map_err(|e| {
            StreamError::Refused(format!("{}: no spec attribute ({e})", path.display()))
        })?;
    let sf = spec::parse(text.as_str(), &path.display().to_string())?;
    Ok(sf.validate()?)
}

/// Draws the map file `input` to `output` (its path checked by the front end): `show` names
/// the variable (None: the map's default), `cmap` the colour map (None: by variable).
pub fn render(
    input: &Path,
    output: &Path,
    show: Option<&str>,
    cmap: Option<&str>,
    force: bool,
    warn: &mut dyn FnMut(&str),
) -> Result<(), StreamError> {
    let cmap = cmap
        .map(|c| {
            ColourMap::parse(c).ok_or_else(|| {
                StreamError::Refused(format!(
                    "--cmap: unknown colour map `{c}` (expected {})",
                    COLOUR_MAPS.join(", ")
                ))
            })
        })
        .transpose()?;
    let r = MapReader::open(input).map_err(|e| StreamError::refused("render: ", e))?;
    if let Some(w) = r.warning() {
        warn(&w);
    }
    let show =
        Show::parse(show, &r.header).map_err(|e| StreamError::Refused(format!("--show: {e}")))?;
    prepare_output(output, force).map_err(|e| StreamError::Refused(format!("-o: {e}")))?;
    let data = r.read_for_figure()?;
    Ok(draw_map_data(&r.header, &data, show, cmap, output)?)
}
