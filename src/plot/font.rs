//! The house font: DejaVu Sans embedded and registered once as [`FONT_FAMILY`], and the text
//! style every figure draws with ([`font`]).

use super::{DrawError, FONT_FAMILY};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::sync::OnceLock;

/// Registers DejaVu Sans (normal, bold, oblique) as [`FONT_FAMILY`].
///
/// plotters' `ab_glyph` feature has no system fonts, so text drawing fails until this
/// ran; [`save`] and [`render_rgb`] call it. Thread-safe and idempotent.
pub fn ensure_fonts() -> Result<(), DrawError> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let fonts = [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
                (FontStyle::Oblique, dejavu::sans::oblique()),
                (FontStyle::Italic, dejavu::sans::oblique()),
            ];
            for (style, bytes) in fonts {
                register_font(FONT_FAMILY, style, bytes)
                    .map_err(|_| format!("DejaVu Sans {} is not a valid font", style.as_str()))?;
            }
            Ok(())
        })
        .clone()
        .map_err(DrawError::Font)
}

/// Text style in [`FONT_FAMILY`] at `size` logical pixels.
pub fn font(size: f64, scale: f64, bold: bool) -> TextStyle<'static> {
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    FontDesc::new(FontFamily::SansSerif, size * scale, style).color(&RGBColor(0x22, 0x22, 0x22))
}
