//! Journal payloads kept by content: a call's request or result whose JSON
//! is [`INLINE_MAX`] bytes or more is not written into its journal line
//! but split into content-defined chunks, each stored once per store under
//! its BLAKE3 digest; the line holds a [`PayloadRef`] to the root of the
//! chunk tree.
//!
//! **Why chunks.** Agent loops send prompts that extend the previous one
//! (the conversation so far). Whole payloads keyed by digest would store
//! every prompt again; content-defined chunking cuts a payload where its
//! bytes say (a rolling gear hash over the last 64 bytes), so a prompt that
//! extends the previous one shares every chunk but the last few, and only
//! what is new is stored: the journal grows with its distinct content, not
//! with the sum of the prompts.
//!
//! **The tree.** Leaves are the payload's chunks (at least [`MIN_CHUNK`],
//! about 5 KiB on average, at most [`MAX_CHUNK`] bytes). A *node* lists
//! children as `(digest, bytes under it)`; nodes are cut where a child's
//! digest says (about 16 children each, at most [`MAX_FANOUT`]), so the
//! nodes of two payloads with a common prefix are shared too, and a level
//! with one node is the root. The root is always a node, so a
//! [`PayloadRef`] is `{b3: <root digest>, len: <payload bytes>}`.
//!
//! ```text
//! node = b"HWN1" · level (u8: 1 = children are leaves) · n × (digest[32] · len u64 LE)
//! ```
//!
//! A chunk is read back by digest and checked against it, so damage is
//! `corrupt_store`, never a wrong payload. [`split`] returns chunks
//! children first: a store that keeps them in that order, and never
//! deletes one, holds a node's whole subtree whenever it holds the node
//! (what copying by reference relies on).

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

/// Payloads whose JSON is shorter stay inline in their journal line.
pub const INLINE_MAX: usize = 4 << 10;
/// The smallest leaf (but a payload's last one).
pub const MIN_CHUNK: usize = 1 << 10;
/// The largest leaf: small enough that a text with no content-defined
/// boundary for a long stretch (a repeated block, e.g. the same answer
/// appended turn after turn) re-stores at most this much of its tail per
/// turn.
pub const MAX_CHUNK: usize = 16 << 10;
/// A leaf ends where the gear hash has these bits zero (past
/// [`MIN_CHUNK`]): 12 bits, so about 4 KiB past the minimum. The top
/// bits, which depend on all of the last 64 bytes (the low ones only on
/// the last few).
const LEAF_MASK: u64 = ((1 << 12) - 1) << 52;
/// A node ends after a child whose digest's first byte has these bits
/// zero: about 16 children.
const NODE_MASK: u8 = 0x0f;
/// The most children of one node.
pub const MAX_FANOUT: usize = 256;
const NODE_MAGIC: &[u8; 4] = b"HWN1";
const ENTRY: usize = 40;

/// A chunk's content address: the BLAKE3 digest of its bytes, shown as 64
/// lower-case hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkId(pub [u8; 32]);

impl ChunkId {
    /// The id of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(*blake3::hash(bytes).as_bytes())
    }

    /// 64 lower-case hex digits.
    pub fn to_hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }

    /// Parse 64 lower-case hex digits.
    ///
    /// # Errors
    ///
    /// `invalid_name` for anything else.
    pub fn parse(s: &str) -> Result<Self> {
        let ok = s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let hash = ok.then(|| blake3::Hash::from_hex(s).ok()).flatten();
        hash.map(|h| Self(*h.as_bytes())).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidName,
                format!(
                    "chunk id {:?}: expected 64 lower-case hex digits",
                    crate::redact::clip(s, 80)
                ),
            )
        })
    }
}

impl std::fmt::Display for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl Serialize for ChunkId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for ChunkId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// One stored chunk: a leaf (payload bytes) or a node (see the module
/// docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// `ChunkId::of(bytes)`.
    pub id: ChunkId,
    /// The content.
    pub bytes: Vec<u8>,
}

/// What reads chunks back: given ids, their bytes in the same order (a
/// store's `get_chunks`).
pub type GetChunks<'a> = dyn FnMut(&[ChunkId]) -> Result<Vec<Vec<u8>>> + 'a;

/// Where a journal line's payload is: the root node of its chunk tree and
/// the payload's length in bytes (its JSON text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadRef {
    /// The root node's digest.
    pub b3: ChunkId,
    /// The payload's JSON text, in bytes.
    pub len: u64,
}

/// Gear table: 256 pseudo-random words (splitmix64 from a fixed seed, so
/// every build cuts the same bytes at the same places).
const GEAR: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut x: u64 = 0x6877_665f_6361_7331; // "hwf_cas1"
    let mut i = 0;
    while i < 256 {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        t[i] = z ^ (z >> 31);
        i += 1;
    }
    t
};

