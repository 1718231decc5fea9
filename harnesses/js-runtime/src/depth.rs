//! The nesting limit, checked on the raw text before QuickJS parses a script.
//!
//! Written for Boa's parser (the engine before QuickJS); QuickJS's is
//! recursive descent too, so the limit stays. Boa's parser was recursive descent: every level of `(`, `[`, `{`, `${`,
//! every chained `=>` / `?` / `=` and every stacked unary operator costs
//! it several kilobytes of the component's stack, and running out of stack
//! in WebAssembly is a trap (`out of bounds memory access`), not an error
//! the script could be told about. So the runtime refuses scripts nested
//! deeper than [`MAX_DEPTH`] with a diagnostic (`too_deeply_nested`), and
//! QuickJS's own stack limit (`engine::JS_STACK`) leaves a margin above it.
//!
//! The scan skips strings, comments, template text and regular
//! expressions (a `/` after an operator, an opening bracket or the start
//! starts one). Its measure at a point is: open brackets, plus the `=>`,
//! `?` and `=` seen since the last `,`, `;` or line break at each open
//! level, plus the unary operators and `typeof`/`void`/`delete`/`await`/
//! `new`/`yield` stacked in front of the current operand.

/// The deepest nesting a script may have.
pub const MAX_DEPTH: usize = 128;

const PREFIX_WORDS: &[&[u8]] = &[b"typeof", b"void", b"delete", b"await", b"new", b"yield"];
const REGEX_AFTER_WORDS: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"yield",
    b"await",
    b"instanceof",
];

/// Where the nesting first goes past [`MAX_DEPTH`]: the byte offset and
/// the depth reached.
pub fn too_deep(source: &str) -> Option<(usize, usize)> {
    let b = source.as_bytes();
    // Open brackets: `(`, `[`, `{`, `$` (a template's `${`), `` ` `` (inside
    // a template's text).
    let mut open: Vec<u8> = Vec::new();
    // Chained `=>` / `?` / `=` per level (index 0: the top level).
    let mut chain: Vec<usize> = vec![0];
    let mut unary = 0usize;
    // The last significant byte of code (for telling a regex from `/`).
    let mut prev: u8 = 0;
    let mut prev_word: &[u8] = b"";
    let mut i = 0;
    let depth = |open: &Vec<u8>, chain: &Vec<usize>, unary: usize| {
        open.iter().filter(|&&c| c != b'`').count() + chain.iter().sum::<usize>() + unary
    };
    while i < b.len() {
        if open.last() == Some(&b'`') {
            match b[i] {
                b'\\' => i += 2,
                b'`' => {
                    open.pop();
                    prev = b'`';
                    i += 1;
                }
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    open.push(b'$');
                    chain.push(0);
                    prev = b'{';
                    i += 2;
                }
                _ => i += 1,
            }
            continue;
        }
        let c = b[i];
        match c {
            b'\n' => {
                if let Some(last) = chain.last_mut() {
                    *last = 0;
                }
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'/' if regex_allowed(prev, prev_word) => {
                i = skip_regex(b, i + 1);
                prev = b'a';
                prev_word = b"";
                unary = 0;
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(b, i + 1, c);
                prev = b'a';
                prev_word = b"";
                unary = 0;
                continue;
            }
            b'`' => {
                open.push(b'`');
                unary = 0;
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => {
                open.push(c);
                chain.push(0);
                unary = 0;
            }
            b')' | b']' | b'}' => {
                if open.pop().is_some() && chain.len() > 1 {
                    chain.pop();
                }
                unary = 0;
            }
            b',' | b';' => {
                if let Some(last) = chain.last_mut() {
                    *last = 0;
                }
                unary = 0;
            }
            b'=' => match b.get(i + 1) {
                Some(b'>') => {
                    bump(&mut chain);
                    unary = 0;
                    i += 1;
                }
                Some(b'=') => {
                    while b.get(i + 1) == Some(&b'=') {
                        i += 1;
                    }
                    unary = 0;
                }
                _ => {
                    bump(&mut chain);
                    unary = 0;
                }
            },
            b'?' => match b.get(i + 1) {
                Some(b'?') => i += 1,
                Some(b'.') if !b.get(i + 2).is_some_and(u8::is_ascii_digit) => i += 1,
                _ => {
                    bump(&mut chain);
                    unary = 0;
                }
            },
            b'!' | b'~' | b'-' | b'+' => unary += 1,
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80) {
                    i += 1;
                }
                let word = &b[start..i];
                if PREFIX_WORDS.contains(&word) {
                    unary += 1;
                } else {
                    unary = 0;
                }
                prev = b'a';
                prev_word = word;
                let d = depth(&open, &chain, unary);
                if d > MAX_DEPTH {
                    return Some((start, d));
                }
                continue;
            }
            _ => unary = 0,
        }
        prev = c;
        prev_word = b"";
        let d = depth(&open, &chain, unary);
        if d > MAX_DEPTH {
            return Some((i, d));
        }
        i += 1;
    }
    None
}

fn bump(chain: &mut [usize]) {
    if let Some(last) = chain.last_mut() {
        *last += 1;
    }
}

/// A `/` starts a regular expression after an operator, an opening
/// bracket, the start, or a keyword such as `return`.
fn regex_allowed(prev: u8, prev_word: &[u8]) -> bool {
    if prev == b'a' {
        return REGEX_AFTER_WORDS.contains(&prev_word);
    }
    !matches!(prev, b')' | b']' | b'}' | b'`')
}

fn skip_regex(b: &[u8], mut i: usize) -> usize {
    let mut class = false;
    while i < b.len() && b[i] != b'\n' {
        match b[i] {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

fn skip_string(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() && b[i] != b'\n' {
        match b[i] {
            b'\\' => i += 1,
            c if c == quote => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_found_and_ordinary_code_is_not() {
        for (open, close) in [
            ("(", ")"),
            ("[", "]"),
            ("{a:", "}"),
            ("`${", "}`"),
            ("() => ", ""),
            ("!", ""),
            ("typeof ", ""),
            ("x ? ", " : 1"),
        ] {
            let deep = format!("{}1{}", open.repeat(MAX_DEPTH + 1), close.repeat(MAX_DEPTH + 1));
            assert!(too_deep(&deep).is_some(), "{open}");
            let ok = format!("{}1{}", open.repeat(MAX_DEPTH / 2), close.repeat(MAX_DEPTH / 2));
            assert_eq!(too_deep(&ok), None, "{open}");
        }
        let text = "const s = \"((((\"; // ((((\n/* [[[[ */ const r = /\\((((/; const t = `((( ${'x'} `;\n";
        let many = text.repeat(200);
        assert_eq!(too_deep(&many), None);
        let stmts = "x = 1\ny = a ? b : c\nz = () => 1\n".repeat(500);
        assert_eq!(too_deep(&stmts), None);
        assert_eq!(too_deep(&"a / b / c; ".repeat(300)), None);
    }
}
