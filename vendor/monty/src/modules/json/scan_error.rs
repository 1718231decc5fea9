//! hwf: where and why CPython's `json.loads` refuses a document.
//!
//! `jiter` finds a syntax error at its own place and in its own words; the
//! seed's scripts read CPython's (`e.msg`, `e.pos`, `str(e)`: `Expecting
//! value: line 1 column 1 (char 0)`). This is a port of the checks of
//! CPython 3.11's C scanner (`Modules/_json.c`: `scan_once_unicode`,
//! `_parse_object_unicode`, `_parse_array_unicode`, `scanstring_unicode`,
//! `_match_number_unicode`) and of `json.decoder.JSONDecoder.decode`
//! (leading whitespace, `Extra data`). It builds no value: it only walks
//! the document the way CPython does and stops at the first refusal, so it
//! runs only after `jiter` has refused the document.
//!
//! Positions are byte offsets into the (UTF-8) document; the caller turns
//! them into CPython's character positions. Every structural character is
//! ASCII, so walking bytes reads the same places CPython's characters do.

/// The first refusal CPython's `json.loads(text)` makes of `bytes` (strict:
/// a raw control character in a string is refused), as `(message, byte
/// offset)`, or `None` when CPython's scanner accepts the document (the
/// refusal is then one it makes elsewhere: a number out of range, a lone
/// surrogate, nesting too deep).
pub(super) fn first_refusal(bytes: &[u8]) -> Option<(&'static str, usize)> {
    // A byte order mark is read (or refused) before the scanner runs.
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    let mut scanner = Scanner { bytes, depth: 0 };
    let start = scanner.skip_whitespace(0);
    match scanner.value(start) {
        Err(refusal) => Some(refusal.into_message()),
        Ok(end) => {
            let end = scanner.skip_whitespace(end);
            (end != bytes.len()).then_some(("Extra data", end))
        }
    }
}

/// Why the scan stopped.
enum Refusal {
    /// No value starts here (CPython's `StopIteration(idx)`, which
    /// `raw_decode` turns into `Expecting value`).
    NoValue(usize),
    /// A refusal with its own message.
    At(&'static str, usize),
}

impl Refusal {
    fn into_message(self) -> (&'static str, usize) {
        match self {
            Refusal::NoValue(at) => ("Expecting value", at),
            Refusal::At(message, at) => (message, at),
        }
    }
}

/// Deeper than this the scan gives up (CPython raises `RecursionError`
/// there, which the caller's own depth check reports).
const MAX_DEPTH: usize = 10_000;

struct Scanner<'a> {
    bytes: &'a [u8],
    depth: usize,
}

