//! Writing a figure: PNG (supersampled and box-filtered) or SVG by the file's extension, drawn
//! to [`partial_path`] and renamed on success, so a failed draw never leaves a broken image.

use super::{ensure_fonts, DrawError, PlotError, Render, Surface, SUPERSAMPLE};
use plotters::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

/// Output image format, chosen from the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

impl Format {
    /// `.png` or `.svg` (case-insensitive); anything else is
    /// [`PlotError::UnsupportedFormat`] naming the extension.
    pub fn from_path(path: &Path) -> Result<Format, PlotError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext.to_ascii_lowercase().as_str() {
            "png" => Ok(Format::Png),
            "svg" => Ok(Format::Svg),
            _ => Err(PlotError::UnsupportedFormat {
                path: path.to_path_buf(),
                extension: ext.to_string(),
            }),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

/// Where [`save`] writes before renaming: `PATH.partial.EXT` (the image encoder picks
/// the format from the last extension, so a bare `PATH.partial` is not possible).
pub fn partial_path(path: &Path) -> Result<PathBuf, PlotError> {
    let format = Format::from_path(path)?;
    let mut name = path.as_os_str().to_owned();
    name.push(".partial.");
    name.push(format.extension());
    Ok(PathBuf::from(name))
}

/// Draws `figure` to `path` at `size` (logical pixels; also the PNG's pixel size),
/// PNG or SVG by extension. Validates first, writes [`partial_path`], renames on
/// success and removes the partial file on failure.
pub fn save<R: Render>(figure: &R, path: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let format = Format::from_path(path)?;
    figure.validate().map_err(|source| PlotError::Data {
        path: path.to_path_buf(),
        source,
    })?;
    ensure_fonts().map_err(|e| PlotError::from_draw(path, e))?;
    let partial = partial_path(path)?;
    let written = match format {
        Format::Png => write_png(figure, &partial, size),
        Format::Svg => write_svg(figure, &partial, size),
    };
    let result = written.and_then(|()| {
        fs::rename(&partial, path).map_err(|source| PlotError::Io {
            path: path.to_path_buf(),
            source,
        })
    });
    if result.is_err() {
        let _ = fs::remove_file(&partial);
    }
    result
}

/// Renders `figure` to an RGB buffer (`3·w·h` bytes, row-major), supersampled and
/// anti-aliased exactly as PNG output is; useful for tests and embedding.
pub fn render_rgb<R: Render>(figure: &R, (w, h): (u32, u32)) -> Result<Vec<u8>, DrawError> {
    ensure_fonts()?;
    let s = SUPERSAMPLE;
    let (bw, bh) = (w * s, h * s);
    let mut big = vec![255u8; 3 * bw as usize * bh as usize];
    {
        let root = BitMapBackend::with_buffer(&mut big, (bw, bh)).into_drawing_area();
        let surface = Surface {
            scale: f64::from(s),
            raster: true,
        };
        figure.render(&root, surface)?;
        root.present()?;
    }
    Ok(downsample(&big, (w, h), s))
}

/// Box filter of an `s`-times larger RGB buffer down to `w × h`.
fn downsample(big: &[u8], (w, h): (u32, u32), s: u32) -> Vec<u8> {
    let (w, h, s) = (w as usize, h as usize, s as usize);
    let bw = w * s;
    let n = (s * s) as u32;
    let mut out = vec![0u8; 3 * w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0u32; 3];
            for dy in 0..s {
                let row = (y * s + dy) * bw;
                for dx in 0..s {
                    let i = 3 * (row + x * s + dx);
                    for c in 0..3 {
                        acc[c] += u32::from(big[i + c]);
                    }
                }
            }
            let o = 3 * (y * w + x);
            for c in 0..3 {
                out[o + c] = ((acc[c] + n / 2) / n) as u8;
            }
        }
    }
    out
}

fn write_png<R: Render>(figure: &R, partial: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let draw = |e| PlotError::from_draw(partial, e);
    let rgb = render_rgb(figure, size).map_err(draw)?;
    let mut backend = BitMapBackend::new(partial, size);
    backend
        .blit_bitmap((0, 0), size, &rgb)
        .and_then(|()| backend.present())
        .map_err(|e| PlotError::Draw {
            path: partial.to_path_buf(),
            message: e.to_string(),
        })
}

fn write_svg<R: Render>(figure: &R, partial: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        figure
            .render(
                &root,
                Surface {
                    scale: 1.0,
                    raster: false,
                },
            )
            .and_then(|()| root.present().map_err(DrawError::from))
            .map_err(|e| PlotError::from_draw(partial, e))?;
    }
    fs::write(partial, svg).map_err(|source| PlotError::Io {
        path: partial.to_path_buf(),
        source,
    })
}
