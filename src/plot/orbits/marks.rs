//! The bifurcation markers: one shape and colour per known kind.

use plotters::prelude::*;

use crate::plot::{Area, Drawn};

/// The shape of a bifurcation marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkShape {
    Square,
    Diamond,
    Circle,
    TriangleUp,
    TriangleDown,
    Cross,
}

/// The known bifurcation kinds in legend order: (kind, legend label, shape, colour).
pub const BIFURCATION_KINDS: [(&str, &str, MarkShape, RGBColor); 5] = [
    (
        "fold",
        "fold",
        MarkShape::Square,
        RGBColor(0xd6, 0x27, 0x28),
    ),
    (
        "branch-point",
        "branch point",
        MarkShape::Diamond,
        RGBColor(0x94, 0x67, 0xbd),
    ),
    (
        "period-doubling",
        "period doubling",
        MarkShape::Circle,
        RGBColor(0x11, 0x11, 0x11),
    ),
    (
        "neimark-sacker",
        "Neimark–Sacker",
        MarkShape::TriangleUp,
        RGBColor(0x2c, 0xa0, 0x2c),
    ),
    (
        "krein-collision",
        "Krein collision",
        MarkShape::TriangleDown,
        RGBColor(0xff, 0x7f, 0x0e),
    ),
];

/// How a bifurcation of `kind` is drawn: its legend label, shape and colour (a grey cross
/// labelled with the kind itself for a kind not in [`BIFURCATION_KINDS`]).
pub fn bifurcation_style(kind: &str) -> (String, MarkShape, RGBColor) {
    BIFURCATION_KINDS
        .iter()
        .find(|k| k.0 == kind)
        .map(|k| (k.1.to_string(), k.2, k.3))
        .unwrap_or_else(|| {
            (
                kind.to_string(),
                MarkShape::Cross,
                RGBColor(0x7f, 0x7f, 0x7f),
            )
        })
}

/// Outline of every filled marker.
pub(super) const EDGE: RGBColor = RGBColor(0x22, 0x22, 0x22);

impl MarkShape {
    /// Draws the marker centred at device pixel `c`, about `r` device pixels in radius, filled
    /// with `colour` and outlined `stroke` device pixels wide.
    pub(super) fn draw<DB: DrawingBackend>(
        self,
        area: &Area<DB>,
        c: (i32, i32),
        r: i32,
        colour: RGBColor,
        stroke: u32,
    ) -> Drawn {
        let (x, y) = c;
        let rf = f64::from(r);
        let poly = |pts: Vec<(f64, f64)>| -> Vec<(i32, i32)> {
            pts.into_iter()
                .map(|(dx, dy)| (x + dx.round() as i32, y + dy.round() as i32))
                .collect()
        };
        let outline = match self {
            MarkShape::Circle => {
                area.draw(&Circle::new(c, r, colour.filled()))?;
                area.draw(&Circle::new(c, r, EDGE.stroke_width(stroke)))?;
                return Ok(());
            }
            MarkShape::Cross => {
                area.draw(&Cross::new(c, r, colour.stroke_width(stroke * 2)))?;
                return Ok(());
            }
            MarkShape::Square => {
                let s = 0.85 * rf;
                poly(vec![(-s, -s), (s, -s), (s, s), (-s, s)])
            }
            MarkShape::Diamond => {
                let s = 1.2 * rf;
                poly(vec![(0.0, -s), (s, 0.0), (0.0, s), (-s, 0.0)])
            }
            MarkShape::TriangleUp | MarkShape::TriangleDown => {
                let s = if self == MarkShape::TriangleUp {
                    1.25 * rf
                } else {
                    -1.25 * rf
                };
                let h = 0.866 * s.abs();
                poly(vec![(0.0, -s), (h, 0.5 * s), (-h, 0.5 * s)])
            }
        };
        area.draw(&Polygon::new(outline.clone(), colour.filled()))?;
        let mut closed = outline.clone();
        closed.push(outline[0]);
        area.draw(&PathElement::new(closed, EDGE.stroke_width(stroke)))?;
        Ok(())
    }
}
