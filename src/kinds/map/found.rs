//! A map held in memory as a result ([`InMemory`]): it writes its own file content, band by
//! band ([`crate::kinds::OwnContent`]), and gives a sweep its scalars; the CLI never reports it
//! (`pendula map` and `pendula run` stream a map instead, [`super::stream`]).

use super::memory::InMemory;
use crate::finding::{Finding, Record, Scalar};
use crate::kinds::{Found, OwnContent};
use crate::plot::PlotError;
use crate::store::{H5Out, Provenance, StoreError};
use serde_json::json;
use std::path::Path;

impl Finding for InMemory {
    fn group(&self) -> &'static str {
        "map"
    }

    /// A stopped map keeps nothing ([`crate::kinds::RunError::Interrupted`]): one that exists
    /// went to its end.
    fn complete(&self) -> bool {
        true
    }

    /// Never called: a map writes its own content ([`Found::own_content`]), whose tiles it
    /// hands over one band at a time rather than as one record.
    fn record(&self) -> Record {
        unreachable!("a map writes its own content (Found::own_content), never a record")
    }

    /// What the map is: its kind and size (no front end prints a map held in memory).
    fn summary(&self) -> serde_json::Value {
        let o = &self.info.opts;
        json!({"map": o.kind.name(), "width": o.grid.width, "height": o.grid.height})
    }

    fn scalars(&self) -> Vec<Scalar> {
        InMemory::scalars(self)
    }
}

impl Found for InMemory {
    /// The figure `pendula map --plot` draws, drawn as it draws it: from the map's file
    /// ([`super::stream::draw`]), here a copy written to a temporary file and removed (the
    /// file's writer takes the tiles it writes, so the copy holds the map a second time while
    /// the figure is drawn).
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        let failed = |message: String| PlotError::Draw {
            path: path.to_path_buf(),
            message,
        };
        let mut copy = InMemory {
            chain: self.chain.clone(),
            info: self.info.clone(),
            tiles: self.tiles.clone(),
        };
        let dir = tempfile::tempdir().map_err(|e| failed(format!("a temporary folder: {e}")))?;
        let file = dir.path().join("map.h5");
        let out = H5Out::create(&file, false).map_err(|e| failed(e.to_string()))?;
        copy.write(&out, &Provenance::now("pendula", ""))
            .map_err(|e| failed(e.to_string()))?;
        out.finish().map_err(|e| failed(e.to_string()))?;
        super::stream::draw(&file, path).map_err(|e| failed(e.to_string()))
    }

    fn own_content(&mut self) -> Option<&mut dyn OwnContent> {
        Some(self)
    }
}

impl OwnContent for InMemory {
    fn write(&mut self, out: &H5Out, prov: &Provenance) -> Result<(), StoreError> {
        InMemory::write(self, out, prov)
    }
}