impl Scanner<'_> {
    fn at(&self, idx: usize) -> Option<u8> {
        self.bytes.get(idx).copied()
    }

    /// CPython's `IS_WHITESPACE`: space, tab, newline, carriage return.
    fn skip_whitespace(&self, mut idx: usize) -> usize {
        while matches!(self.at(idx), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            idx += 1;
        }
        idx
    }

    fn starts_with(&self, idx: usize, word: &[u8]) -> bool {
        self.bytes.get(idx..idx + word.len()) == Some(word)
    }

    /// `scan_once_unicode`: the value at `idx`, its end.
    fn value(&mut self, idx: usize) -> Result<usize, Refusal> {
        let Some(c) = self.at(idx) else {
            return Err(Refusal::NoValue(idx));
        };
        match c {
            b'"' => return self.string(idx + 1),
            b'{' | b'[' => {
                if self.depth >= MAX_DEPTH {
                    return Err(Refusal::NoValue(idx));
                }
                self.depth += 1;
                let end = if c == b'{' {
                    self.object(idx + 1)
                } else {
                    self.array(idx + 1)
                };
                self.depth -= 1;
                return end;
            }
            b'n' if self.starts_with(idx, b"null") => return Ok(idx + 4),
            b't' if self.starts_with(idx, b"true") => return Ok(idx + 4),
            b'f' if self.starts_with(idx, b"false") => return Ok(idx + 5),
            b'N' if self.starts_with(idx, b"NaN") => return Ok(idx + 3),
            b'I' if self.starts_with(idx, b"Infinity") => return Ok(idx + 8),
            b'-' if self.starts_with(idx, b"-Infinity") => return Ok(idx + 9),
            _ => {}
        }
        self.number(idx)
    }

    /// `_match_number_unicode`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`,
    /// the longest match; a fraction or exponent without digits is left
    /// for whatever follows.
    fn number(&self, start: usize) -> Result<usize, Refusal> {
        let digit = |i: usize| self.at(i).is_some_and(|b| b.is_ascii_digit());
        let mut idx = start;
        if self.at(idx) == Some(b'-') {
            idx += 1;
        }
        match self.at(idx) {
            Some(b'1'..=b'9') => {
                idx += 1;
                while digit(idx) {
                    idx += 1;
                }
            }
            Some(b'0') => idx += 1,
            _ => return Err(Refusal::NoValue(start)),
        }
        if self.at(idx) == Some(b'.') && digit(idx + 1) {
            idx += 2;
            while digit(idx) {
                idx += 1;
            }
        }
        if matches!(self.at(idx), Some(b'e' | b'E')) {
            let mut exp = idx + 1;
            if matches!(self.at(exp), Some(b'-' | b'+')) {
                exp += 1;
            }
            if digit(exp) {
                while digit(exp) {
                    exp += 1;
                }
                idx = exp;
            }
        }
        Ok(idx)
    }

    /// `scanstring_unicode` from just after the opening quote at
    /// `begin - 1`: the string's end (after its closing quote).
    fn string(&self, mut idx: usize) -> Result<usize, Refusal> {
        let begin = idx - 1;
        let unterminated = Refusal::At("Unterminated string starting at", begin);
        let hex = |i: usize| self.at(i).is_some_and(|b| b.is_ascii_hexdigit());
        loop {
            match self.at(idx) {
                None => return Err(unterminated),
                Some(b'"') => return Ok(idx + 1),
                Some(b'\\') => {
                    let Some(escape) = self.at(idx + 1) else {
                        return Err(unterminated);
                    };
                    if escape == b'u' {
                        // Four hex digits after `\u`; CPython needs them
                        // before the end of the text with one character to
                        // spare, and names the backslash.
                        if idx + 6 >= self.bytes.len() || !(2..6).all(|k| hex(idx + k)) {
                            return Err(Refusal::At("Invalid \\uXXXX escape", idx + 1));
                        }
                        idx += 6;
                    } else if matches!(escape, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                        idx += 2;
                    } else {
                        return Err(Refusal::At("Invalid \\escape", idx));
                    }
                }
                Some(c) if c <= 0x1f => return Err(Refusal::At("Invalid control character at", idx)),
                Some(_) => idx += 1,
            }
        }
    }

    /// `_parse_object_unicode` from just after `{`: the object's end.
    fn object(&mut self, start: usize) -> Result<usize, Refusal> {
        let mut idx = self.skip_whitespace(start);
        if self.at(idx) == Some(b'}') {
            return Ok(idx + 1);
        }
        loop {
            if self.at(idx) != Some(b'"') {
                return Err(Refusal::At("Expecting property name enclosed in double quotes", idx));
            }
            idx = self.skip_whitespace(self.string(idx + 1)?);
            if self.at(idx) != Some(b':') {
                return Err(Refusal::At("Expecting ':' delimiter", idx));
            }
            idx = self.skip_whitespace(idx + 1);
            let end = self.value(idx)?;
            idx = self.skip_whitespace(end);
            match self.at(idx) {
                Some(b'}') => return Ok(idx + 1),
                Some(b',') => idx = self.skip_whitespace(idx + 1),
                _ => return Err(Refusal::At("Expecting ',' delimiter", idx)),
            }
        }
    }

    /// `_parse_array_unicode` from just after `[`: the array's end.
    fn array(&mut self, start: usize) -> Result<usize, Refusal> {
        let mut idx = self.skip_whitespace(start);
        if self.at(idx) == Some(b']') {
            return Ok(idx + 1);
        }
        loop {
            let end = self.value(idx)?;
            idx = self.skip_whitespace(end);
            match self.at(idx) {
                Some(b']') => return Ok(idx + 1),
                Some(b',') => idx = self.skip_whitespace(idx + 1),
                _ => return Err(Refusal::At("Expecting ',' delimiter", idx)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::first_refusal;

    #[test]
    fn refusals_are_cpythons() {
        for (text, want) in [
            ("this is not json", Some(("Expecting value", 0))),
            ("no", Some(("Expecting value", 0))),
            ("nan", Some(("Expecting value", 0))),
            ("{\"ok\": tru}", Some(("Expecting value", 7))),
            ("{\"a\"", Some(("Expecting ':' delimiter", 4))),
            (
                "{\"a\": 1,",
                Some(("Expecting property name enclosed in double quotes", 8)),
            ),
            ("[1, 2.", Some(("Expecting ',' delimiter", 5))),
            ("1.", Some(("Extra data", 1))),
            ("1e", Some(("Extra data", 1))),
            ("-", Some(("Expecting value", 0))),
            ("[1,]", Some(("Expecting value", 3))),
            (
                "{\"a\": 1,}",
                Some(("Expecting property name enclosed in double quotes", 8)),
            ),
            ("\"abc", Some(("Unterminated string starting at", 0))),
            ("\"a\\qb\"", Some(("Invalid \\escape", 2))),
            ("\"a\nb\"", Some(("Invalid control character at", 2))),
            (" [1] x", Some(("Extra data", 5))),
            ("[1, {\"a\": [true, null]}]", None),
            ("-Infinity", None),
        ] {
            assert_eq!(first_refusal(text.as_bytes()), want, "{text:?}");
        }
    }
}
