//! The plotting layer's errors: bad data ([`DataError`], found before any file is created),
//! a failed draw ([`DrawError`]) and either of them with the output file named ([`PlotError`]).

use plotters::prelude::DrawingAreaErrorKind;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Problems with the data handed to a figure; found before any file is created.
#[derive(Debug, Error)]
pub enum DataError {
    #[error("{what} is empty")]
    Empty { what: String },
    #[error("{what} has no finite values (all NaN or infinite)")]
    NoFiniteValues { what: String },
    #[error("{what} has no positive finite values to show on a log axis")]
    NoPositiveValues { what: String },
    #[error("{what} has {found} values, expected {expected}")]
    LengthMismatch {
        what: String,
        expected: usize,
        found: usize,
    },
}

/// Failure inside a [`Render`] implementation, before a path is attached.
#[derive(Debug, Error)]
pub enum DrawError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("font registration failed: {0}")]
    Font(String),
    #[error("drawing failed: {0}")]
    Backend(String),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError::Backend(e.to_string())
    }
}

/// Error of the plotting layer; always names the output file.
#[derive(Debug, Error)]
pub enum PlotError {
    #[error("cannot plot to {}: unsupported extension {extension:?} (use .png or .svg)", path.display())]
    UnsupportedFormat { path: PathBuf, extension: String },
    #[error("cannot plot to {}: {source}", path.display())]
    Data { path: PathBuf, source: DataError },
    #[error("cannot plot to {}: font registration failed: {message}", path.display())]
    Font { path: PathBuf, message: String },
    #[error("cannot plot to {}: drawing failed: {message}", path.display())]
    Draw { path: PathBuf, message: String },
    #[error("cannot write {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl PlotError {
    pub(super) fn from_draw(path: &Path, e: DrawError) -> Self {
        let path = path.to_path_buf();
        match e {
            DrawError::Data(source) => PlotError::Data { path, source },
            DrawError::Font(message) => PlotError::Font { path, message },
            DrawError::Backend(message) => PlotError::Draw { path, message },
        }
    }
}