/// The leaf boundaries of `bytes` (end offsets, the last one `bytes.len()`).
fn leaf_ends(bytes: &[u8]) -> Vec<usize> {
    if bytes.is_empty() {
        return vec![0];
    }
    let mut ends = Vec::with_capacity(bytes.len() / (8 << 10) + 1);
    let mut start = 0;
    while start < bytes.len() {
        let rest = &bytes[start..];
        let mut end = rest.len().min(MAX_CHUNK);
        if rest.len() > MIN_CHUNK {
            let mut h: u64 = 0;
            // The hash only sees the last 64 bytes, so it is warmed up
            // over those before the minimum and boundaries resync after
            // an insertion.
            let warm = MIN_CHUNK - 64;
            for (i, &b) in rest.iter().enumerate().take(end).skip(warm) {
                h = (h << 1).wrapping_add(GEAR[b as usize]);
                if i + 1 >= MIN_CHUNK && h & LEAF_MASK == 0 {
                    end = i + 1;
                    break;
                }
            }
        }
        start += end;
        ends.push(start);
    }
    ends
}

fn node_bytes(level: u8, children: &[(ChunkId, u64)]) -> Vec<u8> {
    let mut b = Vec::with_capacity(5 + children.len() * ENTRY);
    b.extend_from_slice(NODE_MAGIC);
    b.push(level);
    for (id, len) in children {
        b.extend_from_slice(&id.0);
        b.extend_from_slice(&len.to_le_bytes());
    }
    b
}

/// A node's level and children.
///
/// # Errors
///
/// `corrupt_store` when `bytes` is not a node.
pub fn parse_node(bytes: &[u8]) -> Result<(u8, Vec<(ChunkId, u64)>)> {
    let bad = || Error::new(ErrorCode::CorruptStore, "a journal payload node is damaged");
    let body = bytes.strip_prefix(NODE_MAGIC.as_slice()).ok_or_else(bad)?;
    let (&level, entries) = body.split_first().ok_or_else(bad)?;
    if level == 0 || entries.is_empty() || entries.len() % ENTRY != 0 {
        return Err(bad());
    }
    let children = entries
        .chunks_exact(ENTRY)
        .map(|e| {
            let mut id = [0u8; 32];
            id.copy_from_slice(&e[..32]);
            let mut len = [0u8; 8];
            len.copy_from_slice(&e[32..]);
            (ChunkId(id), u64::from_le_bytes(len))
        })
        .collect();
    Ok((level, children))
}

/// Split `payload` into its chunk tree: the ref to keep in the line and
/// the chunks, children first, each once.
pub fn split(payload: &[u8]) -> (PayloadRef, Vec<Chunk>) {
    let mut chunks = Vec::new();
    let mut seen = HashSet::new();
    let mut keep = |bytes: Vec<u8>, chunks: &mut Vec<Chunk>| {
        let id = ChunkId::of(&bytes);
        if seen.insert(id) {
            chunks.push(Chunk { id, bytes });
        }
        id
    };
    let mut level: Vec<(ChunkId, u64)> = Vec::new();
    let mut start = 0;
    for end in leaf_ends(payload) {
        let id = keep(payload[start..end].to_vec(), &mut chunks);
        level.push((id, (end - start) as u64));
        start = end;
    }
    let mut depth: u8 = 1;
    loop {
        let mut up = Vec::new();
        let mut group: Vec<(ChunkId, u64)> = Vec::new();
        for child in &level {
            group.push(*child);
            // At least two children, so each level is at most half the
            // one below and the tree ends.
            if (group.len() >= 2 && child.0.0[0] & NODE_MASK == 0) || group.len() == MAX_FANOUT {
                let len = group.iter().map(|c| c.1).sum();
                up.push((keep(node_bytes(depth, &group), &mut chunks), len));
                group.clear();
            }
        }
        if !group.is_empty() || up.is_empty() {
            let len = group.iter().map(|c| c.1).sum();
            up.push((keep(node_bytes(depth, &group), &mut chunks), len));
        }
        if up.len() == 1 {
            let (b3, len) = up[0];
            return (PayloadRef { b3, len }, chunks);
        }
        level = up;
        depth = depth.saturating_add(1);
    }
}

