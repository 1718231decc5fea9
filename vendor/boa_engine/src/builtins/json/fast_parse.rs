//! hwf patch: a direct `JSON.parse` for the common case.
//!
//! Boa parses JSON text by validating it with `serde_json`, then parsing it
//! again as a JavaScript expression, compiling that to bytecode and running
//! it: ~10x the work of reading it once. This reads the text once, straight
//! into values, and is used only when there is no reviver and the text is
//! already a string. It is deliberately conservative: on anything but
//! plain, valid JSON (a syntax error, a `\u` escape of a surrogate, a lone
//! surrogate in the text, a number beyond f64's range, a `__proto__` key,
//! nesting deeper than [`MAX_DEPTH`]) it gives up and the original path runs,
//! so every error, and every edge case, is exactly what it was.

use crate::{
    Context, JsString, JsValue,
    builtins::Array,
    object::JsObject,
    property::{PropertyDescriptor, PropertyKey},
};
use boa_string::JsStr;
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// Deeper nesting goes to the original path (whose validator refuses more
/// than 128 levels).
const MAX_DEPTH: u32 = 100;

/// A code unit of the text: Latin1 bytes or UTF-16.
trait Unit: Copy + Eq + Hash + Into<u32> {
    fn js_string(s: &[Self]) -> JsString;
}

impl Unit for u8 {
    fn js_string(s: &[Self]) -> JsString {
        JsString::from(JsStr::latin1(s))
    }
}

impl Unit for u16 {
    fn js_string(s: &[Self]) -> JsString {
        JsString::from(s)
    }
}

/// `JSON.parse(text)` for a string `text` without a reviver; `None` when the
/// original path must decide (see the module docs).
pub(super) fn parse(text: &JsString, context: &mut Context) -> Option<JsValue> {
    match text.as_str().variant() {
        boa_string::JsStrVariant::Latin1(s) => Parser::new(s).parse_text(context),
        boa_string::JsStrVariant::Utf16(s) => Parser::new(s).parse_text(context),
    }
}

struct Parser<'a, T: Unit> {
    s: &'a [T],
    i: usize,
    /// Object keys seen in this text (agents' results repeat them).
    keys: FxHashMap<&'a [T], PropertyKey>,
    /// Scratch for strings with escapes.
    buf: Vec<u16>,
}

impl<'a, T: Unit> Parser<'a, T> {
    fn new(s: &'a [T]) -> Self {
        Self {
            s,
            i: 0,
            keys: FxHashMap::default(),
            buf: Vec::new(),
        }
    }

    fn parse_text(mut self, context: &mut Context) -> Option<JsValue> {
        let v = self.value(0, context)?;
        self.ws();
        (self.i == self.s.len()).then_some(v)
    }

