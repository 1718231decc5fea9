//! `Number.prototype.toLocaleString`: ported from the Boa runtime's patch
//! (`vendor/boa_engine/src/builtins/number/locale_format.rs`); the prelude
//! reads the locale and the options (with the same errors) and passes
//! them here. QuickJS-ng, like Boa, returns `ToString(x)` (`"1234567.891"`), where Node, Bun and
//! browsers format with ICU (`"1,234,567.891"`); workflow scripts write
//! figures into reports that way. Bundling ICU's number data would grow the
//! runtime by megabytes, so this formats as ICU does for `en-US`, checked
//! against Node 20:
//!
//! - grouping by thousands, at most 3 fraction digits by default, rounding
//!   half away from zero on the number's shortest decimal form (as ICU:
//!   `(1.005).toLocaleString(undefined, {maximumFractionDigits: 2})` is
//!   `"1.01"`, where `toFixed(2)` gives `"1.00"`);
//! - the options `minimumFractionDigits`, `maximumFractionDigits`,
//!   `minimumIntegerDigits`, `useGrouping`, `style` (`decimal`, `percent`,
//!   `currency` with `currency`; USD `$`, EUR `€`, GBP `£`, JPY `¥` with no
//!   decimals, any other code before the number);
//! - for a locale whose language writes `1.234,5` (`de`, `es`, `it`, `nl`,
//!   `pt`, `id`, `tr`, `da`) or `1 234,5` (`fr` with U+202F; `ru`, `uk`,
//!   `pl`, `cs`, `sv`, `nb`, `fi` with U+00A0), those separators, with `%`
//!   and the currency after the number; every other locale is `en-US`.

use serde_json::Value;

/// How a locale writes a number.
struct Separators {
    decimal: char,
    group: char,
    /// `1.234,50 €` and `25 %` rather than `€1,234.50` and `25%`.
    suffix: bool,
}

impl Separators {
    /// By the locale tag's language (`""` for none).
    fn of(tag: &str) -> Self {
        let language = tag.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match language.as_str() {
            "de" | "es" | "it" | "nl" | "pt" | "id" | "tr" | "da" => Self {
                decimal: ',',
                group: '.',
                suffix: true,
            },
            "fr" => Self {
                decimal: ',',
                group: '\u{202f}',
                suffix: true,
            },
            "ru" | "uk" | "pl" | "cs" | "sv" | "nb" | "fi" => Self {
                decimal: ',',
                group: '\u{a0}',
                suffix: true,
            },
            _ => Self {
                decimal: '.',
                group: ',',
                suffix: false,
            },
        }
    }
}

/// What the options ask for.
struct Format {
    min_fraction: usize,
    max_fraction: usize,
    min_integer: usize,
    grouping: bool,
    percent: bool,
    currency: Option<String>,
}

impl Format {
    /// From the prelude's checked options (`{minFraction, maxFraction,
    /// minInteger, grouping, percent, currency}`).
    fn of(options: &Value) -> Self {
        let n = |k: &str, d: usize| {
            options
                .get(k)
                .and_then(Value::as_u64)
                .map_or(d, |v| usize::try_from(v).unwrap_or(d))
        };
        Self {
            min_fraction: n("minFraction", 0),
            max_fraction: n("maxFraction", 3),
            min_integer: n("minInteger", 1),
            grouping: options.get("grouping").and_then(Value::as_bool).unwrap_or(true),
            percent: options.get("percent").and_then(Value::as_bool).unwrap_or(false),
            currency: options.get("currency").and_then(Value::as_str).map(str::to_owned),
        }
    }
}

/// `x.toLocaleString(locales, options)` (see the module's docs).
pub fn to_locale_string(x: f64, tag: &str, options: &Value) -> String {
    let separators = Separators::of(tag);
    let format = Format::of(options);
    let negative = x.is_sign_negative() && !x.is_nan();
    let body = if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        "∞".to_owned()
    } else {
        let (digits, point) = shortest_decimal(x.abs());
        let point = if format.percent { point + 2 } else { point };
        let (int, frac) = round_half_expand(&digits, point, format.max_fraction);
        let mut frac = frac;
        while frac.len() > format.min_fraction && frac.ends_with('0') {
            frac.pop();
        }
        while frac.len() < format.min_fraction {
            frac.push('0');
        }
        let int = if int.len() < format.min_integer {
            format!("{}{int}", "0".repeat(format.min_integer - int.len()))
        } else {
            int
        };
        let mut out = if format.grouping {
            group(&int, separators.group)
        } else {
            int
        };
        if !frac.is_empty() {
            out.push(separators.decimal);
            out.push_str(&frac);
        }
        out
    };
    let sign = if negative { "-" } else { "" };
    match (&format.currency, format.percent, separators.suffix) {
        (Some(code), _, false) => format!("{sign}{}{body}", currency_prefix(code)),
        (Some(code), _, true) => format!("{sign}{body}\u{a0}{}", currency_symbol(code).unwrap_or(code)),
        (None, true, false) => format!("{sign}{body}%"),
        (None, true, true) => format!("{sign}{body}\u{a0}%"),
        (None, false, _) => format!("{sign}{body}"),
    }
}

