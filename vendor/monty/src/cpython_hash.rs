//! hwf: CPython 3.11's `hash()` of the values whose hash is deterministic
//! (with `PYTHONHASHSEED=0`, as the seed's VM runs scripts), so a set
//! iterates in CPython's order (`types/set.rs`, [`SetLayout`](crate::types::set)).
//!
//! CPython orders a set by the slot each element lands in, which follows
//! from `hash()`: `int` (modulo the Mersenne prime 2^61 − 1), `float`
//! (`_Py_HashDouble`), `bool`, `str` and `bytes` (SipHash-1-3 with the
//! all-zero key `PYTHONHASHSEED=0` gives, over the string's internal
//! representation: Latin-1, UCS-2 or UCS-4) and `tuple` (its xxHash-style
//! combination), `frozenset` (hwf: `frozenset_hash`). Anything else (`None`,
//! whose 3.11 hash is its address; `NaN`; instances) has no reproducible CPython hash, and
//! [`cpython_hash`] returns `None`: the set then uses Monty's hash for it.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

use crate::{bytecode::VM, heap::HeapData, value::Value};

/// `_PyHASH_MODULUS`: the Mersenne prime 2^61 − 1.
const MODULUS: u64 = (1 << 61) - 1;
/// `_PyHASH_BITS`.
const BITS: i32 = 61;
/// `_PyHASH_INF`.
const HASH_INF: i64 = 314_159;

/// CPython's hash of `value` as an unsigned machine word, when it does not
/// depend on the process (see the module docs).
pub(crate) fn cpython_hash(value: &Value, vm: &VM<'_>) -> Option<u64> {
    cpython_hash_depth(value, vm, 0)
}

fn cpython_hash_depth(value: &Value, vm: &VM<'_>, depth: usize) -> Option<u64> {
    if depth > 64 {
        return None;
    }
    let h: i64 = match value {
        Value::Bool(b) => i64::from(*b),
        Value::Int(i) => hash_i64(*i),
        Value::Float(f) => hash_f64(*f)?,
        Value::InternString(id) => hash_str(vm.interns.get_str(*id)),
        Value::InternBytes(id) => hash_bytes(vm.interns.get_bytes(*id)),
        Value::InternLongInt(id) => hash_bigint(vm.interns.get_long_int(*id)),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Str(s) => hash_str(s.as_str()),
            HeapData::Bytes(b) => hash_bytes(b.as_slice()),
            HeapData::LongInt(li) => hash_bigint(li.inner()),
            HeapData::Tuple(t) => {
                let mut lanes = Vec::with_capacity(t.as_slice().len());
                for item in t.as_slice() {
                    lanes.push(cpython_hash_depth(item, vm, depth + 1)?);
                }
                hash_tuple(&lanes)
            }
            // hwf: `frozenset_hash`, over its elements' hashes.
            HeapData::FrozenSet(set) => {
                let mut hashes = Vec::with_capacity(set.len());
                for item in set.storage().iter() {
                    hashes.push(cpython_hash_depth(item, vm, depth + 1)?);
                }
                return Some(hash_frozenset(&hashes));
            }
            // hwf: `complex_hash`: `hash(re) + 1000003 * hash(im)`, wrapping.
            HeapData::Complex(c) => fix(hash_f64(c.re)?.wrapping_add(hash_f64(c.im)?.wrapping_mul(1_000_003))),
            _ => return None,
        },
        _ => return None,
    };
    Some(h.cast_unsigned())
}

/// `frozenset_hash` (CPython 3.11, `setobject.c`): the shuffled bits of
/// every element's hash xored (the table's empty and dummy slots cancel
/// out), the size folded in, then dispersed. Independent of order.
fn hash_frozenset(hashes: &[u64]) -> u64 {
    let shuffle = |h: u64| ((h ^ 89_869_747) ^ (h << 16)).wrapping_mul(3_644_798_167);
    let mut hash = hashes.iter().fold(0u64, |acc, &h| acc ^ shuffle(h));
    let size = u64::try_from(hashes.len()).unwrap_or(u64::MAX);
    hash ^= size.wrapping_add(1).wrapping_mul(1_927_868_237);
    hash ^= (hash >> 11) ^ (hash >> 25);
    hash = hash.wrapping_mul(69_069).wrapping_add(907_133_923);
    if hash == u64::MAX { 590_923_713 } else { hash }
}

