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
//! - ECMA-402's `roundingMode` (all nine; Node 20's V8 honours it),
//!   `roundingIncrement` (`$1.25` for 1.23 by 5) and
//!   `trailingZeroDisplay: "stripIfInteger"` (`$5`, `$5.50`); the prelude
//!   writes units, parts and ranges around these digits;
//! - for a locale whose language writes `1.234,5` (`de`, `es`, `it`, `nl`,
//!   `pt`, `id`, `tr`, `da`) or `1 234,5` (`fr` with U+202F; `ru`, `uk`,
//!   `pl`, `cs`, `sv`, `nb`, `fi` with U+00A0), those separators, with `%`
//!   and the currency after the number; every other locale is `en-US`;
//! - CLDR's minimum grouping digits of 2 for `es`, `it`, `pl` and `pt-PT`
//!   (`1234,5` but `12.345,6`), Indian grouping for `en-IN` and `hi-IN`
//!   (`1,23,45,678.9`), Japanese's full-width yen (`￥1,235`), `25%` without
//!   a space in `it`, `nl`, `pl`, `pt`, and the minus sign U+2212 of
//!   Swedish, Norwegian and Finnish;
//! - ICU's currency symbols per language (`CA$`, `US$`, `$US`, `￥`) and
//!   their places (`€ -1.234,50` in Dutch, `-US$ 1.234,50` in Brazilian
//!   Portuguese, `-€1.234,50` in Indonesian and Turkish).

use serde_json::Value;

/// How a locale writes a number.
struct Separators {
    decimal: char,
    group: char,
    /// `1.234,50 €` and `25 %` rather than `€1,234.50` and `25%`.
    suffix: bool,
    /// The fewest integer digits that are grouped: 2 makes `1234` stay
    /// ungrouped (CLDR's `minimumGroupingDigits`).
    min_grouping: usize,
    /// Groups of two above the first three digits (`1,23,45,678`).
    indian: bool,
    /// `25 %` (a no-break space before the sign) rather than `25%`.
    percent_space: bool,
    /// The minus sign (Swedish writes U+2212).
    minus: &'static str,
    /// English's region (`GB`, `CA`, `AU`, `IN`: their own currency
    /// symbols), empty for another language.
    english_region: String,
    /// The tag's language, lower case (`""` for none).
    language: String,
    /// The tag's region, upper case (`""` for none).
    region: String,
    /// The grouping separator of an amount of money, where the region's
    /// differs from its numbers' (Austria: `1 234,5` but `€ 1.234,50`).
    currency_group: char,
}

impl Separators {
    /// By the locale tag's language (`""` for none).
    fn of(tag: &str) -> Self {
        let mut subtags = tag.split(['-', '_']);
        let language = subtags.next().unwrap_or("").to_ascii_lowercase();
        let region = subtags
            .find(|s| s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic()))
            .unwrap_or("")
            .to_ascii_uppercase();
        let (decimal, group, suffix) = match (language.as_str(), region.as_str()) {
            // Switzerland and Liechtenstein: `1'234.5`, `CHF 1'234.50`.
            ("de" | "it", "CH" | "LI") => ('.', '\'', false),
            // Austria: `1 234,5`, `€ 1.234,50`.
            ("de", "AT") => (',', '\u{a0}', false),
            ("fr", "CA") => (',', '\u{a0}', true),
            // Mexico: `1,234.5`, `-$1,234.50`, `-EUR 1,234.50`.
            ("es", "MX") => ('.', ',', false),
            _ => match language.as_str() {
                "pt" if region == "PT" => (',', '\u{a0}', true),
                "de" | "es" | "it" | "nl" | "pt" | "id" | "tr" | "da" => (',', '.', true),
                "fr" => (',', '\u{202f}', true),
                "ru" | "uk" | "pl" | "cs" | "sv" | "nb" | "fi" => (',', '\u{a0}', true),
                _ => ('.', ',', false),
            },
        };
        let min_grouping = match language.as_str() {
            "es" if region == "MX" => 1,
            "es" | "it" | "pl" => 2,
            "pt" if region == "PT" => 2,
            _ => 1,
        };
        Self {
            decimal,
            group,
            suffix,
            min_grouping,
            indian: region == "IN" && (language == "en" || language == "hi"),
            english_region: if language == "en" {
                region.clone()
            } else {
                String::new()
            },
            language: if language.is_empty() {
                "en".to_owned()
            } else {
                language.clone()
            },
            percent_space: (suffix && !matches!(language.as_str(), "it" | "nl" | "pl" | "pt"))
                || (language == "de" && region == "AT"),
            currency_group: if language == "de" && region == "AT" { '.' } else { group },
            region: region.clone(),
            minus: if matches!(language.as_str(), "sv" | "nb" | "fi") {
                "\u{2212}"
            } else {
                "-"
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
    /// `useGrouping: "always"` (1) or `"min2"` (2) over the locale's
    /// minimum grouping digits (`"auto"`: `None`).
    min_grouping: Option<usize>,
    percent: bool,
    currency: Option<String>,
    /// `currencyDisplay: "narrowSymbol"` (`$` for CAD).
    narrow: bool,
    /// ECMA-402's `roundingMode` (`halfExpand` by default).
    rounding: Rounding,
    /// `trailingZeroDisplay: "stripIfInteger"`: no fraction digits when
    /// the rounded number is whole (`$5`, `$5.50`).
    strip_if_integer: bool,
    /// ECMA-402's `roundingIncrement`: rounds to a multiple of this many
    /// units of the last fraction digit (`5` with two digits: `$1.25`).
    increment: u64,
}

/// How the digits past the last one shown round (ECMA-402's
/// `roundingMode`, which Node 20's V8 honours).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    Ceil,
    Floor,
    Expand,
    Trunc,
    HalfCeil,
    HalfFloor,
    HalfExpand,
    HalfTrunc,
    HalfEven,
}

impl Rounding {
    /// By ECMA-402's name; `halfExpand` for anything else (the prelude has
    /// refused unknown names with V8's RangeError).
    fn of(name: &str) -> Self {
        match name {
            "ceil" => Self::Ceil,
            "floor" => Self::Floor,
            "expand" => Self::Expand,
            "trunc" => Self::Trunc,
            "halfCeil" => Self::HalfCeil,
            "halfFloor" => Self::HalfFloor,
            "halfTrunc" => Self::HalfTrunc,
            "halfEven" => Self::HalfEven,
            _ => Self::HalfExpand,
        }
    }

