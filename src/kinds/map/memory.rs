//! The map run that keeps every tile in memory ([`crate::run::execute`]: the Python package
//! and a sweep's points), refused above the size limit ([`check_size`]): it holds the whole
//! map twice (its tiles, then the file's image). `pendula map` streams instead ([`super::stream`]).

use crate::analysis::map::{run_tiles, MapOptions, TileResult};
use crate::error::FieldError;
use crate::finding::Scalar;
use crate::kinds::Input;
use crate::kinds::RunError;
use crate::limits::check_in_memory_map;
use crate::model::Chain;
use crate::observe::Observer;
use crate::store::map::{assemble, Assembly, MapInfo};
use crate::store::{H5Out, Provenance, StoreError};

/// Every tile of a map, in memory; each is handed to the file as its band is written
/// ([`super::found`]).
pub struct InMemory {
    pub chain: Chain,
    pub info: MapInfo,
    pub tiles: Vec<Option<TileResult>>,
}

/// Every tile of the map `opts` of the run `input` on `chain` (its planar chain), on rayon's
/// pool. A stopped run keeps nothing ([`RunError::Interrupted`]).
pub fn run(
    input: &Input<'_>,
    chain: &Chain,
    opts: &MapOptions,
    obs: &mut dyn Observer,
) -> Result<InMemory, RunError> {
    check_in_memory_map(opts.grid.width, opts.grid.height).map_err(|e| {
        let message = format!(
            "{}; run it with `pendula map`, which streams its tiles to disk",
            e.message
        );
        FieldError::new(e.field, message)
    })?;
    let title = super::map_title(input.title, input.model_name, chain, opts);
    let info = MapInfo::of(title, input.model_name, input.text, chain, opts, None);
    let count = opts.tiling().count();
    let todo: Vec<usize> = (0..count).collect();
    let mut tiles: Vec<Option<TileResult>> = (0..count).map(|_| None).collect();
    let cancel = obs.cancel();
    let summary = run_tiles(chain, opts, &todo, obs, &mut |t| {
        let i = t.index;
        tiles[i] = Some(t);
        Ok(())
    })?;
    if summary.stopped || cancel.is_set() {
        return Err(RunError::Interrupted);
    }
    Ok(InMemory {
        chain: chain.clone(),
        info,
        tiles,
    })
}

impl InMemory {
    /// Writes the map file's content into `out`, handing each tile over (and freeing it) as
    /// its band is written, so a map writes once.
    pub fn write(&mut self, out: &H5Out, prov: &Provenance) -> Result<(), StoreError> {
        let have: Vec<bool> = self.tiles.iter().map(Option::is_some).collect();
        let tiles = &mut self.tiles;
        let mut source = |t: usize| {
            tiles[t].take().ok_or_else(|| StoreError::Dims {
                var: "map".into(),
                what: format!("tile {t} was not computed"),
            })
        };
        assemble(
            out,
            Assembly {
                chain: &self.chain,
                info: &self.info,
                have: &have,
                source: &mut source,
                prov,
            },
        )?;
        Ok(())
    }

    /// A sweep's numbers of the map: the fraction of its pixels in each class, and the mean,
    /// median and finite fraction of its value.
    pub fn scalars(&self) -> Vec<Scalar> {
        let mut s = Vec::new();
        let (mut count, mut classes) = (0usize, [0usize; 5]);
        let mut values = Vec::new();
        for t in self.tiles.iter().flatten() {
            for &c in &t.class {
                if let Some(slot) = classes.get_mut(usize::from(c)) {
                    *slot += 1;
                }
                count += 1;
            }
            values.extend(t.value.iter().copied().filter(|v| v.is_finite()));
        }
        let n = count.max(1) as f64;
        s.push(Scalar {
            name: "class_fraction".into(),
            dim: Some(("class".into(), (0..5).collect())),
            values: classes.iter().map(|&c| c as f64 / n).collect(),
            errors: None,
            units: "1".into(),
            long_name: "fraction of the pixels in each class code (the map's class variable)"
                .into(),
        });
        values.sort_by(f64::total_cmp);
        let mean = if values.is_empty() {
            f64::NAN
        } else {
            values.iter().sum::<f64>() / values.len() as f64
        };
        let median = values.get(values.len() / 2).copied().unwrap_or(f64::NAN);
        s.push(Scalar::one(
            "value_mean",
            mean,
            "1",
            "mean of the map's value over its finite pixels",
        ));
        s.push(Scalar::one(
            "value_median",
            median,
            "1",
            "median of the map's value over its finite pixels",
        ));
        s.push(Scalar::one(
            "value_finite_fraction",
            values.len() as f64 / n,
            "1",
            "fraction of the pixels with a finite value",
        ));
        s
    }
}
