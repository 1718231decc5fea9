//! `String.prototype.localeCompare`: ported from the Boa runtime's patch
//! (`vendor/boa_engine/src/builtins/string/root_collation.rs`), on Rust
//! strings instead of Boa's. QuickJS-ng, like Boa, compares code units (`"C" < "a"`, `"é" > "z"`), where Node,
//! Bun and every browser use ICU's collation: `["b", "a", "C"]` sorts to
//! `["a", "b", "C"]`, accents and case only break ties. Workflow scripts
//! sort names and titles with `a.localeCompare(b)`, so their results
//! differed. Bundling ICU's collation data (`intl_bundled`) would grow the
//! runtime by megabytes, so this is a compact approximation of the Unicode
//! root collation (CLDR root, the default `en` tailoring, strength
//! tertiary, `alternate=non-ignorable`), checked against Node 20's
//! `Intl.Collator` on ASCII, Latin-1, Latin letters with diacritics, Greek,
//! Cyrillic and common punctuation:
//!
//! - **primary** (first, over the whole string): whitespace < punctuation
//!   and symbols (in ICU's order for ASCII and Latin-1) < digits < Latin
//!   letters (case and accents folded; `ß` is `ss`, `æ` is `ae`, `œ` is
//!   `oe`; `ð`, `ŋ`, `ı`, `þ` follow `d`, `n`, `i`, `z`) < other scripts
//!   (by lowercase code point); control characters are ignored;
//! - **secondary**: the diacritics of each letter (after NFD), in ICU's
//!   order (acute < grave < breve < circumflex < caron < ring < diaeresis
//!   < double acute < tilde < dot …; a stroke, as in `ø` or `ł`, after them);
//! - **tertiary**: lowercase < uppercase < the letters of an expansion.
//!
//! Strings equal at all three levels compare equal (`"é"` and `"e\u{301}"`
//! are 0, as in ICU). Symbols outside the tables sort among the symbols by
//! code point, which is where this can differ from ICU.

use icu_normalizer::DecomposingNormalizerBorrowed;
use std::cmp::Ordering;

/// ASCII and Latin-1 punctuation and symbols in ICU's root order (Node 20's
/// `Intl.Collator`), after the whitespace.
const SYMBOLS: &str = "_-,;:!¡?¿.·'\"«»()[]{}§¶@*/\\&#%`´^¯¨¸°©®+±÷×<=>¬|¦~¤¢$£¥";

/// Combining marks (U+0300–U+036F) in ICU's secondary order.
const MARKS: [u16; 112] = [
    0x34f, 0x332, 0x313, 0x343, 0x314, 0x301, 0x341, 0x300, 0x340, 0x306, 0x302, 0x30c, 0x30a, 0x342, 0x308, 0x344,
    0x30b, 0x303, 0x307, 0x338, 0x327, 0x328, 0x304, 0x30d, 0x30e, 0x312, 0x315, 0x31a, 0x33d, 0x33e, 0x33f, 0x346,
    0x34a, 0x34b, 0x34c, 0x350, 0x351, 0x352, 0x357, 0x35b, 0x35d, 0x35e, 0x316, 0x317, 0x318, 0x319, 0x31c, 0x31d,
    0x31e, 0x31f, 0x320, 0x329, 0x32a, 0x32b, 0x32c, 0x32f, 0x333, 0x33a, 0x33b, 0x33c, 0x347, 0x348, 0x349, 0x34d,
    0x34e, 0x353, 0x354, 0x355, 0x356, 0x359, 0x35a, 0x35c, 0x35f, 0x362, 0x336, 0x337, 0x335, 0x305, 0x309, 0x30f,
    0x310, 0x311, 0x31b, 0x321, 0x322, 0x323, 0x324, 0x325, 0x326, 0x32d, 0x32e, 0x330, 0x331, 0x334, 0x339, 0x345,
    0x358, 0x360, 0x361, 0x363, 0x368, 0x369, 0x364, 0x36a, 0x365, 0x36b, 0x366, 0x36c, 0x36d, 0x367, 0x36e, 0x36f,
];