/// Read a payload back: `get` answers a list of ids with their bytes in
/// order (one round trip per tree level); every chunk is checked against
/// its id and every length against the node's.
///
/// # Errors
///
/// `corrupt_store` for a chunk that does not match its id, a damaged node
/// or a wrong length; whatever `get` returns (`not_found` for a chunk the
/// store does not hold).
pub fn load(r: &PayloadRef, get: &mut GetChunks<'_>) -> Result<Vec<u8>> {
    let corrupt = |what: String| Error::new(ErrorCode::CorruptStore, format!("journal payload {}: {what}", r.b3));
    let mut level: Vec<(ChunkId, u64)> = vec![(r.b3, r.len)];
    let mut leaves = false;
    // The level the next nodes must have (any, for the root).
    let mut want: Option<u8> = None;
    loop {
        let ids: Vec<ChunkId> = level.iter().map(|c| c.0).collect();
        let got = get(&ids)?;
        if got.len() != ids.len() {
            return Err(corrupt(format!("asked {} chunks, got {}", ids.len(), got.len())));
        }
        for ((id, _), bytes) in level.iter().zip(&got) {
            if ChunkId::of(bytes) != *id {
                return Err(corrupt(format!("chunk {id} does not match its digest")));
            }
        }
        if leaves {
            let mut out = Vec::with_capacity(usize::try_from(r.len).unwrap_or(0));
            for ((id, len), bytes) in level.iter().zip(got) {
                if bytes.len() as u64 != *len {
                    return Err(corrupt(format!("chunk {id} has {} bytes, not {len}", bytes.len())));
                }
                out.extend_from_slice(&bytes);
            }
            return Ok(out);
        }
        let mut next = Vec::new();
        let mut this = want;
        for ((id, len), bytes) in level.iter().zip(got) {
            let (lvl, children) = parse_node(&bytes)?;
            if this.is_some_and(|w| w != lvl) || children.iter().map(|c| c.1).sum::<u64>() != *len {
                return Err(corrupt(format!("node {id} does not add up")));
            }
            this = Some(lvl);
            next.extend(children);
        }
        let lvl = this.unwrap_or(1);
        leaves = lvl == 1;
        want = Some(lvl - 1);
        level = next;
    }
}

/// A payload as written to a journal line: its JSON is either inline, or
/// kept as chunks with a ref (and, for a request, a small inline
/// *skeleton*: its top-level scalar fields, so a reader that only needs
/// `agent`, `name` or `label` needs no chunk).
#[derive(Debug)]
pub struct Externalized {
    /// What stays in the line (the skeleton, or nothing for a result).
    pub inline: Option<Value>,
    /// The ref to the chunks.
    pub payload: PayloadRef,
    /// The chunks, children first.
    pub chunks: Vec<Chunk>,
}

/// The longest string a skeleton keeps.
const SKELETON_STR: usize = 256;

/// Keep `value` by content when its JSON is [`INLINE_MAX`] bytes or more
/// (`None`: it stays inline). With `skeleton`, the line keeps the value's
/// small top-level fields.
///
/// # Errors
///
/// `internal` when the value cannot be serialised.
pub fn externalize(value: &Value, skeleton: bool) -> Result<Option<Externalized>> {
    if !might_be_large(value) {
        return Ok(None);
    }
    let text = serde_json::to_vec(value).map_err(|e| Error::new(ErrorCode::Internal, format!("payload: {e}")))?;
    if text.len() < INLINE_MAX {
        return Ok(None);
    }
    let (payload, chunks) = split(&text);
    let inline = skeleton.then(|| match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| match v {
                    Value::String(s) => s.len() <= SKELETON_STR,
                    Value::Array(_) | Value::Object(_) => false,
                    _ => true,
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => Value::Null,
    });
    Ok(Some(Externalized {
        inline,
        payload,
        chunks,
    }))
}

/// A cheap lower bound on the JSON's size: false when it is surely under
/// [`INLINE_MAX`] (so small payloads are not serialised twice).
fn might_be_large(value: &Value) -> bool {
    fn size(v: &Value, budget: usize) -> usize {
        match v {
            Value::String(s) => s.len() + 2,
            Value::Array(a) => a
                .iter()
                .fold(2, |n, x| if n >= budget { n } else { n + size(x, budget) + 1 }),
            Value::Object(m) => m.iter().fold(2, |n, (k, x)| {
                if n >= budget {
                    n
                } else {
                    n + k.len() + 4 + size(x, budget)
                }
            }),
            _ => 4,
        }
    }
    size(value, INLINE_MAX) >= INLINE_MAX
}

