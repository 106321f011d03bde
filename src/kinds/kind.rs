//! What a kind is to the layers around it: its registry entry ([`Kind`]), its validated
//! settings ([`Settings`], held by the spec as [`Registered`]) and what a run runs on
//! ([`Input`]). Each kind's folder implements these; `kinds/mod.rs` lists the kinds.

use super::memory::Term;
use crate::error::RunError;
use crate::finding::Finding;
use crate::observe::Observer;
use std::any::Any;

/// A registered analysis kind: what `kind = "…"` names and its command offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// Its name in specs, its command and its result group.
    pub name: &'static str,
    /// The one-line help of its command.
    pub about: &'static str,
}

/// A validated run of a kind: its options, checked, which know what the run needs and how it
/// runs.
pub trait Settings: Same + std::fmt::Debug + Send + Sync {
    /// The kind it is a run of.
    fn kind(&self) -> &'static Kind;
    /// The model time one trajectory of the run integrates and the field that sets it (None:
    /// no time integration to speak of).
    fn time_span(&self) -> Option<(f64, &'static str)>;
    /// What the run holds in memory besides the model, term by term, for a chain of `links`
    /// links and `dim` states.
    fn memory(&self, links: usize, dim: f64) -> Vec<Term>;
    /// Runs it on `input`, reporting to `observer` and stopping when its token is set.
    fn execute(
        &self,
        input: &Input<'_>,
        observer: &mut dyn Observer,
    ) -> Result<Box<dyn Finding>, RunError>;
}

/// What a run of a kind runs on: the validated spec's title, model, integrator and start
/// (the same record of a run the store writes beside every result).
pub use crate::store::RunInfo as Input;

/// Cloning and comparing a [`Settings`] behind a box (what a spec, which is cloned and
/// compared, needs of it); every `Clone + PartialEq` settings type has it.
pub trait Same {
    fn clone_box(&self) -> Box<dyn Settings>;
    fn same(&self, other: &dyn Settings) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Settings + Clone + PartialEq + 'static> Same for T {
    fn clone_box(&self) -> Box<dyn Settings> {
        Box::new(self.clone())
    }
    fn same(&self, other: &dyn Settings) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A validated run of a registered kind, as the spec holds it.
#[derive(Debug)]
pub struct Registered(pub Box<dyn Settings>);

impl Clone for Registered {
    fn clone(&self) -> Self {
        Registered(self.0.clone_box())
    }
}

impl PartialEq for Registered {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

impl std::ops::Deref for Registered {
    type Target = dyn Settings;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}