/// The secondary weight of a stroke (`ø`, `ł`, `đ`, `ħ`, `ŧ`): that of
/// U+0338, the combining long solidus.
const STROKE: u8 = 20;

// Primary weight ranges, one per group, in ICU's group order.
const WHITESPACE: u32 = 0x10;
const SYMBOL: u32 = 0x100;
const OTHER_SYMBOL: u32 = 0x1000;
const DIGIT: u32 = 0x20_0000;
const LATIN: u32 = 0x30_0000;
const OTHER_LETTER: u32 = 0x40_0000;

/// One collation element: what the three levels compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Element {
    primary: u32,
    /// Up to four diacritics, most significant first (0 = none).
    secondary: u32,
    tertiary: u8,
}

/// What `localeCompare`'s options ask for (`Intl.Collator` options).
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `numeric: true`: runs of digits compare by their value (`"a2" <
    /// "a10"`), leading zeros ignored.
    pub numeric: bool,
    /// `sensitivity: "base"` compares letters only, `"accent"` adds the
    /// diacritics, `"case"` the case; `"variant"` (the default) all three.
    pub accents: bool,
    /// See `accents`.
    pub case: bool,
    /// `caseFirst: "upper"`: uppercase before lowercase where only the
    /// case differs (`"A" < "a"`, `"AB" < "Ab" < "aB" < "ab"`).
    pub upper_first: bool,
    /// `ignorePunctuation: true`: whitespace and punctuation are ignored
    /// (ICU's `alternate=shifted` at strength tertiary: `"co-op"`, `"co
    /// op"` and `"coop"` are equal); symbols (`$`, `+`, `` ` ``) still count.
    pub ignore_punctuation: bool,
}

impl Options {
    /// The default: every level, digits one by one.
    #[cfg(test)]
    pub const VARIANT: Self = Self {
        numeric: false,
        accents: true,
        case: true,
        upper_first: false,
        ignore_punctuation: false,
    };
}

/// Whether a primary weight is a variable element (whitespace or
/// punctuation, up to `%` in [`SYMBOLS`] and its typographic cousins),
/// which `ignorePunctuation` drops.
fn is_variable(primary: u32) -> bool {
    let last = SYMBOLS.chars().position(|s| s == '`').unwrap_or(0);
    primary < SYMBOL + 4 * u32::try_from(last).unwrap_or(0)
}

/// A tertiary weight as compared: with `caseFirst: "upper"`, uppercase
/// (1) before lowercase (0); expansions (2, 3) stay after both.
fn tertiary_key(tertiary: u8, upper_first: bool) -> u32 {
    match (upper_first, tertiary) {
        (true, 0) => 1,
        (true, 1) => 0,
        (_, t) => u32::from(t),
    }
}

impl Options {
    /// The options as one word, for a collator that resolved them once
    /// (`Intl.Collator`'s constructor): one bit per field.
    pub fn to_flags(self) -> u32 {
        u32::from(self.numeric)
            | u32::from(self.accents) << 1
            | u32::from(self.case) << 2
            | u32::from(self.upper_first) << 3
            | u32::from(self.ignore_punctuation) << 4
    }

    /// The options of [`Options::to_flags`]' word.
    pub fn from_flags(flags: u32) -> Self {
        Self {
            numeric: flags & 1 != 0,
            accents: flags & 2 != 0,
            case: flags & 4 != 0,
            upper_first: flags & 8 != 0,
            ignore_punctuation: flags & 16 != 0,
        }
    }
}

