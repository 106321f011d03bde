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
    /// A map's figure is drawn from its file ([`super::draw`]): the tiles are handed to the
    /// file as it is written.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        Err(PlotError::Draw {
            path: path.to_path_buf(),
            message: "a map is drawn from its file (pendula render)".into(),
        })
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
