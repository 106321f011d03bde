//! Legends: rows of a glyph and a label, placed in the emptiest corner of a plot.

use super::*;

/// One legend row: a label and how its glyph is drawn.
#[derive(Debug, Clone)]
pub struct LegendEntry {
    pub label: String,
    pub color: RGBColor,
    /// Draw a shaded box behind the line (the series has an error band).
    pub band: bool,
    /// Draw this marker instead of a line (scatter series).
    pub marker: Option<Marker>,
}

/// A scatter marker, as drawn in a plot and in its legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// An open circle.
    Circle,
    /// A filled circle.
    Dot,
    /// A diagonal cross.
    Cross,
    /// A filled square (a colour swatch).
    Square,
}

impl Marker {
    /// Draws the marker centred at device pixel `c`, `r` device pixels in radius, strokes
    /// `stroke` device pixels wide.
    pub fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, Shift>,
        c: (i32, i32),
        r: i32,
        color: RGBColor,
        stroke: u32,
    ) -> Result<(), DrawError> {
        match self {
            Marker::Circle => area.draw(&Circle::new(c, r, color.stroke_width(stroke)))?,
            Marker::Dot => area.draw(&Circle::new(c, r, color.filled()))?,
            Marker::Cross => area.draw(&Cross::new(c, r, color.stroke_width(stroke)))?,
            Marker::Square => area.draw(&Rectangle::new(
                [(c.0 - r, c.1 - r), (c.0 + r, c.1 + r)],
                color.filled(),
            ))?,
        }
        Ok(())
    }
}

/// [`draw_legend_row`] along the foot of a `w` × `h` figure (logical pixels): centred across it,
/// `lift` above the middle of the bottom band `band` high, at most 40 narrower than the figure.
pub fn draw_foot_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    entries: &[(Vec<RGBColor>, String)],
    (w, h): (f64, f64),
    (band, lift): (f64, f64),
    size: f64,
) -> Result<(), DrawError> {
    draw_legend_row(
        root,
        surface,
        entries,
        (w / 2.0, h - band / 2.0 - lift),
        w - 40.0,
        size,
    )
}