/// Compares two strings as ICU's root collation does, approximately (see
/// the module's docs). ASCII text is read in place; anything else is
/// decomposed (NFD) as it is read, once: the primary level is compared as
/// the elements come, and stops at the first difference (where most
/// comparisons end); the other levels read the elements kept on the way.
pub fn compare(a: &str, b: &str, options: Options) -> Ordering {
    if !options.numeric
        && !options.ignore_punctuation
        && let Some(order) = compare_ascii(a.as_bytes(), b.as_bytes(), options.case, options.upper_first)
    {
        return order;
    }
    let kept = |e: &Element| !(options.ignore_punctuation && is_variable(e.primary));
    let mut left = elements(Chars::of(a), options.numeric).filter(kept);
    let mut right = elements(Chars::of(b), options.numeric).filter(kept);
    // The elements read so far, for the secondary and tertiary levels.
    let (mut xs, mut ys) = (Kept::default(), Kept::default());
    let later = options.accents || options.case;
    loop {
        match (left.next(), right.next()) {
            (Some(x), Some(y)) => {
                if x.primary != y.primary {
                    return x.primary.cmp(&y.primary);
                }
                if later {
                    xs.push(x);
                    ys.push(y);
                }
            }
            (Some(_), None) => return Ordering::Greater,
            (None, Some(_)) => return Ordering::Less,
            (None, None) => break,
        }
    }
    // Equal primaries: as many elements on both sides.
    let level = |key: &dyn Fn(&Element) -> u32| xs.iter().map(key).cmp(ys.iter().map(key));
    let mut order = Ordering::Equal;
    if options.accents {
        order = level(&|e| e.secondary);
    }
    if options.case && options.accents {
        order = order.then_with(|| level(&|e| tertiary_key(e.tertiary, options.upper_first)));
    } else if options.case {
        // `sensitivity: "case"` (ICU's case level): upper or lower only, so
        // an expansion is its letters' case (`æ` = `ae`, `Æ` > `ae`).
        order = order.then_with(|| level(&|e| tertiary_key(e.tertiary & 1, options.upper_first)));
    }
    order
}

/// The elements a comparison keeps for its later levels: the first few
/// in place (no allocation for the usual short names), the rest in a
/// vector.
#[derive(Default)]
struct Kept {
    first: [Option<Element>; 16],
    len: usize,
    rest: Vec<Element>,
}

impl Kept {
    fn push(&mut self, e: Element) {
        match self.first.get_mut(self.len) {
            Some(slot) => *slot = Some(e),
            None => self.rest.push(e),
        }
        self.len += 1;
    }

    fn iter(&self) -> impl Iterator<Item = &Element> {
        self.first.iter().flatten().chain(&self.rest)
    }
}

/// The primary and tertiary weights of each ASCII character (`None` for
/// an ignorable one): one element each, no diacritics.
fn ascii_weights() -> &'static [Option<(u32, u8)>; 128] {
    static TABLE: std::sync::OnceLock<[Option<(u32, u8)>; 128]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [None; 128];
        for (b, slot) in (0u8..128).zip(t.iter_mut()) {
            *slot = match base_elements(char::from(b)) {
                Some((e, None)) if e.secondary == 0 => Some((e.primary, e.tertiary)),
                _ => None,
            };
        }
        t
    })
}

/// [`compare`] for two ASCII strings without ignorable characters (the
/// usual case, and what sorting by `localeCompare` spends its time on):
/// the same order, read from a table. `None` when it does not apply.
fn compare_ascii(a: &[u8], b: &[u8], case: bool, upper_first: bool) -> Option<Ordering> {
    let table = ascii_weights();
    let weight = |c: u8| table.get(usize::from(c)).copied().flatten();
    let mut tertiary = Ordering::Equal;
    for (&x, &y) in a.iter().zip(b) {
        let ((px, tx), (py, ty)) = (weight(x)?, weight(y)?);
        if px != py {
            // The rest must still be ASCII without ignorables for the
            // table's answer to be the general one.
            return (a.iter().chain(b).all(|&c| weight(c).is_some())).then_some(px.cmp(&py));
        }
        if tertiary == Ordering::Equal {
            tertiary = tertiary_key(tx, upper_first).cmp(&tertiary_key(ty, upper_first));
        }
    }
    if !a.iter().chain(b).all(|&c| weight(c).is_some()) {
        return None;
    }
    // Equal primaries over the shorter length: the shorter string first;
    // then (no diacritics in ASCII) the case, if asked for.
    Some(
        a.len()
            .cmp(&b.len())
            .then(if case { tertiary } else { Ordering::Equal }),
    )
}