    #[inline]
    fn peek(&self) -> Option<u32> {
        self.s.get(self.i).map(|&c| c.into())
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if matches!(c, 0x20 | 0x09 | 0x0a | 0x0d) {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, word: &[u8]) -> bool {
        let end = self.i + word.len();
        if end <= self.s.len()
            && self.s[self.i..end]
                .iter()
                .zip(word)
                .all(|(&c, &w)| c.into() == u32::from(w))
        {
            self.i = end;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: u32, context: &mut Context) -> Option<JsValue> {
        self.ws();
        match self.peek()? {
            0x7b => self.object(depth + 1, context),
            0x5b => self.array(depth + 1, context),
            0x22 => {
                let (raw, escaped) = self.string()?;
                Some(JsValue::from(self.make_string(raw, escaped)?))
            }
            0x74 => self.eat(b"true").then(|| JsValue::new(true)),
            0x66 => self.eat(b"false").then(|| JsValue::new(false)),
            0x6e => self.eat(b"null").then(JsValue::null),
            _ => self.number(),
        }
    }

    fn array(&mut self, depth: u32, context: &mut Context) -> Option<JsValue> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek()? == 0x5d {
            self.i += 1;
        } else {
            loop {
                items.push(self.value(depth, context)?);
                self.ws();
                match self.peek()? {
                    0x2c => self.i += 1,
                    0x5d => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        Some(Array::create_array_from_list(items, context).into())
    }

    fn object(&mut self, depth: u32, context: &mut Context) -> Option<JsValue> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let obj = JsObject::with_object_proto(context.intrinsics());
        self.ws();
        if self.peek()? == 0x7d {
            self.i += 1;
            return Some(obj.into());
        }
        loop {
            self.ws();
            if self.peek()? != 0x22 {
                return None;
            }
            let (raw, escaped) = self.string()?;
            let key = if escaped {
                PropertyKey::from(self.make_string(raw, true)?)
            } else if let Some(k) = self.keys.get(raw) {
                k.clone()
            } else {
                let k = PropertyKey::from(T::js_string(raw));
                self.keys.insert(raw, k.clone());
                k
            };
            // `__proto__` is left to the original path.
            if matches!(&key, PropertyKey::String(s) if s.as_str() == JsStr::latin1(b"__proto__")) {
                return None;
            }
            self.ws();
            if self.peek()? != 0x3a {
                return None;
            }
            self.i += 1;
            let value = self.value(depth, context)?;
            // A fresh ordinary object: inserting is CreateDataProperty (a
            // repeated key keeps its place and takes the last value).
            obj.borrow_mut().insert(
                key,
                PropertyDescriptor::builder()
                    .value(value)
                    .writable(true)
                    .enumerable(true)
                    .configurable(true),
            );
            self.ws();
            match self.peek()? {
                0x2c => self.i += 1,
                0x7d => {
                    self.i += 1;
                    break;
                }
                _ => return None,
            }
        }
        Some(obj.into())
    }

    /// A string literal at `self.i` (its opening quote): the raw contents
    /// and whether they hold escapes. Refuses control characters and lone
    /// surrogates.
    fn string(&mut self) -> Option<(&'a [T], bool)> {
        self.i += 1;
        let start = self.i;
        let mut escaped = false;
        loop {
            let c: u32 = (*self.s.get(self.i)?).into();
            match c {
                0x22 => break,
                0x5c => {
                    escaped = true;
                    self.i += 2;
                    continue;
                }
                0x00..=0x1f => return None,
                0xd800..=0xdbff => {
                    let next: u32 = (*self.s.get(self.i + 1)?).into();
                    if !(0xdc00..=0xdfff).contains(&next) {
                        return None;
                    }
                    self.i += 1;
                }
                0xdc00..=0xdfff => return None,
                _ => {}
            }
            self.i += 1;
        }
        let raw = &self.s[start..self.i];
        self.i += 1;
        Some((raw, escaped))
    }

    /// The value of a string literal's raw contents.
    fn make_string(&mut self, raw: &[T], escaped: bool) -> Option<JsString> {
        if !escaped {
            return Some(T::js_string(raw));
        }
        self.buf.clear();
        let mut j = 0;
        while j < raw.len() {
            let c: u32 = raw[j].into();
            j += 1;
            if c != 0x5c {
                #[allow(clippy::cast_possible_truncation)]
                self.buf.push(c as u16);
                continue;
            }
            let e: u32 = (*raw.get(j)?).into();
            j += 1;
            let unit = match e {
                0x22 => 0x22,
                0x5c => 0x5c,
                0x2f => 0x2f,
                0x62 => 0x08,
                0x66 => 0x0c,
                0x6e => 0x0a,
                0x72 => 0x0d,
                0x74 => 0x09,
                0x75 => {
                    let mut v = 0u32;
                    for _ in 0..4 {
                        let d = char::from_u32((*raw.get(j)?).into())?.to_digit(16)?;
                        v = v * 16 + d;
                        j += 1;
                    }
                    // Surrogates (paired or not) are left to the original path.
                    if (0xd800..=0xdfff).contains(&v) {
                        return None;
                    }
                    v
                }
                _ => return None,
            };
            #[allow(clippy::cast_possible_truncation)]
            self.buf.push(unit as u16);
        }
        Some(JsString::from(&self.buf[..]))
    }

    /// A number (ECMA-404 grammar). Integers in i32's range become integer
    /// values, as the original path's literals do; a number beyond f64's
    /// range is left to the original path.
    fn number(&mut self) -> Option<JsValue> {
        let start = self.i;
        let digit = |c: Option<u32>| c.is_some_and(|c| (0x30..=0x39).contains(&c));
        if self.peek() == Some(0x2d) {
            self.i += 1;
        }
        match self.peek()? {
            0x30 => self.i += 1,
            0x31..=0x39 => {
                while digit(self.peek()) {
                    self.i += 1;
                }
            }
            _ => return None,
        }
        let mut integer = true;
        if self.peek() == Some(0x2e) {
            integer = false;
            self.i += 1;
            if !digit(self.peek()) {
                return None;
            }
            while digit(self.peek()) {
                self.i += 1;
            }
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            integer = false;
            self.i += 1;
            if matches!(self.peek(), Some(0x2b | 0x2d)) {
                self.i += 1;
            }
            if !digit(self.peek()) {
                return None;
            }
            while digit(self.peek()) {
                self.i += 1;
            }
        }
        let raw = &self.s[start..self.i];
        let mut text = String::with_capacity(raw.len());
        for &c in raw {
            text.push(char::from_u32(c.into())?);
        }
        if integer && raw.len() <= 10 {
            let n: i64 = text.parse().ok()?;
            // `-0` stays a float (negative zero).
            if let Ok(n) = i32::try_from(n)
                && !(n == 0 && text.starts_with('-'))
            {
                return Some(JsValue::new(n));
            }
        }
        let f: f64 = text.parse().ok()?;
        f.is_finite().then(|| JsValue::new(f))
    }
}