    /// Whether the magnitude goes up to the next kept digit, given the
    /// first dropped digit, whether any later dropped digit is non-zero,
    /// the last kept digit and the number's sign.
    fn rounds_up(self, first: u8, rest: bool, last: u8, negative: bool) -> bool {
        if first == 0 && !rest {
            return false;
        }
        let half = match (first.cmp(&5), rest) {
            (std::cmp::Ordering::Less, _) => std::cmp::Ordering::Less,
            (std::cmp::Ordering::Equal, false) => std::cmp::Ordering::Equal,
            _ => std::cmp::Ordering::Greater,
        };
        match self {
            Self::Ceil => !negative,
            Self::Floor => negative,
            Self::Expand => true,
            Self::Trunc => false,
            _ if half == std::cmp::Ordering::Less => false,
            _ if half == std::cmp::Ordering::Greater => true,
            Self::HalfCeil => !negative,
            Self::HalfFloor => negative,
            Self::HalfExpand => true,
            Self::HalfTrunc => false,
            Self::HalfEven => last % 2 == 1,
        }
    }
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
            min_grouping: match options.get("grouping").and_then(Value::as_str) {
                Some("always") => Some(1),
                Some("min2") => Some(2),
                _ => None,
            },
            percent: options.get("percent").and_then(Value::as_bool).unwrap_or(false),
            currency: options.get("currency").and_then(Value::as_str).map(str::to_owned),
            narrow: options.get("narrow").and_then(Value::as_bool).unwrap_or(false),
            rounding: Rounding::of(
                options
                    .get("roundingMode")
                    .and_then(Value::as_str)
                    .unwrap_or("halfExpand"),
            ),
            increment: options
                .get("roundingIncrement")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1),
            strip_if_integer: options.get("trailingZeroDisplay").and_then(Value::as_str) == Some("stripIfInteger"),
        }
    }
}

/// `x.toLocaleString(locales, options)` (see the module's docs).
pub fn to_locale_string(x: f64, tag: &str, options: &Value) -> String {
    let (separators, format) = (Separators::of(tag), Format::of(options));
    let symbol = symbol_of(&separators, &format);
    render(x, &separators, &format, symbol)
}

/// The currency's symbol as the locale writes it, if the format has one.
fn symbol_of<'a>(separators: &Separators, format: &'a Format) -> Option<&'a str> {
    format.currency.as_deref().map(|code| {
        regional_symbol(code, &separators.language, &separators.region, format.narrow)
            .unwrap_or_else(|| currency_symbol(code, &separators.language, &separators.english_region, format.narrow))
    })
}

/// How many (tag, options) pairs the plans hold at most: a script that
/// makes more distinct formats has the rest parsed each time.
const PLANS_KEPT: usize = 4096;

/// A (tag, options text) pair as parsed: what [`render`] needs.
struct Plan {
    separators: Separators,
    format: Format,
    /// The currency's symbol ([`symbol_of`]).
    symbol: Option<String>,
}

/// The pairs parsed so far, each once: a report formats thousands of
/// numbers with a few formats. A plan's number is its index.
#[derive(Default)]
struct Plans {
    list: Vec<Plan>,
    /// `tag`, NUL, the options text → index in `list`.
    index: std::collections::HashMap<String, u32>,
}

thread_local! {
    static PLANS: std::cell::RefCell<Plans> = std::cell::RefCell::new(Plans::default());
}

/// The number of the plan of `tag` and the prelude's options text (read
/// by `parse`), made on first use; `None` once [`PLANS_KEPT`] are made.
pub fn number_plan(tag: &str, options: &str, parse: impl FnOnce(&str) -> Value) -> Option<u32> {
    let key = format!("{tag}\0{options}");
    PLANS.with(|plans| {
        let mut plans = plans.borrow_mut();
        if let Some(&id) = plans.index.get(&key) {
            return Some(id);
        }
        if plans.list.len() >= PLANS_KEPT {
            return None;
        }
        let id = u32::try_from(plans.list.len()).ok()?;
        let (separators, format) = (Separators::of(tag), Format::of(&parse(options)));
        let symbol = symbol_of(&separators, &format).map(str::to_owned);
        plans.list.push(Plan {
            separators,
            format,
            symbol,
        });
        plans.index.insert(key, id);
        Some(id)
    })
}

/// `x` formatted by the plan numbered `id` ([`number_plan`]); `None` for
/// a number no plan has.
pub fn format_with_plan(x: f64, id: u32) -> Option<String> {
    PLANS.with(|plans| {
        let plans = plans.borrow();
        let plan = plans.list.get(usize::try_from(id).ok()?)?;
        Some(render(x, &plan.separators, &plan.format, plan.symbol.as_deref()))
    })
}