/// A string's characters, decomposed (NFD) as they are read when that can
/// change them.
enum Chars<'a> {
    Ascii(std::str::Chars<'a>),
    Decomposed(icu_normalizer::Decomposition<'static, std::str::Chars<'a>>),
}

impl<'a> Chars<'a> {
    fn of(s: &'a str) -> Self {
        if s.is_ascii() {
            return Self::Ascii(s.chars());
        }
        Self::Decomposed(DecomposingNormalizerBorrowed::new_nfd().normalize_iter(s.chars()))
    }
}

impl Iterator for Chars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        match self {
            Self::Ascii(it) => it.next(),
            Self::Decomposed(it) => it.next(),
        }
    }
}

/// The collation elements of `chars` (in NFD); with `numeric`, a run of
/// ASCII digits is one element for its length (leading zeros dropped) and
/// one per digit.
fn elements(chars: Chars<'_>, numeric: bool) -> impl Iterator<Item = Element> + '_ {
    let mut chars = chars.peekable();
    let mut pending: Option<Element> = None;
    let mut digits: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    std::iter::from_fn(move || {
        if let Some(second) = pending.take() {
            return Some(second);
        }
        if let Some(d) = digits.pop_front() {
            return Some(Element {
                primary: DIGIT + u32::from(d) * 4,
                secondary: 0,
                tertiary: 0,
            });
        }
        loop {
            let c = chars.next()?;
            if numeric && c.is_ascii_digit() {
                digits.push_back(c as u8 - b'0');
                while let Some(&next) = chars.peek() {
                    if !next.is_ascii_digit() {
                        break;
                    }
                    chars.next();
                    digits.push_back(next as u8 - b'0');
                }
                while digits.len() > 1 && digits.front() == Some(&0) {
                    digits.pop_front();
                }
                // Longer numbers are greater: the length goes first, above
                // every single digit's weight and below the letters.
                let len = u32::try_from(digits.len()).unwrap_or(u32::MAX).min(0x7_ffff);
                return Some(Element {
                    primary: DIGIT + 0x40 + len,
                    secondary: 0,
                    tertiary: 0,
                });
            }
            let Some((mut first, second)) = base_elements(c) else {
                continue;
            };
            // The diacritics that follow the base character.
            let mut marks = 0u32;
            while let Some(&m) = chars.peek() {
                let Some(weight) = mark_weight(m) else { break };
                chars.next();
                if marks < 0x0100_0000 {
                    marks = (marks << 8) | u32::from(weight);
                }
            }
            if marks != 0 {
                first.secondary = if first.secondary == 0 {
                    marks
                } else {
                    (first.secondary << 8) | marks
                };
            }
            pending = second;
            return Some(first);
        }
    })
}

/// The secondary weight of a combining mark, or `None` for a base character.
fn mark_weight(c: char) -> Option<u8> {
    let cp = c as u32;
    if (0x300..0x370).contains(&cp) {
        let pos = MARKS.iter().position(|&m| u32::from(m) == cp).unwrap_or(MARKS.len());
        return Some(u8::try_from(pos + 1).unwrap_or(u8::MAX));
    }
    let other_marks = (0x1ab0..0x1b00).contains(&cp)
        || (0x1dc0..0x1e00).contains(&cp)
        || (0x20d0..0x2100).contains(&cp)
        || (0xfe20..0xfe30).contains(&cp);
    other_marks.then_some(u8::MAX)
}

/// The element(s) of a base character (two for an expansion such as `ß`),
/// or `None` when it is ignorable.
fn base_elements(c: char) -> Option<(Element, Option<Element>)> {
    let one = |primary, secondary, tertiary| {
        Some((
            Element {
                primary,
                secondary,
                tertiary,
            },
            None,
        ))
    };
    let upper = u8::from(c.is_uppercase());
    match c {
        '\t' => one(WHITESPACE, 0, 0),
        '\n' => one(WHITESPACE + 1, 0, 0),
        '\u{b}' => one(WHITESPACE + 2, 0, 0),
        '\u{c}' => one(WHITESPACE + 3, 0, 0),
        '\r' => one(WHITESPACE + 4, 0, 0),
        ' ' => one(WHITESPACE + 5, 0, 0),
        '\u{a0}' => one(WHITESPACE + 5, 0, 1),
        // Ignorable: controls, soft hyphen, zero-width characters.
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}' => None,
        '0'..='9' => one(DIGIT + (c as u32 - '0' as u32) * 4, 0, 0),
        '¹' => one(DIGIT + 4, 0, 2),
        '²' => one(DIGIT + 8, 0, 2),
        '³' => one(DIGIT + 12, 0, 2),
        'a'..='z' | 'A'..='Z' => one(latin(c.to_ascii_lowercase()), 0, upper),
        'ß' => expansion('s', 's', 2),
        'æ' | 'Æ' => expansion('a', 'e', 2 + upper),
        'œ' | 'Œ' => expansion('o', 'e', 2 + upper),
        'ø' | 'Ø' => one(latin('o'), u32::from(STROKE), upper),
        'ł' | 'Ł' => one(latin('l'), u32::from(STROKE), upper),
        'đ' | 'Đ' => one(latin('d'), u32::from(STROKE), upper),
        'ħ' | 'Ħ' => one(latin('h'), u32::from(STROKE), upper),
        'ŧ' | 'Ŧ' => one(latin('t'), u32::from(STROKE), upper),
        'ð' | 'Ð' => one(latin('d') + 1, 0, upper),
        'ŋ' | 'Ŋ' => one(latin('n') + 1, 0, upper),
        'ı' => one(latin('i') + 1, 0, 0),
        'þ' | 'Þ' => one(latin('z') + 1, 0, upper),
        _ => {
            if let Some(pos) = SYMBOLS.chars().position(|s| s == c) {
                return one(SYMBOL + 4 * u32::try_from(pos).unwrap_or(0), 0, 0);
            }
            // Typographic cousins of ASCII punctuation sort right after it.
            let after = |ascii: char, n: u32| {
                SYMBOLS
                    .chars()
                    .position(|s| s == ascii)
                    .map(|pos| SYMBOL + 4 * u32::try_from(pos).unwrap_or(0) + n)
            };
            let cousin = match c {
                '\u{2010}' | '\u{2011}' => after('-', 1),
                '\u{2012}' | '\u{2013}' => after('-', 2),
                '\u{2014}' | '\u{2015}' => after('-', 3),
                '\u{2026}' => after('.', 1),
                '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' => after('\'', 1),
                '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' => after('"', 1),
                '\u{2022}' => after('·', 1),
                '€' => after('¥', 1),
                _ => None,
            };
            if let Some(primary) = cousin {
                return one(primary, 0, 0);
            }
            if c.is_whitespace() {
                return one(WHITESPACE + 6, 0, 0);
            }
            if let Some(digit) = c.to_digit(10) {
                return one(DIGIT + digit * 4, 0, 1);
            }
            if c.is_alphabetic() {
                let lower = c.to_lowercase().next().unwrap_or(c);
                return one(OTHER_LETTER + lower as u32, 0, upper);
            }
            one(OTHER_SYMBOL + c as u32, 0, 0)
        }
    }
}