fn currency_symbol(code: &str) -> Option<&'static str> {
    Some(match code {
        "USD" => "$",
        "EUR" => "€",
        "GBP" => "£",
        "JPY" => "¥",
        "INR" => "₹",
        _ => return None,
    })
}

/// `$` before the number, or `CHF ` (with a no-break space) for a code
/// without a symbol, as ICU's `en` writes them.
fn currency_prefix(code: &str) -> String {
    currency_symbol(code).map_or_else(|| format!("{code}\u{a0}"), str::to_owned)
}

/// The shortest decimal digits of a finite `x >= 0` and where the decimal
/// point goes: `x = 0.d1d2… × 10^point`.
fn shortest_decimal(x: f64) -> (String, i32) {
    if x == 0.0 {
        return ("0".to_owned(), 1);
    }
    // `{:e}` prints the shortest digits that read back as `x`: "1.005e0".
    let text = format!("{x:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent + 1)
}

/// Rounds `0.digits × 10^point` to `max_fraction` fraction digits, half away
/// from zero; the integer and fraction digits.
fn round_half_expand(digits: &str, point: i32, max_fraction: usize) -> (String, String) {
    // Digits of the whole number with `point` before index `point`.
    let mut all: Vec<u8> = digits.bytes().map(|b| b - b'0').collect();
    let mut point = point;
    if point <= 0 {
        let pad = usize::try_from(-point).unwrap_or(0) + 1;
        all.splice(0..0, std::iter::repeat_n(0, pad));
        point += i32::try_from(pad).unwrap_or(0);
    }
    let int_len = usize::try_from(point).unwrap_or(0);
    if all.len() < int_len {
        all.resize(int_len, 0);
    }
    let keep = int_len + max_fraction;
    if all.len() > keep {
        let round_up = all[keep] >= 5;
        all.truncate(keep);
        if round_up {
            let mut i = keep;
            loop {
                if i == 0 {
                    all.insert(0, 1);
                    point += 1;
                    break;
                }
                i -= 1;
                if all[i] == 9 {
                    all[i] = 0;
                } else {
                    all[i] += 1;
                    break;
                }
            }
        }
    }
    let int_len = usize::try_from(point).unwrap_or(0).min(all.len());
    let to_text = |d: &[u8]| d.iter().map(|&d| char::from(b'0' + d)).collect::<String>();
    let mut int = to_text(&all[..int_len]);
    let trimmed = int.trim_start_matches('0').len();
    int = if trimmed == 0 {
        "0".to_owned()
    } else {
        int[int.len() - trimmed..].to_owned()
    };
    (int, to_text(&all[int_len..]))
}

/// `1234567` → `1,234,567` with `sep`.
fn group(int: &str, sep: char) -> String {
    let mut out = String::with_capacity(int.len() + int.len() / 3 * 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{group, round_half_expand, shortest_decimal};

    fn fixed(x: f64, max: usize) -> String {
        let (d, p) = shortest_decimal(x);
        let (i, f) = round_half_expand(&d, p, max);
        if f.is_empty() { i } else { format!("{i}.{f}") }
    }

    #[test]
    fn rounds_the_shortest_decimal_half_away_from_zero() {
        assert_eq!(fixed(1.005, 2), "1.01");
        assert_eq!(fixed(1234567.891, 3), "1234567.891");
        assert_eq!(fixed(0.0001234, 3), "0.000");
        assert_eq!(fixed(9.9996, 3), "10.000");
        assert_eq!(fixed(0.5, 0), "1");
        assert_eq!(fixed(1e21, 0), "1000000000000000000000");
        assert_eq!(group("1234567", ','), "1,234,567");
        assert_eq!(group("123", ','), "123");
    }
}