/// [`to_locale_string`] with the options as the prelude's JSON text (read
/// by `parse`), by the pair's plan (the result is the same: parsing is
/// pure); parsed each time once the plans are full.
pub fn to_locale_string_cached(x: f64, tag: &str, options: &str, parse: impl Fn(&str) -> Value) -> String {
    match number_plan(tag, options, &parse).and_then(|id| format_with_plan(x, id)) {
        Some(text) => text,
        None => to_locale_string(x, tag, &parse(options)),
    }
}

/// `x` written with a locale's separators in a format.
fn render(x: f64, separators: &Separators, format: &Format, symbol: Option<&str>) -> String {
    let negative = x.is_sign_negative() && !x.is_nan();
    let body = if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        "∞".to_owned()
    } else {
        let (digits, point) = shortest_decimal(x.abs());
        let point = if format.percent { point + 2 } else { point };
        let rounded = if format.increment > 1 {
            round_to_increment(
                &digits,
                point,
                format.max_fraction,
                format.increment,
                format.rounding,
                negative,
            )
        } else {
            None
        };
        let (int, frac) =
            rounded.unwrap_or_else(|| round_digits(&digits, point, format.max_fraction, format.rounding, negative));
        let mut frac = frac;
        let min_fraction = if format.strip_if_integer && frac.bytes().all(|b| b == b'0') {
            0
        } else {
            format.min_fraction
        };
        while frac.len() > min_fraction && frac.ends_with('0') {
            frac.pop();
        }
        while frac.len() < min_fraction {
            frac.push('0');
        }
        let int = if int.len() < format.min_integer {
            format!("{}{int}", "0".repeat(format.min_integer - int.len()))
        } else {
            int
        };
        let min_grouping = format.min_grouping.unwrap_or(separators.min_grouping);
        let mut out = if !format.grouping || int.len() < 3 + min_grouping {
            int
        } else if separators.indian {
            group_indian(&int, separators.group)
        } else if format.currency.is_some() {
            group(&int, separators.currency_group)
        } else {
            group(&int, separators.group)
        };
        if !frac.is_empty() {
            out.push(separators.decimal);
            out.push_str(&frac);
        }
        out
    };
    let sign = if negative { separators.minus } else { "" };
    match (symbol, format.percent, separators.suffix) {
        (Some(symbol), _, _) => {
            match (separators.language.as_str(), separators.region.as_str()) {
                // `CHF 1'234.50`, `CHF-1'234.50` (Liechtenstein `-CHF 1'234.50`).
                ("de" | "it", "CH") if negative => format!("{symbol}-{body}"),
                ("de" | "it", "CH" | "LI") | ("de", "AT") => format!("{sign}{symbol}\u{a0}{body}"),
                _ => match separators.language.as_str() {
                    // `€ -1.234,50` (Dutch), `-US$ 1.234,50` (Brazilian Portuguese).
                    "nl" => format!("{symbol}\u{a0}{sign}{body}"),
                    // Portugal's (grouped by spaces) is after the number.
                    "pt" if separators.group == '.' => format!("{sign}{symbol}\u{a0}{body}"),
                    "id" | "tr" => format!("{sign}{}{body}", spaced(symbol)),
                    _ if separators.suffix => format!("{sign}{body}\u{a0}{symbol}"),
                    _ => format!("{sign}{}{body}", spaced(symbol)),
                },
            }
        }
        // Turkish writes `%25`.
        (None, true, _) if separators.language == "tr" => format!("{sign}%{body}"),
        (None, true, _) if separators.percent_space => format!("{sign}{body}\u{a0}%"),
        (None, true, _) => format!("{sign}{body}%"),
        (None, false, _) if sign.is_empty() => body,
        (None, false, _) => format!("{sign}{body}"),
    }
}