/// The primary weight of the Latin letter `c` (`'a'..='z'`); variants such
/// as `ð` take the next weight.
fn latin(c: char) -> u32 {
    LATIN + (c as u32 - 'a' as u32) * 4
}

/// Two elements for a letter that sorts as two (`ß` = `ss`). The first
/// carries a secondary weight above every diacritic's (ICU's expansions
/// hold one between their letters), so `ae` < `áe` < `æ` when accents
/// count (`sensitivity: "accent"`) and they stay equal at `"base"`.
fn expansion(first: char, second: char, tertiary: u8) -> Option<(Element, Option<Element>)> {
    let element = |c, secondary| Element {
        primary: latin(c),
        secondary,
        tertiary,
    };
    Some((element(first, EXPANSION), Some(element(second, 0))))
}

/// The secondary weight between the letters of an expansion (`æ`, `ß`):
/// above every single diacritic's ([`MARKS`], [`STROKE`], other marks).
const EXPANSION: u32 = 0x100;

#[cfg(test)]
mod tests {
    use super::{Options, compare};
    use std::cmp::Ordering;

    fn sorted(words: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        v.sort_by(|a, b| compare(a, b, Options::VARIANT));
        v
    }

    #[test]
    fn orders_as_icu_root_does() {
        // Node 20's `Intl.Collator().compare` for the same lists.
        assert_eq!(sorted(&["b", "a", "C"]), ["a", "b", "C"]);
        assert_eq!(
            sorted(&["résumé", "Resume", "resume", "RESUME", "résume", "rèsumé"]),
            ["resume", "Resume", "RESUME", "résume", "résumé", "rèsumé"]
        );
        assert_eq!(
            sorted(&[" ", "_", "-", "$", "£", "¥", "€", "0", "9", "a"]),
            [" ", "_", "-", "$", "£", "¥", "€", "0", "9", "a"]
        );
        assert_eq!(compare("é", "e\u{301}", Options::VARIANT), Ordering::Equal);
    }