/// `-1` is reserved for errors in CPython: a hash of `-1` becomes `-2`.
fn fix(h: i64) -> i64 {
    if h == -1 { -2 } else { h }
}

/// `long_hash` for a machine integer.
fn hash_i64(i: i64) -> i64 {
    let m = i.unsigned_abs() % MODULUS;
    #[expect(clippy::cast_possible_wrap, reason = "m < 2^61")]
    let m = m as i64;
    fix(if i < 0 { -m } else { m })
}

/// `long_hash` for an arbitrary-precision integer.
fn hash_bigint(b: &BigInt) -> i64 {
    let m = (b.abs() % BigInt::from(MODULUS)).to_i64().unwrap_or(0);
    fix(if b.is_negative() { -m } else { m })
}

/// `_Py_HashDouble`; `None` for `NaN` (3.11 hashes it by identity).
fn hash_f64(v: f64) -> Option<i64> {
    if v.is_nan() {
        return None;
    }
    if v.is_infinite() {
        return Some(if v > 0.0 { HASH_INF } else { -HASH_INF });
    }
    let (mut m, mut e) = frexp(v);
    let mut sign = 1i64;
    if m < 0.0 {
        sign = -1;
        m = -m;
    }
    // Process 28 bits at a time, as CPython does.
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | (x >> (BITS - 28));
        m *= 268_435_456.0; // 2**28
        e -= 28;
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "0 <= m < 2**28")]
        let y = m as u64;
        #[expect(clippy::cast_precision_loss, reason = "y < 2**28")]
        {
            m -= y as f64;
        }
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    // Adjust for the exponent; first reduce it modulo BITS.
    let e = if e >= 0 { e % BITS } else { BITS - 1 - ((-1 - e) % BITS) };
    #[expect(clippy::cast_sign_loss, reason = "0 <= e < 61")]
    let e = e as u32;
    x = ((x << e) & MODULUS) | (x >> (61 - e));
    #[expect(clippy::cast_possible_wrap, reason = "x < 2^61")]
    let x = x as i64 * sign;
    Some(fix(x))
}

/// `math.frexp`: `v == m * 2**e` with `0.5 <= |m| < 1` (`m == 0` for zero).
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 {
        return (v, 0);
    }
    let bits = v.to_bits();
    #[expect(clippy::cast_possible_truncation, reason = "an 11-bit field")]
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(v * f64::from_bits(0x4350_0000_0000_0000)); // 2**54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// `unicode_hash`: SipHash-1-3 over the string's internal representation
/// (one, two or four bytes per code point, by its widest one).
fn hash_str(s: &str) -> i64 {
    if s.is_empty() {
        return 0;
    }
    let widest = s.chars().map(u32::from).max().unwrap_or(0);
    let data: Vec<u8> = if widest < 0x100 {
        #[expect(clippy::cast_possible_truncation, reason = "checked < 0x100")]
        s.chars().map(|c| u32::from(c) as u8).collect()
    } else if widest < 0x1_0000 {
        #[expect(clippy::cast_possible_truncation, reason = "checked < 0x10000")]
        s.chars().flat_map(|c| (u32::from(c) as u16).to_le_bytes()).collect()
    } else {
        s.chars().flat_map(|c| u32::from(c).to_le_bytes()).collect()
    };
    hash_bytes(&data)
}

/// `_Py_HashBytes` with the all-zero key.
fn hash_bytes(data: &[u8]) -> i64 {
    if data.is_empty() {
        return 0;
    }
    fix(siphash13(data).cast_signed())
}