/// Read a kept payload back as JSON.
///
/// # Errors
///
/// As [`load`]; `corrupt_store` when the bytes are not JSON.
pub fn load_value(r: &PayloadRef, get: &mut GetChunks<'_>) -> Result<Value> {
    let bytes = load(r, get)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("journal payload {}: {e}", r.b3)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn store_of(chunks: &[Chunk]) -> HashMap<ChunkId, Vec<u8>> {
        chunks.iter().map(|c| (c.id, c.bytes.clone())).collect()
    }

    fn get(store: &HashMap<ChunkId, Vec<u8>>) -> impl FnMut(&[ChunkId]) -> Result<Vec<Vec<u8>>> + '_ {
        |ids| {
            ids.iter()
                .map(|id| {
                    store
                        .get(id)
                        .cloned()
                        .ok_or_else(|| Error::new(ErrorCode::NotFound, id.to_hex()))
                })
                .collect()
        }
    }

    /// Pseudo-random text (a xorshift), deterministic.
    fn text(n: usize, seed: u64) -> String {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let c = (x % 40) as u8;
                if c < 26 {
                    (b'a' + c) as char
                } else if c < 36 {
                    ' '
                } else {
                    '\n'
                }
            })
            .collect()
    }

    #[test]
    fn payloads_round_trip_at_every_size() {
        for n in [0, 1, 100, MIN_CHUNK, MIN_CHUNK + 1, 10_000, MAX_CHUNK * 3 + 7, 3 << 20] {
            let payload = text(n, n as u64 + 3).into_bytes();
            let (r, chunks) = split(&payload);
            assert_eq!(r.len, n as u64);
            let store = store_of(&chunks);
            assert_eq!(load(&r, &mut get(&store)).expect("load"), payload, "{n}");
            for c in &chunks {
                assert!(c.bytes.len() <= MAX_CHUNK.max(5 + MAX_FANOUT * ENTRY));
            }
        }
    }

    #[test]
    fn a_prompt_that_extends_the_previous_one_stores_little() {
        let mut prompt = text(200 << 10, 7);
        let (_, first) = split(prompt.as_bytes());
        let mut store = store_of(&first);
        let mut added = 0usize;
        for i in 0..100 {
            prompt.push_str(&text(2 << 10, 100 + i));
            let (r, chunks) = split(prompt.as_bytes());
            for c in chunks {
                if let std::collections::hash_map::Entry::Vacant(slot) = store.entry(c.id) {
                    added += c.bytes.len();
                    slot.insert(c.bytes);
                }
            }
            assert_eq!(load(&r, &mut get(&store)).expect("load"), prompt.as_bytes());
        }
        // 200 KiB of new text; the sum of the prompts is 40 MiB. Each
        // turn stores its new text, the leaf it lands in (length-biased:
        // ~2 × the mean leaf) and the nodes above: ~7 KB.
        assert!(added < 1 << 20, "added {added} bytes for 200 KiB of new text");
    }

    #[test]
    fn an_edit_in_the_middle_resyncs() {
        let base = text(500 << 10, 9);
        let (_, a) = split(base.as_bytes());
        let mut edited = base.clone();
        edited.insert_str(250 << 10, "an inserted sentence");
        let (_, b) = split(edited.as_bytes());
        let old: HashSet<ChunkId> = a.iter().map(|c| c.id).collect();
        let new: usize = b.iter().filter(|c| !old.contains(&c.id)).map(|c| c.bytes.len()).sum();
        assert!(new < 100 << 10, "{new}");
    }

    #[test]
    fn damage_is_corrupt_store_and_a_missing_chunk_not_found() {
        let payload = text(100 << 10, 5).into_bytes();
        let (r, chunks) = split(&payload);
        let mut store = store_of(&chunks);
        let leaf = chunks[0].id;
        store.insert(leaf, b"tampered".to_vec());
        let e = load(&r, &mut get(&store)).expect_err("damaged");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        store.remove(&leaf);
        let e = load(&r, &mut get(&store)).expect_err("missing");
        assert_eq!(e.code(), ErrorCode::NotFound, "{e}");
        assert!(parse_node(b"HWN1").is_err());
        assert!(parse_node(b"nope").is_err());
    }

    #[test]
    fn small_values_stay_inline_and_large_ones_keep_a_skeleton() {
        let small = serde_json::json!({"agent": "a", "prompt": "hi"});
        assert!(externalize(&small, true).expect("ok").is_none());
        let big = serde_json::json!({"agent": "a", "prompt": text(10_000, 1), "input": {"x": 1}, "n": 3});
        let e = externalize(&big, true).expect("ok").expect("kept by content");
        assert_eq!(e.inline, Some(serde_json::json!({"agent": "a", "n": 3})));
        let store = store_of(&e.chunks);
        assert_eq!(load_value(&e.payload, &mut get(&store)).expect("load"), big);
        // Many small strings add up too.
        let many = Value::Array((0..400).map(|i| Value::String(format!("message {i}"))).collect());
        assert!(externalize(&many, false).expect("ok").is_some());
    }

    #[test]
    fn chunk_ids_parse_only_lower_hex() {
        let id = ChunkId::of(b"x");
        assert_eq!(ChunkId::parse(&id.to_hex()).expect("parse"), id);
        for bad in ["", "../x", &id.to_hex().to_uppercase(), &"g".repeat(64)] {
            assert_eq!(ChunkId::parse(bad).expect_err(bad).code(), ErrorCode::InvalidName);
        }
        let r = PayloadRef { b3: id, len: 3 };
        let json = serde_json::to_string(&r).expect("json");
        assert_eq!(serde_json::from_str::<PayloadRef>(&json).expect("back"), r);
    }
}
