//! Animation frames of a planar chain: the chain at t_k, fading traces of chosen link ends, a
//! time label and a side panel of per-link kinetic-energy bars with the total energy; written
//! as an animated GIF and/or a PNG frame sequence.
//!
//! Frames are rendered (and mapped to the GIF's one palette) in parallel, each from the trajectory alone, so the
//! output is byte-for-byte the same for a given spec whatever the thread count.

use super::{
    ensure_fonts, font, render_rgb, save, stamp_polyline, Area, DrawError, Drawn, PlotError, Render,
};
use super::{series_color, Surface};
use crate::analysis::animate::AnimationKinematics;
use crate::analysis::AnimateOptions;
use crate::observe::{Control, Observer};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rayon::prelude::*;
use std::fs;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Width of the energy side panel (logical pixels), for images at least 3× as wide.
const PANEL_W: f64 = 150.0;
/// Fade levels a trace is drawn with (consecutive segments of one level form one polyline).
const FADE_LEVELS: usize = 48;
/// Bob radius (logical pixels).
pub const BOB_RADIUS: f64 = 7.0;

/// Where the chain is drawn: world metres to logical pixels, pivot at (cx, cy), y up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub cx: f64,
    pub cy: f64,
    /// Logical pixels per metre.
    pub scale: f64,
}

impl Viewport {
    /// Fits a chain of total length `reach` (m) into the chain area of a `size` image.
    pub fn new(reach: f64, size: (u32, u32)) -> Viewport {
        let (w, h) = (f64::from(size.0), f64::from(size.1));
        let area_w = w - panel_width(size);
        let half = 0.5 * area_w.min(h);
        Viewport {
            cx: 0.5 * area_w,
            cy: 0.5 * h,
            scale: (half - BOB_RADIUS - 6.0).max(1.0) / reach.max(f64::MIN_POSITIVE),
        }
    }
    /// Logical pixel (x right, y down) of a world point.
    pub fn to_pixel(&self, p: [f64; 2]) -> (f64, f64) {
        (self.cx + self.scale * p[0], self.cy - self.scale * p[1])
    }
}

/// The side panel's width: none for images too narrow to hold it.
fn panel_width(size: (u32, u32)) -> f64 {
    if f64::from(size.0) >= 3.0 * PANEL_W {
        PANEL_W
    } else {
        0.0
    }
}

/// An animation ready to render: the trajectory's kinematics and the animation's options.
pub struct Animation<'a> {
    pub kin: &'a AnimationKinematics,
    pub opts: &'a AnimateOptions,
    pub viewport: Viewport,
    /// Largest total kinetic energy over the shown frames: the bars' full scale (J).
    ke_max: f64,
}

impl<'a> Animation<'a> {
    pub fn new(kin: &'a AnimationKinematics, opts: &'a AnimateOptions) -> Animation<'a> {
        let mut anim = Animation {
            kin,
            opts,
            viewport: Viewport::new(kin.reach, opts.size),
            ke_max: 0.0,
        };
        anim.ke_max = (0..anim.frames())
            .map(|k| anim.link_energies(k).iter().sum::<f64>())
            .fold(0.0, f64::max);
        anim
    }

    /// Frames this animation has (`duration × fps`, bounded by the samples integrated).
    pub fn frames(&self) -> usize {
        self.kin.frames()
    }

    /// Model time of frame k (s).
    pub fn time(&self, k: usize) -> f64 {
        self.kin.t[self.opts.frame_sample(k)]
    }

    /// Logical pixel positions of the joints at sample i (pivot first, where the drive has
    /// moved it).
    fn joints(&self, i: usize) -> Vec<(f64, f64)> {
        self.kin
            .joints_at(i)
            .iter()
            .map(|&p| self.viewport.to_pixel(p))
            .collect()
    }

    /// Logical pixel centres of the bobs (each link's lower end) in frame k.
    pub fn bob_pixels(&self, k: usize) -> Vec<(f64, f64)> {
        self.joints(self.opts.frame_sample(k))[1..].to_vec()
    }

    /// Per-link kinetic energies in frame k (J).
    pub fn link_energies(&self, k: usize) -> &[f64] {
        &self.kin.link_kinetic[k]
    }

    /// Frame k as a figure.
    pub fn frame(&self, k: usize) -> Frame<'_, 'a> {
        Frame { anim: self, k }
    }

    /// Frame k as an RGB buffer (3·w·h bytes), drawn exactly as in the files.
    pub fn render(&self, k: usize) -> Result<Vec<u8>, DrawError> {
        render_rgb(&self.frame(k), self.opts.size)
    }
}

