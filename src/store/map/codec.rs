//! A checkpoint tile on disk: magic, spec hash, index, the tile's arrays and an FNV-1a checksum,
//! so a torn or foreign tile file is recognised and recomputed.

use super::*;

const TILE_MAGIC: &[u8; 8] = b"PNDTILE1";

pub(super) fn encode_tile(t: &TileResult, spec_hash: &str) -> Vec<u8> {
    let np = t.class.len();
    let mut b = Vec::with_capacity(64 + np * 14);
    tile_bytes(t, spec_hash, &mut |part| b.extend_from_slice(part));
    let mut f = Fnv::new();
    f.bytes(&b);
    b.extend_from_slice(&f.0.to_le_bytes());
    b
}

/// The checksum of tile `t` of the map `spec_hash`: FNV-1a 64 of its encoding (the bytes of
/// [`encode_tile`] before their checksum: magic, spec hash, index, steps, every array), so a
/// tile changed in any value, moved to another index or taken from another map does not match.
/// A map file keeps it per tile (`tile_checksum`); a checkpoint tile file ends with it.
pub(super) fn tile_checksum(t: &TileResult, spec_hash: &str) -> u64 {
    let mut f = Fnv::new();
    tile_bytes(t, spec_hash, &mut |part| f.bytes(part));
    f.0
}

/// Feeds the encoding of `t` (without its checksum) to `out`, part by part.
fn tile_bytes(t: &TileResult, spec_hash: &str, out: &mut dyn FnMut(&[u8])) {
    out(TILE_MAGIC);
    out(&u64::from_str_radix(spec_hash, 16)
        .unwrap_or(0)
        .to_le_bytes());
    out(&(t.index as u64).to_le_bytes());
    out(&t.steps.to_le_bytes());
    out(&(t.class.len() as u64).to_le_bytes());
    let flags = u8::from(!t.flip_step.is_empty())
        | (u8::from(!t.value.is_empty()) << 1)
        | (u8::from(!t.aux.is_empty()) << 2);
    out(&[flags]);
    for k in &t.flip_step {
        out(&k.to_le_bytes());
    }
    out(&t.flip_link);
    out(&t.class);
    for v in t.value.iter().chain(&t.aux) {
        out(&v.to_le_bytes());
    }
}

/// `aux_width`: the [`crate::analysis::map::MapKind::aux_columns`] the spec implies (a tile is refused otherwise).
pub(super) fn decode_tile(b: &[u8], spec_hash: &str, aux_width: usize) -> Option<TileResult> {
    if b.len() < 49 || &b[..8] != TILE_MAGIC {
        return None;
    }
    let (body, sum) = b.split_at(b.len() - 8);
    let mut f = Fnv::new();
    f.bytes(body);
    if f.0.to_le_bytes() != sum {
        return None;
    }
    let u64_at = |o: usize| u64::from_le_bytes(body[o..o + 8].try_into().unwrap());
    if u64_at(8) != u64::from_str_radix(spec_hash, 16).unwrap_or(0) {
        return None;
    }
    let index = u64_at(16) as usize;
    let steps = u64_at(24);
    let np = u64_at(32) as usize;
    let flags = body[40];
    let (has_flip, has_value) = (flags & 1 != 0, flags & 2 != 0);
    let m = if flags & 4 != 0 { aux_width } else { 0 };
    let want = 41
        + np
        + if has_flip { np * 5 } else { 0 }
        + if has_value { np * 8 } else { 0 }
        + np * m * 8;
    if body.len() != want {
        return None;
    }
    let mut o = 41;
    let mut t = TileResult {
        index,
        flip_step: vec![],
        flip_link: vec![],
        class: vec![],
        value: vec![],
        aux: vec![],
        steps,
    };
    if has_flip {
        t.flip_step = body[o..o + 4 * np]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        o += 4 * np;
        t.flip_link = body[o..o + np].to_vec();
        o += np;
    }
    t.class = body[o..o + np].to_vec();
    o += np;
    let f64s = |o: usize, len: usize| -> Vec<f64> {
        body[o..o + 8 * len]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    if has_value {
        t.value = f64s(o, np);
        o += 8 * np;
    }
    t.aux = f64s(o, np * m);
    Some(t)
}