    #[test]
    fn an_expansion_differs_from_its_letters_by_accent_not_by_base() {
        // Node 20: `"æ".localeCompare("ae", "en", {sensitivity})` is 0 for
        // "base" and 1 for "accent"; `æ` after `áe` too.
        let accent = Options {
            case: false,
            ..Options::VARIANT
        };
        let base = Options {
            accents: false,
            ..accent
        };
        for (a, b) in [
            ("æ", "ae"),
            ("Æsir", "aesir"),
            ("ß", "ss"),
            ("œ", "oe"),
            ("æ", "áe"),
            ("æ", "aé"),
        ] {
            assert_eq!(compare(a, b, accent), Ordering::Greater, "{a} {b}");
            assert_eq!(compare(a, b, Options::VARIANT), Ordering::Greater, "{a} {b}");
        }
        assert_eq!(compare("æ", "ae", base), Ordering::Equal);
        let case = Options {
            accents: false,
            ..Options::VARIANT
        };
        assert_eq!(compare("æ", "ae", case), Ordering::Equal);
        assert_eq!(compare("Æ", "ae", case), Ordering::Greater);
        assert_eq!(compare("ßa", "sa", base), Ordering::Greater);
    }

    #[test]
    fn upper_first_and_ignored_punctuation_order_as_icu() {
        // Node 20's `Intl.Collator('en', {caseFirst: 'upper'})`.
        let upper = Options {
            upper_first: true,
            ..Options::VARIANT
        };
        let mut v = ["a", "A", "b", "B", "ab", "Ab", "aB", "AB", "ß", "SS", "ss", "é", "É"];
        v.sort_by(|a, b| compare(a, b, upper));
        assert_eq!(
            v,
            ["A", "a", "AB", "Ab", "aB", "ab", "B", "b", "É", "é", "SS", "ss", "ß"]
        );
        // `ignorePunctuation: true`: punctuation and spaces drop out,
        // symbols stay.
        let shifted = Options {
            ignore_punctuation: true,
            ..Options::VARIANT
        };
        for (word, order) in [
            ("a-b", Ordering::Equal),
            ("a b", Ordering::Equal),
            ("a%b", Ordering::Equal),
            ("a\u{2014}b", Ordering::Equal),
            ("a$b", Ordering::Less),
            ("a`b", Ordering::Less),
            ("a~b", Ordering::Less),
        ] {
            assert_eq!(compare(word, "ab", shifted), order, "{word:?}");
        }
    }