/// ICU's English currency symbols (Node 20's `en-US`, every code whose
/// symbol is not the code itself).
const EN_SYMBOLS: &[(&str, &str)] = &[
    ("AUD", "A$"),
    ("BRL", "R$"),
    ("CAD", "CA$"),
    ("CNY", "CN¥"),
    ("EUR", "€"),
    ("GBP", "£"),
    ("HKD", "HK$"),
    ("ILS", "₪"),
    ("INR", "₹"),
    ("JPY", "¥"),
    ("KRW", "₩"),
    ("MXN", "MX$"),
    ("NZD", "NZ$"),
    ("PHP", "₱"),
    ("TWD", "NT$"),
    ("USD", "$"),
    ("VND", "₫"),
    ("XAF", "FCFA"),
    ("XCD", "EC$"),
    ("XCG", "Cg."),
    ("XOF", "F CFA"),
    ("XPF", "CFPF"),
];
/// ICU's English narrow symbols where they differ from the symbols.
const EN_NARROW: &[(&str, &str)] = &[
    ("AFN", "؋"),
    ("AMD", "֏"),
    ("AOA", "Kz"),
    ("ARS", "$"),
    ("AUD", "$"),
    ("AZN", "₼"),
    ("BAM", "KM"),
    ("BBD", "$"),
    ("BDT", "৳"),
    ("BMD", "$"),
    ("BND", "$"),
    ("BOB", "Bs"),
    ("BSD", "$"),
    ("BWP", "P"),
    ("BZD", "$"),
    ("CAD", "$"),
    ("CLP", "$"),
    ("CNY", "¥"),
    ("COP", "$"),
    ("CRC", "₡"),
    ("CUC", "$"),
    ("CUP", "$"),
    ("CZK", "Kč"),
    ("DKK", "kr"),
    ("DOP", "$"),
    ("EGP", "E£"),
    ("FJD", "$"),
    ("FKP", "£"),
    ("GEL", "₾"),
    ("GHS", "GH₵"),
    ("GIP", "£"),
    ("GNF", "FG"),
    ("GTQ", "Q"),
    ("GYD", "$"),
    ("HKD", "$"),
    ("HNL", "L"),
    ("HRK", "kn"),
    ("HUF", "Ft"),
    ("IDR", "Rp"),
    ("ISK", "kr"),
    ("JMD", "$"),
    ("KGS", "⃀"),
    ("KHR", "៛"),
    ("KMF", "CF"),
    ("KPW", "₩"),
    ("KYD", "$"),
    ("KZT", "₸"),
    ("LAK", "₭"),
    ("LBP", "L£"),
    ("LKR", "Rs"),
    ("LRD", "$"),
    ("MGA", "Ar"),
    ("MMK", "K"),
    ("MNT", "₮"),
    ("MUR", "Rs"),
    ("MXN", "$"),
    ("MYR", "RM"),
    ("NAD", "$"),
    ("NGN", "₦"),
    ("NIO", "C$"),
    ("NOK", "kr"),
    ("NPR", "Rs"),
    ("NZD", "$"),
    ("PKR", "Rs"),
    ("PLN", "zł"),
    ("PYG", "₲"),
    ("RON", "lei"),
    ("RUB", "₽"),
    ("RWF", "RF"),
    ("SBD", "$"),
    ("SEK", "kr"),
    ("SGD", "$"),
    ("SHP", "£"),
    ("SRD", "$"),
    ("SSP", "£"),
    ("STN", "Db"),
    ("SYP", "£"),
    ("THB", "฿"),
    ("TOP", "T$"),
    ("TRY", "₺"),
    ("TTD", "$"),
    ("TWD", "$"),
    ("UAH", "₴"),
    ("UYU", "$"),
    ("XCD", "$"),
    ("ZAR", "R"),
    ("ZMW", "ZK"),
];

/// A currency's symbol as ICU writes it in `language` (`$`, `CA$`, `$US`,
/// the code when there is none), for English's `region` (`US$` in Britain
/// and Canada, codes in Australia) and the narrow forms (English's).
fn currency_symbol<'a>(code: &'a str, language: &str, region: &str, narrow: bool) -> &'a str {
    let find = |table: &[(&str, &'static str)]| table.iter().find(|(c, _)| *c == code).map(|(_, s)| *s);
    let regional = match (region, code) {
        _ if narrow || language != "en" => None,
        ("GB" | "CA", "USD") => Some("US$"),
        ("GB" | "CA" | "IN", "JPY") => Some("JP\u{a5}"),
        ("CA", "CAD") | ("AU", "AUD") => Some("$"),
        ("CA", "XCG") => Some("Cg"),
        ("AU", "SCR") => Some("Rs"),
        ("AU", "XPF") => Some("CFP"),
        ("AU", _) => Some(code),
        _ => None,
    };
    regional
        .or_else(|| if narrow { find(EN_NARROW) } else { None })
        .or_else(|| match language_symbols(language) {
            None => find(EN_SYMBOLS),
            Some((own, based)) => match own.iter().find(|(c, _)| *c == code) {
                Some((_, symbol)) => *symbol,
                None if based => find(COMMON_SYMBOLS),
                None => None,
            },
        })
        .unwrap_or(code)
}

/// Where a region's symbols differ from its language's (ICU, Node 20):
/// Canadian French (`$` for CAD, `$ US`, codes for most dollars and
/// pounds) and the Swiss German `EUR`.
fn regional_symbol<'a>(code: &'a str, language: &str, region: &str, narrow: bool) -> Option<&'a str> {
    if narrow {
        return None;
    }
    match (language, region) {
        ("de", "CH" | "LI") => (code == "EUR").then_some(code),
        ("es", "MX") => Some(match code {
            "MRU" => "UM",
            "MXN" => "$",
            "XCG" => "Cg.",
            "XPF" => "CFPF",
            _ => code,
        }),
        ("fr", "CA") => match code {
            "AUD" => Some("$\u{a0}AU"),
            "CAD" => Some("$"),
            "CNY" => Some("CN¥"),
            "GBP" => Some("£"),
            "HKD" => Some("$\u{a0}HK"),
            "JPY" => Some("¥"),
            "NZD" => Some("$\u{a0}NZ"),
            "SGD" => Some("$\u{a0}SG"),
            "USD" => Some("$\u{a0}US"),
            "ARS" | "BMD" | "BND" | "BZD" | "CLP" | "COP" | "FJD" | "FKP" | "GIP" | "ILS" | "INR" | "KRW" | "LBP"
            | "MXN" | "NAD" | "SBD" | "SRD" | "TTD" | "UYU" | "VND" | "WST" | "XAF" | "XOF" | "XPF" => Some(code),
            _ => None,
        },
        _ => None,
    }
}

/// A symbol before the number: ICU's currency spacing puts a no-break
/// space after a letter (`CHF 5.00`, `Cg. 5.00`), none after a sign
/// (`$5.00`).
fn spaced(symbol: &str) -> String {
    if symbol.ends_with(|c: char| c.is_alphabetic() || c == '.') {
        format!("{symbol}\u{a0}")
    } else {
        symbol.to_owned()
    }
}