/// One frame of an [`Animation`].
pub struct Frame<'f, 'a> {
    anim: &'f Animation<'a>,
    k: usize,
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// `c` blended towards `bg` by weight `alpha` (1: c, 0: bg).
pub fn blend(c: [u8; 3], bg: [u8; 3], alpha: f64) -> RGBColor {
    let mix = |a: u8, b: u8| (f64::from(b) + alpha * (f64::from(a) - f64::from(b))).round() as u8;
    RGBColor(mix(c[0], bg[0]), mix(c[1], bg[1]), mix(c[2], bg[2]))
}

impl Render for Frame<'_, '_> {
    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let a = self.anim;
        let o = a.opts;
        let st = &o.style;
        let s = surface.scale;
        let dev = |p: (f64, f64)| ((p.0 * s).round() as i32, (p.1 * s).round() as i32);
        root.fill(&rgb(st.background))?;
        let now = o.frame_sample(self.k);
        let t_now = a.kin.t[now];
        // Traces: oldest first, in fade levels, so the fresh end lies on top.
        let first = now.saturating_sub(o.trace_samples());
        if now > first {
            let paths: Vec<Vec<(i32, i32)>> = (first..=now)
                .map(|i| a.joints(i).into_iter().map(dev).collect())
                .collect();
            for (ti, &link) in o.traces.iter().enumerate() {
                let colour = st.traces[ti % st.traces.len()];
                let mut i = 0;
                while i + 1 < paths.len() {
                    // The level of segment (i, i+1), by the age of its newer end.
                    let level = |i: usize| {
                        let age = t_now - a.kin.t[first + i + 1];
                        (o.trace_alpha(age) * FADE_LEVELS as f64).ceil() as usize
                    };
                    let lv = level(i);
                    let mut j = i + 1;
                    while j + 1 < paths.len() && level(j) == lv {
                        j += 1;
                    }
                    if lv > 0 {
                        let pts: Vec<(i32, i32)> = (i..=j).map(|m| paths[m][link + 1]).collect();
                        let c = blend(colour, st.background, lv as f64 / FADE_LEVELS as f64);
                        stamp_polyline(root, pts, c, surface.stroke(2.0))?;
                    }
                    i = j;
                }
            }
        }
        // The chain: links, then joints and bobs on top.
        let joints: Vec<(i32, i32)> = a.joints(now).into_iter().map(dev).collect();
        for (j, &rod) in a.kin.rods.iter().enumerate() {
            let w = surface.stroke(if rod { 7.0 } else { 3.0 });
            stamp_polyline(root, vec![joints[j], joints[j + 1]], rgb(st.chain), w)?;
        }
        root.draw(&Circle::new(
            joints[0],
            surface.px(4.0),
            rgb(st.chain).filled(),
        ))?;
        for p in &joints[1..] {
            root.draw(&Circle::new(
                *p,
                surface.px(BOB_RADIUS),
                rgb(st.bob).filled(),
            ))?;
        }
        // Time label.
        let ink = rgb(st.chain);
        let text = font(16.0, s, false).color(&ink);
        root.draw(&Text::new(
            format!("t = {t_now:.2} s"),
            (surface.px(10.0), surface.px(10.0)),
            text.clone().pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        if o.speed != 1.0 {
            root.draw(&Text::new(
                format!("×{}", o.speed),
                (surface.px(10.0), surface.px(32.0)),
                text.clone().pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
        }
        self.draw_panel(root, surface)
    }
}

impl Frame<'_, '_> {
    /// The side panel: one bar per link (kinetic energy, full scale = the largest total
    /// kinetic energy of the animation) and the energies as text.
    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        surface: Surface,
    ) -> Result<(), DrawError> {
        let a = self.anim;
        let o = a.opts;
        let pw = panel_width(o.size);
        if pw == 0.0 {
            return Ok(());
        }
        let s = surface.scale;
        let (w, h) = (f64::from(o.size.0), f64::from(o.size.1));
        let x0 = w - pw;
        let px = |v: f64| (v * s).round() as i32;
        let ink = rgb(o.style.chain);
        root.draw(&PathElement::new(
            vec![(px(x0), 0), (px(x0), px(h))],
            RGBColor(0xcc, 0xcc, 0xcc).stroke_width(1),
        ))?;
        let text = font(14.0, s, false).color(&ink);
        let top = Pos::new(HPos::Left, VPos::Top);
        root.draw(&Text::new(
            "kinetic energy".to_string(),
            (px(x0 + 10.0), px(10.0)),
            text.clone().pos(top),
        ))?;
        let ke = a.link_energies(self.k);
        let n = ke.len();
        let (bx0, bx1) = (x0 + 12.0, w - 12.0);
        let (by0, by1) = (40.0, h - 110.0);
        let slot = (bx1 - bx0) / n as f64;
        let scale = if a.ke_max > 0.0 { 1.0 / a.ke_max } else { 0.0 };
        root.draw(&Rectangle::new(
            [(px(bx0), px(by0)), (px(bx1), px(by1))],
            RGBColor(0xdd, 0xdd, 0xdd).stroke_width(1),
        ))?;
        for (j, e) in ke.iter().enumerate() {
            let frac = (e * scale).clamp(0.0, 1.0);
            let xl = bx0 + slot * (j as f64 + 0.15);
            let xr = bx0 + slot * (j as f64 + 0.85);
            let yt = by1 - frac * (by1 - by0);
            root.draw(&Rectangle::new(
                [(px(xl), px(yt)), (px(xr), px(by1))],
                series_color(j).filled(),
            ))?;
            if n <= 10 {
                root.draw(&Text::new(
                    format!("{}", j + 1),
                    (px(0.5 * (xl + xr)), px(by1 + 4.0)),
                    text.clone().pos(Pos::new(HPos::Center, VPos::Top)),
                ))?;
            }
        }
        let t_kin: f64 = ke.iter().sum();
        let e = a.kin.energy[self.k];
        for (row, line) in [
            format!("T = {t_kin:.3} J"),
            format!("V = {:.3} J", e - t_kin),
            format!("E = {e:.3} J"),
        ]
        .into_iter()
        .enumerate()
        {
            root.draw(&Text::new(
                line,
                (px(x0 + 10.0), px(h - 80.0 + 22.0 * row as f64)),
                text.clone().pos(top),
            ))?;
        }
        Ok(())
    }
}

/// The GIF's one global palette: every colour a frame is drawn with, exactly, then blends of
/// them (the fades of the traces, the anti-aliased edges), at most 256 entries.
///
/// One palette for all frames, built from the style rather than quantized per frame: the bobs,
/// the chain and the background keep the same index, hence the same colour, in every frame
/// (per-frame palettes made the bobs' red shift from frame to frame), and the file carries one
/// palette instead of one per frame.
#[derive(Debug, Clone, PartialEq)]
pub struct GifPalette {
    colours: Vec<[u8; 3]>,
}

impl GifPalette {
    /// The palette of `anim`'s frames.
    pub fn of(anim: &Animation) -> GifPalette {
        let o = anim.opts;
        let st = &o.style;
        let bg = st.background;
        let traces: Vec<[u8; 3]> = (0..o.traces.len())
            .map(|i| st.traces[i % st.traces.len().max(1)])
            .collect();
        let bars: Vec<[u8; 3]> = if panel_width(o.size) > 0.0 {
            (0..anim.kin.link_kinetic.first().map_or(0, |k| k.len()).min(10))
                .map(|j| {
                    let c = series_color(j);
                    [c.0, c.1, c.2]
                })
                .collect()
        } else {
            Vec::new()
        };
        let greys = [[0xcc; 3], [0xdd; 3]];
        let mut keys = vec![bg, st.bob, st.chain];
        keys.extend(&traces);
        keys.extend(&bars);
        keys.extend(greys);
        let mut colours: Vec<[u8; 3]> = Vec::new();
        for k in keys {
            if !colours.contains(&k) {
                colours.push(k);
            }
        }
        // Ramps (from, to, weight): the traces fade into the background over many levels; the
        // rest need only a few for their anti-aliased edges.
        let mut ramps: Vec<([u8; 3], [u8; 3], f64)> = Vec::new();
        for &t in &traces {
            ramps.push((t, bg, 6.0));
            ramps.push((t, st.chain, 1.0));
        }
        ramps.push((st.chain, bg, 3.0));
        ramps.push((st.bob, bg, 3.0));
        ramps.push((st.bob, st.chain, 1.5));
        for &b in &bars {
            ramps.push((b, bg, 0.7));
        }
        for g in greys {
            ramps.push((g, bg, 0.4));
        }
        let budget = 256usize.saturating_sub(colours.len()) as f64;
        let total: f64 = ramps.iter().map(|r| r.2).sum();
        for (a, b, wgt) in ramps {
            if a == b {
                continue;
            }
            let levels = ((budget * wgt / total).floor() as usize).clamp(1, FADE_LEVELS);
            for l in 1..=levels {
                if colours.len() >= 256 {
                    break;
                }
                let c = blend(a, b, 1.0 - l as f64 / (levels + 1) as f64);
                let c = [c.0, c.1, c.2];
                if !colours.contains(&c) {
                    colours.push(c);
                }
            }
        }
        GifPalette { colours }
    }

    /// The palette's colours; index i is palette entry i.
    pub fn colours(&self) -> &[[u8; 3]] {
        &self.colours
    }

    /// The palette as the GIF encoder takes it (r, g, b, …).
    pub fn bytes(&self) -> Vec<u8> {
        self.colours.iter().flatten().copied().collect()
    }

    /// The index of the nearest palette colour of each pixel of an RGB buffer (an exact colour
    /// of the palette maps to its own, first, index).
    pub fn index(&self, rgb: &[u8]) -> Vec<u8> {
        let mut cache: std::collections::HashMap<[u8; 3], u8> = std::collections::HashMap::new();
        let nearest = |c: [u8; 3]| {
            let d = |p: &[u8; 3]| {
                (0..3)
                    .map(|i| {
                        let e = i32::from(p[i]) - i32::from(c[i]);
                        e * e
                    })
                    .sum::<i32>()
            };
            let mut best = (i32::MAX, 0usize);
            for (i, p) in self.colours.iter().enumerate() {
                let di = d(p);
                if di < best.0 {
                    best = (di, i);
                }
            }
            best.1 as u8
        };
        let mut last = None;
        rgb.chunks_exact(3)
            .map(|px| {
                let c = [px[0], px[1], px[2]];
                if let Some((lc, li)) = last {
                    if lc == c {
                        return li;
                    }
                }
                let i = *cache.entry(c).or_insert_with(|| nearest(c));
                last = Some((c, i));
                i
            })
            .collect()
    }
}

/// What writing an animation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct AnimationStats {
    pub frames: usize,
    /// Wall time spent rendering and encoding (s).
    pub seconds: f64,
    /// False when the observer stopped it early (nothing is kept under the requested names).
    pub complete: bool,
}

/// `DIR/frame-00042.png`.
pub fn frame_path(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("frame-{k:05}.png"))
}

/// Renders every frame to an animated GIF (`gif`, written as `GIF.partial` and renamed) and/or
/// a PNG sequence in `frames` (created if missing). GIF delays are whole centiseconds, so the
/// shown rate is 100 / round(100/fps) frames per second.
pub fn write_animation(
    anim: &Animation,
    gif_path: Option<&Path>,
    frames: Option<&Path>,
    observer: &mut dyn Observer,
) -> Result<AnimationStats, PlotError> {
    let start = std::time::Instant::now();
    let (w, h) = anim.opts.size;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| PlotError::Io { path, source: e }
    };
    let draw = |path: &Path| {
        let path = path.to_path_buf();
        move |e: DrawError| PlotError::Draw {
            path,
            message: e.to_string(),
        }
    };
    let label = gif_path.or(frames).unwrap_or(Path::new("animation"));
    ensure_fonts().map_err(draw(label))?;
    if let Some(dir) = frames {
        fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let partial = gif_path.map(|p| {
        let mut name = p.as_os_str().to_owned();
        name.push(".partial");
        PathBuf::from(name)
    });
    let palette = GifPalette::of(anim);
    let mut encoder = match &partial {
        Some(p) => {
            let file = BufWriter::new(fs::File::create(p).map_err(io(p))?);
            let mut e = gif::Encoder::new(file, w as u16, h as u16, &palette.bytes())
                .map_err(|e| gif_error(p, e))?;
            e.set_repeat(gif::Repeat::Infinite)
                .map_err(|e| gif_error(p, e))?;
            Some(e)
        }
        None => None,
    };
    let delay = (100.0 / anim.opts.fps).round().max(1.0) as u16;
    let total = anim.frames();
    observer.start(total as u64, "frames");
    let batch = 2 * rayon::current_num_threads().max(1);
    let mut stats = AnimationStats {
        frames: 0,
        seconds: 0.0,
        complete: true,
    };
    let result = (|| -> Result<(), PlotError> {
        let mut k0 = 0;
        while k0 < total {
            let k1 = (k0 + batch).min(total);
            let rendered: Vec<Result<Option<gif::Frame<'static>>, PlotError>> = (k0..k1)
                .into_par_iter()
                .map(|k| {
                    let rgb = anim.render(k).map_err(draw(label))?;
                    if let Some(dir) = frames {
                        save(&anim.frame(k), &frame_path(dir, k), anim.opts.size)?;
                    }
                    let frame = encoder.is_some().then(|| {
                        let indices = palette.index(&rgb);
                        let mut f =
                            gif::Frame::from_indexed_pixels(w as u16, h as u16, indices, None);
                        f.delay = delay;
                        f
                    });
                    Ok(frame)
                })
                .collect();
            for r in rendered {
                let frame = r?;
                if let (Some(e), Some(f), Some(p)) = (encoder.as_mut(), frame, partial.as_ref()) {
                    e.write_frame(&f).map_err(|e| gif_error(p, e))?;
                }
                stats.frames += 1;
            }
            k0 = k1;
            if observer.advance(stats.frames as u64) == Control::Stop {
                stats.complete = false;
                break;
            }
        }
        // The trailer, then the buffered bytes: errors here are write errors, not lost on drop.
        if let (Some(e), Some(p)) = (encoder.take(), partial.as_ref()) {
            use std::io::Write;
            let mut file = e.into_inner().map_err(io(p))?;
            file.flush().map_err(io(p))?;
        }
        Ok(())
    })();
    observer.finish();
    if let (Some(p), Some(final_path)) = (&partial, gif_path) {
        if result.is_ok() && stats.complete {
            fs::rename(p, final_path).map_err(io(final_path))?;
        } else {
            let _ = fs::remove_file(p);
        }
    }
    result?;
    stats.seconds = start.elapsed().as_secs_f64();
    Ok(stats)
}

fn gif_error(path: &Path, e: gif::EncodingError) -> PlotError {
    PlotError::Draw {
        path: path.to_path_buf(),
        message: format!("GIF encoding failed: {e}"),
    }
}