    #[test]
    fn the_ascii_table_agrees_with_the_general_path() {
        let words = [
            "", "a", "A", "ab", "aB", "Ab", "a b", "a-b", "a_b", "a1", "a10", "a9", "item-2", "item-10", "Item-2",
            "#x", "$x", "@x", "x!", "x?", "~", "zz", "Z",
        ];
        for (case, upper_first) in [(true, false), (false, false), (true, true)] {
            for a in words {
                for b in words {
                    let general = {
                        let level = |key: fn(&super::Element) -> u32| {
                            super::elements(super::Chars::of(a), false)
                                .map(|e| key(&e))
                                .cmp(super::elements(super::Chars::of(b), false).map(|e| key(&e)))
                        };
                        let o = level(|e| e.primary).then_with(|| level(|e| e.secondary));
                        if case && upper_first {
                            o.then_with(|| level(|e| super::tertiary_key(e.tertiary, true)))
                        } else if case {
                            o.then_with(|| level(|e| u32::from(e.tertiary)))
                        } else {
                            o
                        }
                    };
                    assert_eq!(
                        super::compare_ascii(a.as_bytes(), b.as_bytes(), case, upper_first),
                        Some(general),
                        "{a:?} {b:?} case={case} upper_first={upper_first}"
                    );
                }
            }
        }
    }

    /// The comparison as it was before it streamed: every level over the
    /// whole element lists, the string decomposed once per level.
    fn by_levels(a: &str, b: &str, o: Options) -> Ordering {
        let kept = |e: &super::Element| !(o.ignore_punctuation && super::is_variable(e.primary));
        let level = |key: &dyn Fn(&super::Element) -> u32| {
            super::elements(super::Chars::of(a), o.numeric)
                .filter(kept)
                .map(|e| key(&e))
                .cmp(
                    super::elements(super::Chars::of(b), o.numeric)
                        .filter(kept)
                        .map(|e| key(&e)),
                )
        };
        let mut order = level(&|e| e.primary);
        if o.accents {
            order = order.then_with(|| level(&|e| e.secondary));
        }
        if o.case && o.accents {
            order = order.then_with(|| level(&|e| super::tertiary_key(e.tertiary, o.upper_first)));
        } else if o.case {
            order = order.then_with(|| level(&|e| super::tertiary_key(e.tertiary & 1, o.upper_first)));
        }
        order
    }

    #[test]
    fn streaming_levels_agree_with_whole_levels_for_every_option() {
        let words = [
            "",
            "a",
            "A",
            "ab",
            "aB",
            "a b",
            "a-b",
            "co-op",
            "coop",
            "a1",
            "a01",
            "a10",
            "a9",
            "x2y",
            "x10y",
            "é",
            "e\u{301}",
            "E",
            "É",
            "résumé",
            "Resume",
            "rèsumé",
            "Zoë12",
            "Zoe12",
            "zoe12",
            "Émile7",
            "emile7",
            "æ",
            "ae",
            "Æsir",
            "ß",
            "ss",
            "SS",
            "ø",
            "o",
            "ł",
            "Ólafur",
            "olafur",
            "naïve",
            "naive",
            "Ωmega",
            "ωmega",
            "Жук",
            "жук",
            "a\u{2014}b",
            "a$b",
            "\u{a0}x",
            " x",
            "¹",
            "1",
            "ﬁ",
            "fi",
            "한국",
            "日本",
        ];
        for flags in 0..32 {
            let o = Options::from_flags(flags);
            assert_eq!(o.to_flags(), flags);
            for a in words {
                for b in words {
                    assert_eq!(compare(a, b, o), by_levels(a, b, o), "{a:?} {b:?} {o:?}");
                }
            }
        }
    }
}