/// A language's own symbols (`None`: the code) and whether the rest are
/// [`COMMON_SYMBOLS`].
type LanguageSymbols = (&'static [(&'static str, Option<&'static str>)], bool);

/// The symbols most of the other languages share (ICU, Node 20); a
/// language based on them lists only where it differs.
const COMMON_SYMBOLS: &[(&str, &str)] = &[
    ("BRL", "R$"),
    ("CAD", "CA$"),
    ("CNY", "CN¥"),
    ("EUR", "€"),
    ("GBP", "£"),
    ("HKD", "HK$"),
    ("ILS", "₪"),
    ("INR", "₹"),
    ("KRW", "₩"),
    ("MXN", "MX$"),
    ("NZD", "NZ$"),
    ("THB", "฿"),
    ("TWD", "NT$"),
    ("VND", "₫"),
    ("XAF", "FCFA"),
    ("XCD", "EC$"),
    ("XCG", "Cg."),
    ("XOF", "F\u{202f}CFA"),
    ("XPF", "CFPF"),
];

/// ICU's currency symbols for a language other than English (Node 20):
/// its own entries (`None`: the code itself) and whether the others come
/// from [`COMMON_SYMBOLS`]; `None` for English and a language not listed,
/// which have English's.
fn language_symbols(language: &str) -> Option<LanguageSymbols> {
    Some(match language {
        "de" => (&[("AUD", Some("AU$")), ("JPY", Some("¥")), ("USD", Some("$"))], true),
        "es" => (
            &[
                ("EUR", Some("€")),
                ("THB", Some("฿")),
                ("USD", Some("US$")),
                ("VND", Some("₫")),
                ("XCG", Some("Cg.")),
                ("XPF", Some("CFPF")),
            ],
            false,
        ),
        "it" => (
            &[
                ("AUD", Some("A$")),
                ("BRL", None),
                ("HKD", None),
                ("INR", None),
                ("KRW", None),
                ("MXN", None),
                ("PHP", Some("₱")),
                ("TWD", None),
                ("VND", None),
                ("XCG", Some("Cf")),
            ],
            true,
        ),
        "nl" => (
            &[
                ("AUD", Some("AU$")),
                ("CAD", Some("C$")),
                ("FJD", Some("FJ$")),
                ("JPY", Some("JP¥")),
                ("SBD", Some("SI$")),
                ("USD", Some("US$")),
                ("XPF", None),
                ("ZWG", Some("ZiG")),
            ],
            true,
        ),
        "pt" => (
            &[("AUD", Some("AU$")), ("JPY", Some("JP¥")), ("USD", Some("US$"))],
            true,
        ),
        "id" => (
            &[
                ("AUD", Some("AU$")),
                ("IDR", Some("Rp")),
                ("INR", Some("Rs")),
                ("JPY", Some("JP¥")),
                ("USD", Some("US$")),
            ],
            true,
        ),
        "tr" => (
            &[
                ("AUD", Some("AU$")),
                ("JPY", Some("¥")),
                ("TRY", Some("₺")),
                ("USD", Some("$")),
            ],
            true,
        ),
        "da" => (
            &[
                ("AUD", Some("AU$")),
                ("DKK", Some("kr.")),
                ("JPY", Some("JP¥")),
                ("USD", Some("US$")),
            ],
            true,
        ),
        "fr" => (
            &[
                ("ARS", Some("$AR")),
                ("AUD", Some("$AU")),
                ("BMD", Some("$BM")),
                ("BND", Some("$BN")),
                ("BZD", Some("$BZ")),
                ("CAD", Some("$CA")),
                ("CLP", Some("$CL")),
                ("CNY", None),
                ("COP", Some("$CO")),
                ("FJD", Some("$FJ")),
                ("FKP", Some("£FK")),
                ("GBP", Some("£GB")),
                ("GIP", Some("£GI")),
                ("HKD", None),
                ("LBP", Some("£LB")),
                ("MXN", Some("$MX")),
                ("NAD", Some("$NA")),
                ("NZD", Some("$NZ")),
                ("SBD", Some("$SB")),
                ("SGD", Some("$SG")),
                ("SRD", Some("$SR")),
                ("THB", None),
                ("TTD", Some("$TT")),
                ("TWD", None),
                ("USD", Some("$US")),
                ("UYU", Some("$UY")),
                ("WST", Some("$WS")),
                ("XCD", None),
                ("XPF", Some("FCFP")),
            ],
            true,
        ),
        "ru" => (
            &[
                ("AUD", Some("A$")),
                ("JPY", Some("¥")),
                ("RUB", Some("₽")),
                ("TMT", Some("ТМТ")),
                ("UAH", Some("₴")),
                ("USD", Some("$")),
                ("XCG", Some("Cg")),
            ],
            true,
        ),
        "uk" => (
            &[
                ("JPY", Some("¥")),
                ("UAH", Some("₴")),
                ("XAF", Some("FCFA")),
                ("XCG", Some("Cg.")),
                ("XOF", Some("F\u{202f}CFA")),
                ("XPF", Some("CFPF")),
            ],
            false,
        ),
        "pl" => (
            &[
                ("BRL", Some("R$")),
                ("EUR", Some("€")),
                ("PLN", Some("zł")),
                ("XAF", Some("FCFA")),
                ("XCD", Some("EC$")),
                ("XOF", Some("F\u{202f}CFA")),
                ("XPF", Some("CFPF")),
            ],
            false,
        ),
        "cs" => (
            &[
                ("AUD", Some("AU$")),
                ("CZK", Some("Kč")),
                ("ILS", None),
                ("INR", None),
                ("JPY", Some("JP¥")),
                ("THB", None),
                ("USD", Some("US$")),
                ("VND", None),
            ],
            true,
        ),
        "sv" => (
            &[
                ("BBD", Some("Bds$")),
                ("BMD", Some("BM$")),
                ("BRL", Some("BR$")),
                ("BSD", Some("BS$")),
                ("BZD", Some("BZ$")),
                ("CAD", Some("CA$")),
                ("DKK", Some("Dkr")),
                ("DOP", Some("RD$")),
                ("EGP", Some("EG£")),
                ("EUR", Some("€")),
                ("ILS", Some("₪")),
                ("ISK", Some("Ikr")),
                ("JMD", Some("JM$")),
                ("MXN", Some("MX$")),
                ("NOK", Some("Nkr")),
                ("SEK", Some("kr")),
                ("USD", Some("US$")),
                ("XAF", Some("FCFA")),
                ("XCD", Some("EC$")),
                ("XOF", Some("F\u{202f}CFA")),
                ("XPF", Some("CFPF")),
            ],
            false,
        ),
        "nb" => (
            &[
                ("EUR", Some("€")),
                ("GBP", Some("£")),
                ("NOK", Some("kr")),
                ("XCG", Some("Cg.")),
                ("XOF", Some("F\u{202f}CFA")),
            ],
            false,
        ),
        "fi" => (
            &[
                ("EUR", Some("€")),
                ("GBP", Some("£")),
                ("JPY", Some("¥")),
                ("USD", Some("$")),
                ("XAF", Some("FCFA")),
                ("XCG", Some("Cg.")),
                ("XOF", Some("F\u{202f}CFA")),
            ],
            false,
        ),
        "ja" => (
            &[
                ("AUD", Some("A$")),
                ("CNY", Some("元")),
                ("JPY", Some("￥")),
                ("THB", None),
                ("USD", Some("$")),
                ("XCG", Some("Cg")),
            ],
            true,
        ),
        "zh" => (
            &[
                ("AUD", Some("AU$")),
                ("CNY", Some("¥")),
                ("JPY", Some("JP¥")),
                ("THB", None),
                ("USD", Some("US$")),
            ],
            true,
        ),
        "ko" => (
            &[
                ("AUD", Some("AU$")),
                ("JPY", Some("JP¥")),
                ("THB", None),
                ("USD", Some("US$")),
            ],
            true,
        ),
        "hi" => (&[("AUD", Some("A$")), ("JPY", Some("JP¥")), ("USD", Some("$"))], true),
        _ => return None,
    })
}

/// The shortest decimal digits of a finite `x >= 0` and where the decimal
/// point goes: `x = 0.d1d2… × 10^point`.
fn shortest_decimal(x: f64) -> (String, i32) {
    if x == 0.0 {
        return ("0".to_owned(), 1);
    }
    // `{:e}` prints the shortest digits that read back as `x`: "1.005e0".
    use std::fmt::Write as _;
    let mut text = String::with_capacity(32);
    let _ = write!(text, "{x:e}");
    let (at, exponent) = match text.find('e') {
        Some(at) => (at, text[at + 1..].parse().unwrap_or(0)),
        None => (text.len(), 0),
    };
    text.truncate(at);
    text.retain(|c| c.is_ascii_digit());
    (text, exponent + 1)
}

/// Rounds `0.digits × 10^point` to `max_fraction` fraction digits, half away
/// from zero; the integer and fraction digits.
#[cfg(test)]
fn round_half_expand(digits: &str, point: i32, max_fraction: usize) -> (String, String) {
    round_digits(digits, point, max_fraction, Rounding::HalfExpand, false)
}

/// Rounds `0.digits × 10^point` (of a negative number if `negative`) to
/// `max_fraction` fraction digits as `rounding` says; the integer and
/// fraction digits.
fn round_digits(digits: &str, point: i32, max_fraction: usize, rounding: Rounding, negative: bool) -> (String, String) {
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
        let rest = all[keep + 1..].iter().any(|&d| d != 0);
        let last = if keep == 0 { 0 } else { all[keep - 1] };
        let round_up = rounding.rounds_up(all[keep], rest, last, negative);
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
    let to_text = |d: &[u8]| {
        let mut text = String::with_capacity(d.len() + 4);
        text.extend(d.iter().map(|&d| char::from(b'0' + d)));
        text
    };
    // The integer digits without leading zeros (`0` for none).
    let zeros = all[..int_len].iter().take_while(|&&d| d == 0).count();
    let int = if zeros == int_len {
        "0".to_owned()
    } else {
        to_text(&all[zeros..int_len])
    };
    (int, to_text(&all[int_len..]))
}

/// Rounds `0.digits × 10^point` (of a negative number if `negative`) to a
/// multiple of `increment` units of its `max_fraction`th fraction digit as
/// `rounding` says; the integer and fraction digits, or `None` when the
/// number is too long to scale (then it rounds to the digit).
fn round_to_increment(
    digits: &str,
    point: i32,
    max_fraction: usize,
    increment: u64,
    rounding: Rounding,
    negative: bool,
) -> Option<(String, String)> {
    // `x × 10^max_fraction` = `whole` + `0.rest`.
    let scaled = i64::from(point) + i64::try_from(max_fraction).ok()?;
    let bytes = digits.as_bytes();
    let (whole_digits, rest): (String, String) = if scaled <= 0 {
        (String::new(), "0".repeat(usize::try_from(-scaled).ok()?) + digits)
    } else {
        let at = usize::try_from(scaled).ok()?;
        if at >= bytes.len() {
            (format!("{digits}{}", "0".repeat(at - bytes.len())), String::new())
        } else {
            (digits[..at].to_owned(), digits[at..].to_owned())
        }
    };
    let whole: u128 = if whole_digits.is_empty() {
        0
    } else {
        whole_digits.parse().ok()?
    };
    let step = u128::from(increment);
    let (q, r) = (whole / step, whole % step);
    let rest = rest.trim_end_matches('0');
    let (first, tail) = match rest.as_bytes().split_first() {
        Some((&f, t)) => (f - b'0', t.iter().any(|&d| d != b'0')),
        None => (0, false),
    };
    // `2 × (r + 0.rest)` against the increment: below, at or above half.
    let twice = 2 * r + u128::from(first >= 5);
    let exact = r == 0 && rest.is_empty();
    let half = if twice < step {
        std::cmp::Ordering::Less
    } else if twice == step && !(tail || (first != 0 && first != 5)) {
        std::cmp::Ordering::Equal
    } else {
        std::cmp::Ordering::Greater
    };
    // As `Rounding::rounds_up` with the half found here.
    let (first, rest_nonzero) = match half {
        std::cmp::Ordering::Less => (1, false),
        std::cmp::Ordering::Equal => (5, false),
        std::cmp::Ordering::Greater => (9, false),
    };
    let up = !exact && rounding.rounds_up(first, rest_nonzero, u8::try_from(q % 2).ok()?, negative);
    let multiple = (q + u128::from(up)) * step;
    let mut text = multiple.to_string();
    if text.len() <= max_fraction {
        text = format!("{}{text}", "0".repeat(max_fraction + 1 - text.len()));
    }
    let (int, frac) = text.split_at(text.len() - max_fraction);
    Some((int.to_owned(), frac.to_owned()))
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

/// `12345678` → `1,23,45,678`: the last three digits, then groups of two.
fn group_indian(int: &str, sep: char) -> String {
    if int.len() <= 3 {
        return int.to_owned();
    }
    let (head, tail) = int.split_at(int.len() - 3);
    let mut out = String::with_capacity(int.len() + int.len() / 2);
    for (i, c) in head.chars().enumerate() {
        if i > 0 && (head.len() - i).is_multiple_of(2) {
            out.push(sep);
        }
        out.push(c);
    }
    out.push(sep);
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::{group, group_indian, round_half_expand, shortest_decimal, to_locale_string};

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

    #[test]
    fn writes_the_swiss_austrian_and_canadian_french_forms() {
        // Node 20 (and Bun).
        let none = serde_json::json!({});
        let money = |code: &str| serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": code});
        let percent = serde_json::json!({"maxFraction": 0, "percent": true});
        assert_eq!(to_locale_string(1234567.891, "de-CH", &none), "1'234'567.891");
        assert_eq!(to_locale_string(1234.5, "de-CH", &money("CHF")), "CHF\u{a0}1'234.50");
        assert_eq!(to_locale_string(-1234.5, "de-CH", &money("EUR")), "EUR-1'234.50");
        assert_eq!(to_locale_string(-1234.5, "de-CH", &money("USD")), "$-1'234.50");
        assert_eq!(to_locale_string(0.256, "de-CH", &percent), "26%");
        assert_eq!(to_locale_string(-1234.5, "it-CH", &money("EUR")), "€-1234.50");
        assert_eq!(to_locale_string(-1234.5, "de-LI", &money("EUR")), "-EUR\u{a0}1'234.50");
        assert_eq!(to_locale_string(1234567.891, "de-AT", &none), "1\u{a0}234\u{a0}567,891");
        assert_eq!(to_locale_string(-1234.5, "de-AT", &money("EUR")), "-€\u{a0}1.234,50");
        assert_eq!(to_locale_string(0.256, "de-AT", &percent), "26\u{a0}%");
        assert_eq!(
            to_locale_string(-1234.5, "fr-CA", &money("CAD")),
            "-1\u{a0}234,50\u{a0}$"
        );
        assert_eq!(
            to_locale_string(1234.5, "fr-CA", &money("USD")),
            "1\u{a0}234,50\u{a0}$\u{a0}US"
        );
        assert_eq!(
            to_locale_string(1234.5, "fr-CA", &money("MXN")),
            "1\u{a0}234,50\u{a0}MXN"
        );
        assert_eq!(
            to_locale_string(1234.5, "fr-FR", &money("CAD")),
            "1\u{202f}234,50\u{a0}$CA"
        );
        assert_eq!(to_locale_string(1234.5, "es-MX", &none), "1,234.5");
        assert_eq!(to_locale_string(-1234.5, "es-MX", &money("MXN")), "-$1,234.50");
        assert_eq!(to_locale_string(-1234.5, "es-MX", &money("EUR")), "-EUR\u{a0}1,234.50");
    }

    #[test]
    fn groups_as_the_locale_does() {
        let none = serde_json::json!({});
        assert_eq!(group_indian("12345678", ','), "1,23,45,678");
        assert_eq!(group_indian("1234", ','), "1,234");
        assert_eq!(to_locale_string(12345678.9, "en-IN", &none), "1,23,45,678.9");
        assert_eq!(to_locale_string(1234.5, "es-ES", &none), "1234,5");
        assert_eq!(to_locale_string(12345.5, "es-ES", &none), "12.345,5");
        assert_eq!(to_locale_string(1234.5, "pt-PT", &none), "1234,5");
        assert_eq!(to_locale_string(1234.5, "pt-BR", &none), "1.234,5");
        assert_eq!(to_locale_string(-0.5, "sv-SE", &none), "\u{2212}0,5");
        assert_eq!(to_locale_string(-0.5, "fi-FI", &none), "\u{2212}0,5");
        let usd = serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": "USD"});
        assert_eq!(to_locale_string(-1234.5, "nl-NL", &usd), "US$\u{a0}-1.234,50");
        assert_eq!(to_locale_string(-1234.5, "pt-BR", &usd), "-US$\u{a0}1.234,50");
        assert_eq!(to_locale_string(-1234.5, "pt-PT", &usd), "-1234,50\u{a0}US$");
        assert_eq!(to_locale_string(-1234.5, "fr-FR", &usd), "-1\u{202f}234,50\u{a0}$US");
        assert_eq!(to_locale_string(-1234.5, "tr-TR", &usd), "-$1.234,50");
        let percent = serde_json::json!({"minFraction": 0, "maxFraction": 0, "percent": true});
        assert_eq!(to_locale_string(-0.25, "tr-TR", &percent), "-%25");
        let pct = serde_json::json!({"minFraction": 0, "maxFraction": 0, "percent": true});
        assert_eq!(to_locale_string(0.25, "it-IT", &pct), "25%");
        assert_eq!(to_locale_string(0.25, "de-DE", &pct), "25\u{a0}%");
        let yen = serde_json::json!({"minFraction": 0, "maxFraction": 0, "currency": "JPY"});
        assert_eq!(to_locale_string(123456.7, "ja-JP", &yen), "\u{ffe5}123,457");
        assert_eq!(to_locale_string(123456.7, "en-US", &yen), "\u{a5}123,457");
        let cad = serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": "CAD"});
        assert_eq!(to_locale_string(-1234.5, "en-US", &cad), "-CA$1,234.50");
        assert_eq!(to_locale_string(1.0, "en-CA", &cad), "$1.00");
        assert_eq!(to_locale_string(1.0, "en-AU", &cad), "CAD\u{a0}1.00");
        let dkk = serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": "DKK", "narrow": true});
        assert_eq!(to_locale_string(1.0, "en-US", &dkk), "kr\u{a0}1.00");
    }

    #[test]
    fn rounds_as_the_rounding_mode_says() {
        // Node 20: 1.25 1.35 -1.25 -1.35 1.21 to one fraction digit.
        let cases = [
            ("ceil", ["1.3", "1.4", "-1.2", "-1.3", "1.3"]),
            ("floor", ["1.2", "1.3", "-1.3", "-1.4", "1.2"]),
            ("expand", ["1.3", "1.4", "-1.3", "-1.4", "1.3"]),
            ("trunc", ["1.2", "1.3", "-1.2", "-1.3", "1.2"]),
            ("halfCeil", ["1.3", "1.4", "-1.2", "-1.3", "1.2"]),
            ("halfFloor", ["1.2", "1.3", "-1.3", "-1.4", "1.2"]),
            ("halfExpand", ["1.3", "1.4", "-1.3", "-1.4", "1.2"]),
            ("halfTrunc", ["1.2", "1.3", "-1.2", "-1.3", "1.2"]),
            ("halfEven", ["1.2", "1.4", "-1.2", "-1.4", "1.2"]),
        ];
        for (mode, want) in cases {
            let options = serde_json::json!({"minFraction": 0, "maxFraction": 1, "roundingMode": mode});
            let got: Vec<String> = [1.25, 1.35, -1.25, -1.35, 1.21]
                .iter()
                .map(|&x| to_locale_string(x, "en-US", &options))
                .collect();
            assert_eq!(got, want, "{mode}");
        }
    }

    #[test]
    fn rounds_to_an_increment() {
        // Node 20: `roundingIncrement` 5, 25, 50 with two fraction digits.
        let usd = |inc: u64, mode: &str| serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": "USD", "roundingIncrement": inc, "roundingMode": mode});
        assert_eq!(to_locale_string(1.23, "en-US", &usd(5, "halfExpand")), "$1.25");
        assert_eq!(to_locale_string(1.13, "en-US", &usd(25, "halfExpand")), "$1.25");
        assert_eq!(to_locale_string(1.26, "en-US", &usd(50, "halfExpand")), "$1.50");
        assert_eq!(to_locale_string(1.21, "en-US", &usd(5, "ceil")), "$1.25");
        assert_eq!(to_locale_string(1.125, "en-US", &usd(5, "halfEven")), "$1.10");
        assert_eq!(to_locale_string(0.99, "en-US", &usd(10, "halfExpand")), "$1.00");
        let whole = |inc: u64| serde_json::json!({"minFraction": 0, "maxFraction": 0, "roundingIncrement": inc});
        assert_eq!(to_locale_string(12345.0, "en-US", &whole(5000)), "10,000");
        assert_eq!(to_locale_string(-12.5, "en-US", &whole(5)), "-15");
        assert_eq!(to_locale_string(-2.0, "en-US", &whole(5)), "-0");
        assert_eq!(to_locale_string(1.23, "en-US", &whole(2)), "2");
    }

    #[test]
    fn groups_as_use_grouping_says() {
        let with = |g: &str| serde_json::json!({"grouping": g});
        assert_eq!(to_locale_string(1234.0, "en-US", &with("min2")), "1234");
        assert_eq!(to_locale_string(12345.0, "en-US", &with("min2")), "12,345");
        assert_eq!(to_locale_string(1234.0, "es-ES", &with("always")), "1.234");
        assert_eq!(to_locale_string(1234.0, "es-ES", &with("auto")), "1234");
    }

    #[test]
    fn strips_the_zeros_of_a_whole_number_if_asked() {
        let usd = serde_json::json!({"minFraction": 2, "maxFraction": 2, "currency": "USD", "trailingZeroDisplay": "stripIfInteger"});
        assert_eq!(to_locale_string(5.0, "en-US", &usd), "$5");
        assert_eq!(to_locale_string(4.999, "en-US", &usd), "$5");
        assert_eq!(to_locale_string(5.5, "en-US", &usd), "$5.50");
    }
}