/// CPython's `siphash13` with `k0 = k1 = 0`.
fn siphash13(data: &[u8]) -> u64 {
    #[inline]
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[2] = v[2].wrapping_add(v[3]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[1]);
        v[0] = v[0].wrapping_add(v[3]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].rotate_left(32);
    }
    let mut v = [
        0x736f_6d65_7073_6575_u64,
        0x646f_7261_6e64_6f6d,
        0x6c79_6765_6e65_7261,
        0x7465_6462_7974_6573,
    ];
    let mut b = (data.len() as u64) << 56;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mi = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        v[3] ^= mi;
        round(&mut v);
        v[0] ^= mi;
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    b |= u64::from_le_bytes(tail);
    v[3] ^= b;
    round(&mut v);
    v[0] ^= b;
    v[2] ^= 0xff;
    round(&mut v);
    round(&mut v);
    round(&mut v);
    (v[0] ^ v[1]) ^ (v[2] ^ v[3])
}

/// `tuplehash` (the xxHash-based combination of CPython 3.8+).
fn hash_tuple(lanes: &[u64]) -> i64 {
    const PRIME_1: u64 = 11_400_714_785_074_694_791;
    const PRIME_2: u64 = 14_029_467_366_897_019_727;
    const PRIME_5: u64 = 2_870_177_450_012_600_261;
    let mut acc = PRIME_5;
    for &lane in lanes {
        acc = acc.wrapping_add(lane.wrapping_mul(PRIME_2));
        acc = acc.rotate_left(31);
        acc = acc.wrapping_mul(PRIME_1);
    }
    acc = acc.wrapping_add((lanes.len() as u64) ^ (PRIME_5 ^ 3_527_539));
    if acc == u64::MAX {
        return 1_546_275_796;
    }
    acc.cast_signed()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values printed by CPython 3.11 with PYTHONHASHSEED=0.
    #[test]
    fn matches_cpython() {
        assert_eq!(hash_i64(-1), -2);
        assert_eq!(hash_i64(1 << 62), 2);
        assert_eq!(hash_f64(1.5), Some(1_152_921_504_606_846_977));
        assert_eq!(hash_f64(0.1), Some(230_584_300_921_369_408));
        assert_eq!(hash_f64(2.0), Some(2));
        assert_eq!(hash_tuple(&[]), 5_740_354_900_026_072_187);
        assert_eq!(hash_str("a"), 4_644_417_185_603_328_019);
        assert_eq!(hash_str("héllo"), 6_395_329_678_795_984_700);
        assert_eq!(hash_str("日本"), 6_243_316_497_235_261_705);
        assert_eq!(hash_bytes(b"xyz"), 9_013_747_392_277_146_282_u64.cast_signed());
        assert_eq!(
            hash_tuple(&[hash_str("a").cast_unsigned(), 1]),
            6_955_645_834_154_447_545
        );
        assert_eq!(hash_bigint(&-(BigInt::from(1_i64) << 70_u32)), -512);
        assert_eq!(hash_f64(1e300), Some(1_224_995_262_755_759_164));
        assert_eq!(hash_f64(5e-324), Some(16_777_216));
    }

    /// Each snippet's `repr` as CPython 3.11 prints it with `PYTHONHASHSEED=0`
    /// (generated by running them there).
    const SET_ORDER_CASES: &[(&str, &str)] = &[
        ("list({3, 1, 2})", "[1, 2, 3]"),
        ("list(set([5, 3, 9, 3]))", "[9, 3, 5]"),
        ("list({'b', 'a', 'c'})", "['c', 'a', 'b']"),
        ("str({'x', 'y', 'z', 'w'})", "\"{'y', 'x', 'w', 'z'}\""),
        ("list(set('mississippi'))", "['p', 'm', 's', 'i']"),
        ("list({(1, 2), (0, 'a'), ('b', 3.5)})", "[(0, 'a'), (1, 2), ('b', 3.5)]"),
        ("list({1.5, 2.25, -0.5, 1e300})", "[-0.5, 1.5, 2.25, 1e+300]"),
        (
            "list({-1, -2, 2**61, 2**70, -(2**64)})",
            "[1180591620717411303424, 2305843009213693952, -2, -18446744073709551616, -1]",
        ),
        ("list({'é', '日本', 'a😀', ''})", "['', '日本', 'é', 'a😀']"),
        (
            "list({x * 7 % 31 for x in range(40)})",
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]",
        ),
        (
            "list(set(range(100, 0, -3)))",
            "[1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58, 61, 64, 67, 70, 73, 76, 79, 82, 85, 88, 91, 94, 97, 100]",
        ),
        (
            "(lambda a, b: [list(a | b), list(a & b), list(a - b), list(b - a), list(a ^ b)])(set('abcdefgh'), set('efghijkl'))",
            "[['d', 'f', 'g', 'h', 'k', 'b', 'i', 'c', 'a', 'j', 'e', 'l'], ['g', 'h', 'f', 'e'], ['d', 'c', 'a', 'b'], ['j', 'l', 'k', 'i'], ['d', 'k', 'b', 'i', 'c', 'a', 'j', 'l']]",
        ),
        (
            "(lambda a, b: [list(a | b), list(a & b), list(a - b), list(a ^ b)])(set(range(0, 60, 2)), {3, 6, 9})",
            "[[0, 2, 3, 4, 6, 8, 9, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58], [6], [0, 2, 4, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58], [0, 2, 3, 4, 8, 9, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58]]",
        ),
        (
            "(lambda s: [s.pop(), s.pop(), list(s)])({'k1', 'k2', 'k3', 'k4', 'k5', 'k6'})",
            "['k1', 'k6', ['k2', 'k5', 'k4', 'k3']]",
        ),
        (
            "(lambda s: (s.discard('a'), s.add('zz'), s.add('a'), list(s))[-1])(set('abcdef'))",
            "['d', 'zz', 'f', 'b', 'c', 'a', 'e']",
        ),
        (
            "(lambda s: (s.update({'p', 'q'}), s.update(['r', 's', 't', 'u']), list(s))[-1])(set())",
            "['q', 'u', 's', 'r', 't', 'p']",
        ),
        (
            "(lambda s: (s.update({'p', 'q', 'r', 's', 't'}), list(s))[-1])({'a'})",
            "['q', 'a', 's', 'r', 'p', 't']",
        ),
        (
            "list(set({'a', 'b', 'c', 'd', 'e', 'f'}).copy())",
            "['d', 'c', 'f', 'a', 'e', 'b']",
        ),
        (
            "list(frozenset('hello world'))",
            "[' ', 'd', 'r', 'h', 'o', 'e', 'w', 'l']",
        ),
        (
            "sorted({3, 1}) + list({10, 2, 33, 4, 500})",
            "[1, 3, 33, 2, 4, 500, 10]",
        ),
        (
            "[x for x in {'red', 'green', 'blue', 'cyan'}]",
            "['red', 'green', 'blue', 'cyan']",
        ),
        (
            "', '.join({'alpha', 'beta', 'gamma', 'delta'})",
            "'alpha, delta, beta, gamma'",
        ),
        ("list({True, 2, 0, 'x', (1,)})", "[0, True, 2, 'x', (1,)]"),
        (
            "list(set(['w99', 211, 'w65', 294, 208, 26, 'w50', 295, 299, 10, 103, 'w41', 282, 130, 'w58', 188, 110, 242, 15, 'w13', 177, -20, 'w60', 183, 269, 118, 139, 189]))",
            "[130, 10, 139, 269, 'w50', 15, 'w60', 282, 26, 'w65', 'w99', 294, 295, 299, 177, 183, 188, 189, 'w58', 208, 211, 'w13', 'w41', 103, -20, 110, 242, 118]",
        ),
        (
            "list(set([106, 'w7', 229, 209, 'w53', 'w50', 'w0', 283]))",
            "[229, 106, 'w50', 209, 'w0', 'w53', 283, 'w7']",
        ),
        (
            "list(set([75, 1, 206, 'w42', 177, 26, 'w76', 'w79', 'w75', 'w17', 73, 139, 77]))",
            "[1, 'w79', 'w17', 73, 75, 139, 77, 'w42', 206, 177, 26, 'w75', 'w76']",
        ),
        (
            "list(set([227, 195, 'w4', 'w94', 'w53', 130, 15, 225, 123, 'w8', 190, 10, 124, 27, 210, 282, 'w45', -3, 'w8', 143, 'w57', 2, 154, 'w9']))",
            "['w4', 130, 2, 10, 15, 143, 'w53', 282, 27, 154, 'w57', 'w94', 190, 195, 210, 225, 'w8', 227, 'w9', 'w45', 123, 124, -3]",
        ),
        ("list(set([235]))", "[235]"),
        (
            "list(set([175, 291, 26, 'w53', 'w94', 205, 245, 138, 226, 'w63', 'w1', 134, 'w21', 206, 'w51', 'w81', 'w27', 'w74', 87, 234, 12, 'w57', 'w27', 'w80', 'w91', 144, 122, 'w73', 138, 'w51', 'w3', 101, 4, 'w13', 19, 'w60', 71, 221, 'w28']))",
            "['w1', 'w81', 4, 134, 'w74', 138, 12, 'w3', 144, 'w27', 19, 'w60', 'w53', 26, 291, 'w57', 175, 'w94', 'w21', 71, 205, 206, 'w91', 'w13', 87, 'w80', 221, 'w73', 226, 101, 234, 'w63', 245, 122, 'w28', 'w51']",
        ),
        (
            "list(set([256, 181, 'w52', 'w57', 80, 'w70', 217, 30, 'w31', 'w39', 114, 158, 'w56', 'w53', 229, 12, 'w68', 51, 'w92', 232, 'w56', 267]))",
            "[256, 'w56', 'w31', 12, 267, 'w68', 'w53', 158, 30, 'w57', 51, 181, 'w70', 'w39', 80, 217, 229, 232, 'w92', 114, 'w52']",
        ),
        (
            "list(set(['w71', 'w85', 'w26', 'w69', 273, 190, 'w0', -6, 244, 231, 'w68', 'w51', 'w60', 'w43', 'w67', 'w24', 'w3', 46, -2, 'w1', 'w92', 'w79', 33, 'w79', 'w89', 'w48', 251, 255, 251, 'w94', 'w40', 79, 29]))",
            "['w79', 'w1', 'w48', 'w68', 'w43', 'w24', 273, 'w3', 'w60', 29, 33, 'w85', 46, 'w89', 'w26', 'w94', 'w40', 'w71', 190, 79, 'w0', 'w69', 231, 'w92', 244, -2, 'w67', -6, 251, 'w51', 255]",
        ),
        (
            "list(set(['w33', 'w55', 258, 82, 'w25', 'w14', 237, 16]))",
            "[258, 237, 16, 82, 'w14', 'w55', 'w25', 'w33']",
        ),
        ("list(set(['w97']))", "['w97']"),
        (
            "list(set([77, 84, 124, 276, 216, 'w50', 'w65', 'w26', -14]))",
            "['w65', 77, 'w50', -14, 276, 84, 'w26', 216, 124]",
        ),
        (
            "list(set(['w52', 'w94', 187, 28, 'w10', 271, 'w74', 112, 61, 'w68', 201, 187]))",
            "['w74', 'w10', 201, 'w68', 271, 112, 'w94', 'w52', 187, 28, 61]",
        ),
        ("list(set(['w38', 'w1', 299, 'w85']))", "[299, 'w1', 'w38', 'w85']"),
        (
            "list(set(['w84', 271, 'w65', 89, 182, 38, 'w32', 185, 'w82', 'w12', 'w35', 'w69', 246, 207, 261, 'w20', 'w21', 257, 'w63', 'w67', 'w39']))",
            "[257, 261, 271, 'w65', 'w84', 38, 182, 185, 'w20', 'w21', 'w39', 207, 'w32', 89, 'w69', 'w82', 'w63', 'w12', 246, 'w67', 'w35']",
        ),
        (
            "list(set(['w61', 'w36', -7, 279, 'w96', 'w40', 'w74', 'w28', 224, 3, 219, 289, 'w79', 213, 6, 'w46', 'w85', 'w76', 'w87', 166, 128, 102, 'w39', 120, 122, 77, 0, 'w34', 197, 'w28', 17, 62, 'w61']))",
            "[128, 0, 'w79', 3, 6, 'w74', 17, 279, 'w61', 289, 'w85', 166, 'w46', 'w96', 'w40', 62, 'w36', 197, 'w34', 'w39', 77, 213, 219, 'w87', 224, 102, 122, 120, -7, 'w76', 'w28']",
        ),
        (
            "list(set(['w43', 233, 'w15', 299, 'w54', 'w19', 'w83', 128, 'w83', 'w12', 145, 'w72', 217, 18, 'w10', 'w92', 124, 'w84', 'w15', 'w72', 'w67', 214]))",
            "[128, 'w43', 145, 18, 'w84', 'w10', 299, 'w83', 'w15', 'w54', 214, 217, 'w72', 233, 'w92', 'w12', 'w19', 'w67', 124]",
        ),
        (
            "list(set([244, 165, 'w86', 279, 'w47', 256, 'w11', 124, 244, 270, 'w8', 'w10', 21, 140, 'w12', 105, 'w97', 'w50', 152, 232, 'w5', 'w0', 25, 248, 'w53']))",
            "[256, 'w11', 140, 270, 'w97', 'w50', 21, 279, 152, 25, 'w53', 165, 'w86', 'w0', 'w8', 232, 105, 'w47', 'w12', 244, 'w5', 248, 'w10', 124]",
        ),
        (
            "list(set([105, 172, 'w26', 'w67', 'w7', 137, 135, 'w7', 'w74']))",
            "[135, 'w74', 105, 137, 172, 'w26', 'w67', 'w7']",
        ),
        ("list(set([140, 74]))", "[74, 140]"),
        (
            "list(set(['w76', 284, 'w23', 'w22', 'w70', 'w62', 155, 'w28', 5, 'w67', 9, 'w60', 'w31', 'w20', 'w98', 54, 297, 57, -20, 'w10', 118, 'w88', 'w95', 'w24', 78, 205, 'w52', 'w39', 139, 'w39', 14, 'w13', 216, 'w1', 'w30', 'w14', -15]))",
            "['w1', 5, 9, 'w31', 139, 'w95', 14, 'w24', 'w60', 'w98', 155, 284, 'w23', 297, 'w10', 'w70', 54, 'w30', 57, 'w20', 'w88', 'w39', 205, 78, 'w13', 'w14', 'w52', 216, 'w62', -20, 'w22', -15, 118, 'w67', 'w76', 'w28']",
        ),
        (
            "list(set(['w37', 'w95', 'w96', 264, 111, 172, 'w39', 'w60', 208, 32, 47, 'w24', -2, 31, 'w15', 188, 154, 85, 'w61', 191, 'w78', 105, 113, 'w39', 'w71', 'w65', 130, 'w98', 'w29', 293, 273, 244, 270, 22, 'w73', 150, 'w34', 43, 102]))",
            "['w78', 130, 264, 'w95', 270, 'w24', 273, 'w60', 22, 150, 154, 'w98', 31, 32, 'w61', 'w65', 'w29', 293, 43, 172, 47, 'w96', 'w71', 188, 191, 'w34', 'w37', 'w39', 'w15', 208, 85, 'w73', 102, 105, 111, 113, 244, -2]",
        ),
        (
            "list(set(['w21', 287, 'w36', 'w97', 64, 'w4', 72, 'w96', 294, 'w25', 219, 250, 271, 152, 'w31', 7, 'w51', 'w13', 'w52', 'w62', 189, 'w14', 'w66', 'w3', 'w37', 'w76', 136, 'w15', 'w64', 6, 'w30', 182, 'w69', 268, 195]))",
            "['w4', 6, 7, 136, 'w31', 'w64', 268, 'w97', 271, 'w3', 152, 287, 294, 'w96', 'w30', 182, 'w25', 189, 64, 'w36', 195, 'w21', 'w37', 72, 'w15', 'w13', 'w14', 219, 'w69', 'w76', 'w66', 'w62', 'w52', 250, 'w51']",
        ),
        ("list(set([30, 'w68', -20, 'w3']))", "['w68', -20, 30, 'w3']"),
        (
            "list(set(['w56', 251, 162, 3, 'w40', 146, 221, 131, 'w40', 221, 266]))",
            "['w56', 162, 3, 131, 266, 146, 'w40', 251, 221]",
        ),
        (
            "list(set([5, 'w92', 120, 'w89', 192, 94, 80, 'w64', 119, 282, 134, 121]))",
            "[192, 5, 134, 'w92', 'w64', 'w89', 80, 119, 120, 121, 282, 94]",
        ),
        (
            "list(set([19, 251, 'w75', 'w32', 271, 125, 'w22', 260, 'w4', 279, 235, 'w71', 'w84', 'w66', 238, 284, 'w77', 'w85', 'w98', 'w33', 'w28', 113, 285, 273, 146, 'w63', 'w56', -5, 71]))",
            "['w56', 'w4', 260, 271, 273, 146, 19, 279, 'w98', 284, 'w75', 285, 'w84', 'w85', 'w71', 71, 'w32', 'w33', 'w66', -5, 235, 'w22', 238, 'w77', 113, 'w63', 251, 'w28', 125]",
        ),
        (
            "list(set(['w6', 'w5', 'w94', 281, 'w21', 110, 'w88', 'w40', 219, 'w16', 287, 213, 'w30', 249, 'w71', 221, -3, 131, 'w30', 216, 'w39', 292, 62, 155, 216, 175, 'w53', 106, 'w26', 'w76', 'w60', 230, 'w26', 194, 'w46', 297, 'w65', 270, 'w13']))",
            "[131, 'w16', 270, 'w6', 'w53', 'w60', 281, 155, 287, 'w65', 292, 297, 175, 'w46', 'w26', 'w94', 'w40', 'w71', 'w30', 'w88', 62, 194, 'w21', 'w39', 'w13', 213, 216, 219, 221, 230, 106, 110, 'w5', 249, 'w76', -3]",
        ),
        ("list(set(['w93', 50, 'w2']))", "['w2', 50, 'w93']"),
        (
            "list(set(['w10', 146, 134, 230, 57, 'w26', 'w54', 258, 'w90', 'w92', 173, 'w68', 'w17', 244, 'w37', 156, 51, 227, 132, 'w71', 'w99', 'w80', 26, 180]))",
            "[258, 'w90', 132, 134, 'w68', 146, 26, 156, 'w99', 173, 51, 180, 'w26', 'w71', 57, 'w17', 'w37', 'w54', 'w80', 227, 230, 'w92', 244, 'w10']",
        ),
        (
            "list(set(['w42', 'w90', 'w20', 83, 159, 'w11', 'w19', 'w32', -9, 'w8', 'w6', 'w74', 'w92', 109, 'w44', 'w72', 114, 'w49', 165, 18, 'w69', 293, 'w8', 'w48', 'w17', 'w63', 222, 'w24', 96, 100, 258]))",
            "['w90', 258, 'w74', 'w11', 'w48', 'w24', 18, 'w6', 159, 165, 293, 'w20', 'w17', 'w32', 83, 'w49', 'w72', 'w69', 222, 96, 'w8', 100, 'w44', 'w92', 109, 'w42', 'w63', 'w19', 114, -9]",
        ),
    ];

    #[test]
    fn sets_iterate_in_cpythons_order() {
        let mut differ = Vec::new();
        for (code, expected) in SET_ORDER_CASES {
            let run = crate::MontyRun::new(
                format!("repr({code})"),
                "t.py",
                vec![],
                monty_types::CompileOptions::default(),
            )
            .expect("compiles");
            let got = match run.run_no_limits(vec![]) {
                Ok(monty_types::MontyObject::String(s)) => s,
                other => format!("{other:?}"),
            };
            if got != *expected {
                differ.push(format!("{code}\n  monty:   {got}\n  cpython: {expected}"));
            }
        }
        assert!(differ.is_empty(), "{} differ:\n{}", differ.len(), differ.join("\n"));
    }
}