/// Draws a one-row legend of `(marker colours, label)` entries centred at `centre` (logical
/// pixels) in at most `max_w`: each entry's swatch is a row of squares (several colours: "one
/// colour each") sized to the text, entries spaced by their measured widths, the font shrunk
/// if the row would not fit. Used below panel grids, where a boxed legend would hide data.
pub fn draw_legend_row<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    surface: Surface,
    entries: &[(Vec<RGBColor>, String)],
    centre: (f64, f64),
    max_w: f64,
    size: f64,
) -> Result<(), DrawError> {
    let scale = surface.scale;
    let layout = |sz: f64| {
        let swatch = 0.8 * sz;
        let widths: Vec<f64> = entries
            .iter()
            .map(|(c, l)| c.len() as f64 * swatch + 0.5 * sz + text_width(l, sz, false, scale))
            .collect();
        let gap = 2.0 * sz;
        let total = widths.iter().sum::<f64>() + gap * entries.len().saturating_sub(1) as f64;
        (swatch, widths, gap, total)
    };
    let mut sz = size;
    while sz > 6.0 && layout(sz).3 > max_w {
        sz *= 0.95;
    }
    let (swatch, widths, gap, total) = layout(sz);
    let mut x = centre.0 - total / 2.0;
    let y = surface.px(centre.1);
    let half = surface.px(swatch / 2.0);
    for ((colours, label), w) in entries.iter().zip(widths) {
        for (i, c) in colours.iter().enumerate() {
            let cx = surface.px(x + (i as f64 + 0.5) * swatch);
            root.draw(&Rectangle::new(
                [(cx - half, y - half), (cx + half, y + half)],
                c.filled(),
            ))?;
        }
        root.draw(&Text::new(
            label.clone(),
            (surface.px(x + colours.len() as f64 * swatch + 0.5 * sz), y),
            font(sz, scale, false).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += w + gap;
    }
    Ok(())
}

/// A measured legend box; place it with [`Legend::place`], then [`Legend::draw`].
#[derive(Debug, Clone)]
pub struct Legend {
    entries: Vec<LegendEntry>,
    scale: f64,
    font_size: f64,
    w: i32,
    h: i32,
}

impl Legend {
    /// Measures `entries` at `font_size` logical pixels (any area of the target backend).
    pub fn new<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        entries: Vec<LegendEntry>,
        scale: f64,
        font_size: f64,
    ) -> Result<Legend, DrawError> {
        let text = font(font_size, scale, false);
        let mut text_w = 0;
        for e in &entries {
            text_w = text_w.max(area.estimate_text_size(&e.label, &text)?.0 as i32);
        }
        let mut legend = Legend {
            entries,
            scale,
            font_size,
            w: 0,
            h: 0,
        };
        let [pad, glyph, gap, row] = legend.metrics();
        legend.w = pad + glyph + gap + text_w + pad;
        legend.h = 2 * pad + row * legend.entries.len() as i32 - legend.px(font_size * 0.3);
        Ok(legend)
    }

    fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    /// Padding, glyph width, glyph–text gap, row height (device pixels).
    fn metrics(&self) -> [i32; 4] {
        [
            self.px(8.0),
            self.px(26.0),
            self.px(8.0),
            self.px(self.font_size * 1.45),
        ]
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Size of the box in device pixels.
    pub fn size(&self) -> (i32, i32) {
        (self.w, self.h)
    }

    /// Candidate top-left corners in an area of `dim` pixels, in order of preference:
    /// upper right, upper left, lower right, lower left.
    pub fn corners(&self, (aw, ah): (u32, u32)) -> [(i32, i32); 4] {
        let (aw, ah) = (aw as i32, ah as i32);
        let inset = self.px(8.0);
        let (w, h) = (self.w, self.h);
        [
            (aw - inset - w, inset),
            (inset, inset),
            (aw - inset - w, ah - inset - h),
            (inset, ah - inset - h),
        ]
    }

    /// How many of `occupied` (pixels relative to the area) the box at `corner` hides.
    pub fn coverage(&self, corner: (i32, i32), occupied: &[(i32, i32)]) -> usize {
        let m = self.px(4.0);
        let (x0, y0) = corner;
        occupied
            .iter()
            .filter(|(x, y)| {
                *x >= x0 - m && *x <= x0 + self.w + m && *y >= y0 - m && *y <= y0 + self.h + m
            })
            .count()
    }

    /// The preferred corner hiding the fewest `occupied` points, and how many it hides.
    pub fn place(&self, dim: (u32, u32), occupied: &[(i32, i32)]) -> ((i32, i32), usize) {
        self.corners(dim)
            .into_iter()
            .enumerate()
            .map(|(i, c)| (self.coverage(c, occupied), i, c))
            .min()
            .map(|(n, _, c)| (c, n))
            .unwrap_or(((0, 0), 0))
    }

    /// Draws the framed legend with its top-left corner at `corner` of `area`.
    pub fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        corner: (i32, i32),
    ) -> Result<(), DrawError> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let [pad, glyph, gap, row] = self.metrics();
        let (x0, y0) = corner;
        let (x1, y1) = (x0 + self.w, y0 + self.h);
        let thin = self.px(1.0).max(1) as u32;
        area.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            WHITE.mix(0.9).filled(),
        ))?;
        area.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            RGBColor(0xbb, 0xbb, 0xbb).stroke_width(thin),
        ))?;
        let text = font(self.font_size, self.scale, false);
        for (i, e) in self.entries.iter().enumerate() {
            let cy = y0 + pad + row * i as i32 + self.px(self.font_size * 0.55);
            let gx = x0 + pad;
            if e.band {
                area.draw(&Rectangle::new(
                    [(gx, cy - self.px(6.0)), (gx + glyph, cy + self.px(6.0))],
                    e.color.mix(0.25).filled(),
                ))?;
            }
            let stroke = self.px(2.0).max(1) as u32;
            match e.marker {
                Some(m) => m.draw(
                    area,
                    (gx + glyph / 2, cy),
                    self.px(self.font_size * 0.4),
                    e.color,
                    stroke,
                )?,
                None => area.draw(&PathElement::new(
                    vec![(gx, cy), (gx + glyph, cy)],
                    e.color.stroke_width(stroke),
                ))?,
            }
            area.draw(&Text::new(
                e.label.clone(),
                (gx + glyph + gap, cy),
                text.pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        Ok(())
    }
}
