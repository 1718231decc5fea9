//! Credential redaction.
//!
//! Everything hwf stores or shows — journal lines, run snapshots, logs,
//! captured stdout/stderr, error messages, controls, events — passes through
//! here first. Three rules:
//!
//! - **Keys**: a JSON object key that names a credential (`authorization`,
//!   `api_key`, `password`, `*_token`, `secret`, `cookie`, `secretAccessKey`,
//!   …) has its value replaced by `"[REDACTED]"`, whatever the value is.
//! - **Values**: credential-shaped text inside any string is replaced by
//!   `[REDACTED]`: authorization schemes (`Bearer …`, `Basic …`, `Token …`),
//!   the token formats of `FORMATS` (OpenAI, Anthropic, Stripe, GitHub,
//!   GitLab, Slack, Google, Hugging Face, npm, PyPI, SendGrid, Twilio,
//!   DigitalOcean, Shopify, Mailgun, Vault, …), AWS access key ids, Azure AD
//!   client secrets, Discord and Telegram bot tokens, Slack and Discord
//!   webhook URLs, JWTs, PEM private keys (across lines), URL passwords and
//!   `NAME_TOKEN=…`-style assignments.
//! - **Registered values**: secrets hwf knows by value (the variables named
//!   by `api_key_env`, credential-named variables of its own environment,
//!   credential-named strings in `hwf.toml`; see [`register_secret`]) are
//!   replaced wherever they appear, whatever their shape.
//!
//! The scan is one pass over the bytes (a first-byte table skips most
//! positions) and allocates only when something is replaced.

use serde_json::Value;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock};

/// The replacement text.
pub const REDACTED: &str = "[REDACTED]";

/// Key suffixes (after lower-casing and mapping `-` to `_`) that name a
/// credential outright: any text under them is redacted.
const KEY_SUFFIXES: &[&str] = &[
    "authorization",
    "api_key",
    "apikey",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "session_token",
    "bearer_token",
    "password",
    "passwd",
    "_secret",
    "private_key",
    "privatekey",
    "secret_key",
    "secretkey",
    "access_key",
    "accesskey",
    "account_key",
    "accountkey",
    "app_key",
    "appkey",
    "application_key",
    "signing_key",
    "encryption_key",
    "master_key",
    "subscription_key",
    "functions_key",
    "client_key",
    "passphrase",
    "webhook_url",
    // kubeconfig `client-key-data` (a base64 private key).
    "key_data",
];

/// Whole keys (normalised as for [`KEY_SUFFIXES`]) that name a credential
/// outright but are too specific to use as suffixes.
const EXACT_KEYS: &[&str] = &["x_amz_signature", "x_goog_signature"];

/// Key suffixes that name a credential in one sense and something harmless
/// in another (a lexer's `token`, a pagination `next_token`, a review
/// dimension `secret`, a `cookie` banner): a text under them is redacted
/// only when it is shaped like a credential ([`credential_shaped`]).
/// Machine credentials are long: a text under them must have at least
/// [`TOKEN_MIN`] bytes (`next_token: "cursor-2"` is a page cursor).
const AMBIGUOUS_SUFFIXES: &[&str] = &["token", "secret", "cookie", "credential", "credentials"];

/// Password-like key suffixes, ambiguous too (`first_pass`, a verdict
/// `pass`), whose values people choose: [`PASSWORD_MIN`] bytes suffice
/// (`hunter2`). `DB_PASS`, `SMTP_PWD` (not `bypass`: the underscore is
/// part of it).
const PASSWORD_SUFFIXES: &[&str] = &["_pass", "_pwd"];

/// Whole keys that are ambiguous in the same way and too short to use as
/// suffixes: an Azure SAS `sig` (or a number's significant digits), `auth`
/// (or a module's findings), a `dsn`.
const AMBIGUOUS_KEYS: &[&str] = &["sig", "dsn", "auth"];

/// Whole password-like keys: a `pass` (or a verdict), a `pwd`.
const PASSWORD_KEYS: &[&str] = &["pwd", "pass"];

/// The fewest bytes of a credential-shaped text under an ambiguous key.
const TOKEN_MIN: usize = 12;

/// The fewest bytes of a credential-shaped text under a password-like key.
const PASSWORD_MIN: usize = 6;

/// How firmly an object key or an assignment's name says its value is a
/// credential.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum KeyKind {
    /// Not a credential's name.
    Plain,
    /// A credential's name or a harmless one: its text is redacted when it
    /// is shaped like a credential of at least this many bytes.
    Ambiguous(usize),
    /// A credential's name (`password`, `api_key`, `client_secret`): any
    /// text under it is redacted.
    Credential,
}

/// What `key` says of its value (case, `-` and `_` folded).
fn key_kind(key: &str) -> KeyKind {
    if key.len() > 256 {
        return KeyKind::Plain;
    }
    let mut buf = [0u8; 256];
    let norm = &mut buf[..key.len()];
    for (d, s) in norm.iter_mut().zip(key.bytes()) {
        *d = if s == b'-' { b'_' } else { s.to_ascii_lowercase() };
    }
    let norm: &[u8] = norm;
    if KEY_SUFFIXES.iter().any(|suf| norm.ends_with(suf.as_bytes()))
        || EXACT_KEYS.iter().any(|k| norm == k.as_bytes())
        || norm == b"secret_key"
    {
        KeyKind::Credential
    } else if key.bytes().any(|b| b.is_ascii_uppercase()) && !key.bytes().any(|b| b.is_ascii_lowercase()) {
        // An environment variable's name (`GITHUB_TOKEN`, `DB_PASS`): a
        // setting, so a credential outright.
        if PASSWORD_SUFFIXES
            .iter()
            .chain(AMBIGUOUS_SUFFIXES)
            .any(|suf| norm.ends_with(suf.as_bytes()))
            || PASSWORD_KEYS.iter().chain(AMBIGUOUS_KEYS).any(|k| norm == k.as_bytes())
        {
            KeyKind::Credential
        } else {
            KeyKind::Plain
        }
    } else if PASSWORD_SUFFIXES.iter().any(|suf| norm.ends_with(suf.as_bytes()))
        || PASSWORD_KEYS.iter().any(|k| norm == k.as_bytes())
    {
        KeyKind::Ambiguous(PASSWORD_MIN)
    } else if AMBIGUOUS_SUFFIXES.iter().any(|suf| norm.ends_with(suf.as_bytes()))
        || AMBIGUOUS_KEYS.iter().any(|k| norm == k.as_bytes())
    {
        KeyKind::Ambiguous(TOKEN_MIN)
    } else {
        KeyKind::Plain
    }
}

/// A text that could be a credential rather than words: one token (no
/// whitespace) of at least `min` bytes mixing letters and digits
/// (`hunter2`, `s3cr3t-v4lue`, an API key), or of at least twenty with
/// both cases (base64). `"2 findings"`, `"IDENT"`, `"none"`, `"20"`,
/// `"src/auth/login.ts"` are words.
fn credential_shaped(v: &str, min: usize) -> bool {
    let b = v.as_bytes();
    b.len() >= min
        && !b.iter().any(u8::is_ascii_whitespace)
        && ((b.iter().any(u8::is_ascii_digit) && b.iter().any(u8::is_ascii_alphabetic))
            || (b.len() >= 20 && b.iter().any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase)))
}

/// Whether a key ends in `key` (`STRIPE_KEY`, `LICENSE_KEY`) without
/// naming a credential outright: its value is redacted in text
/// assignments only when it looks random ([`random_value`]), since
/// `sort_key=created_at` is no secret.
fn is_weak_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('-', "_");
    k.ends_with("_key") || k == "key"
}

/// A value that looks generated rather than written: at least 16 bytes,
/// letters and digits, no spaces.
fn random_value(v: &[u8]) -> bool {
    v.len() >= 16
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_alphabetic)
        && !v.iter().any(|x| x.is_ascii_whitespace())
}

/// Which bytes a token body is made of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Letters, digits and `_-.+/=~` (an open-ended token).
    Token,
    /// `[A-Za-z0-9]`.
    Alnum,
    /// `[a-z0-9]`.
    LowerAlnum,
    /// `[0-9a-f]`.
    Hex,
}

impl Class {
    fn accepts(self, b: u8) -> bool {
        match self {
            Class::Token => is_token_byte(b),
            Class::Alnum => b.is_ascii_alphanumeric(),
            Class::LowerAlnum => b.is_ascii_lowercase() || b.is_ascii_digit(),
            Class::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        }
    }
}

/// One token format recognised by its prefix: the body after the prefix is
/// made of `class` bytes, between `min` and `max` of them (`max` bounded means
/// the body must end there), with a digit somewhere when `digit`.
struct Format {
    /// Who issues it (for documentation and the corpus test).
    vendor: &'static str,
    prefix: &'static str,
    class: Class,
    min: usize,
    max: usize,
    digit: bool,
}

const OPEN: usize = usize::MAX;

const fn f(vendor: &'static str, prefix: &'static str, class: Class, min: usize, max: usize, digit: bool) -> Format {
    Format {
        vendor,
        prefix,
        class,
        min,
        max,
        digit,
    }
}

/// Token formats recognised by prefix.
const FORMATS: &[Format] = &[
    f(
        "OpenAI, Anthropic (sk-proj-, sk-ant-)",
        "sk-",
        Class::Token,
        16,
        OPEN,
        false,
    ),
    f("Stripe live secret key", "sk_live_", Class::Token, 12, OPEN, false),
    f("Stripe test secret key", "sk_test_", Class::Token, 12, OPEN, false),
    f("Stripe live restricted key", "rk_live_", Class::Token, 12, OPEN, false),
    f("Stripe test restricted key", "rk_test_", Class::Token, 12, OPEN, false),
    f("Stripe webhook secret", "whsec_", Class::Alnum, 24, OPEN, false),
    f("Google API key", "AIza", Class::Token, 30, OPEN, false),
    f("Google OAuth client secret", "GOCSPX-", Class::Token, 20, OPEN, false),
    f("Google OAuth access token", "ya29.", Class::Token, 20, OPEN, false),
    f("Hugging Face token", "hf_", Class::Alnum, 24, OPEN, false),
    f("Hugging Face org token", "api_org_", Class::Alnum, 24, OPEN, false),
    f("npm token", "npm_", Class::Alnum, 24, OPEN, false),
    f("PyPI token", "pypi-", Class::Token, 24, OPEN, false),
    f("GitHub personal token", "ghp_", Class::Token, 16, OPEN, false),
    f("GitHub OAuth token", "gho_", Class::Token, 16, OPEN, false),
    f("GitHub app server token", "ghs_", Class::Token, 16, OPEN, false),
    f("GitHub app user token", "ghu_", Class::Token, 16, OPEN, false),
    f("GitHub refresh token", "ghr_", Class::Token, 16, OPEN, false),
    f("GitHub fine-grained", "github_pat_", Class::Token, 16, OPEN, false),
    f("GitLab personal token", "glpat-", Class::Token, 12, OPEN, false),
    f("GitLab deploy token", "gldt-", Class::Token, 12, OPEN, false),
    f("GitLab runner token", "glrt-", Class::Token, 12, OPEN, false),
    f("GitLab pipeline trigger token", "glptt-", Class::Token, 12, OPEN, false),
    f("GitLab CI job token", "glcbt-", Class::Token, 12, OPEN, false),
    f("GitLab feed token", "glft-", Class::Token, 12, OPEN, false),
    f("GitLab OAuth secret", "gloas-", Class::Token, 12, OPEN, false),
    f("Slack bot token", "xoxb-", Class::Token, 8, OPEN, false),
    f("Slack user token", "xoxp-", Class::Token, 8, OPEN, false),
    f("Slack app token", "xoxa-", Class::Token, 8, OPEN, false),
    f("Slack session token", "xoxs-", Class::Token, 8, OPEN, false),
    f("Slack refresh token", "xoxr-", Class::Token, 8, OPEN, false),
    f("Slack rotating token", "xoxe", Class::Token, 12, OPEN, false),
    f("Slack app-level token", "xapp-", Class::Token, 12, OPEN, false),
    f("SendGrid API key", "SG.", Class::Token, 40, OPEN, false),
    f("Twilio API key SID", "SK", Class::Hex, 32, 32, true),
    f("Twilio account SID", "AC", Class::Hex, 32, 32, true),
    f("DigitalOcean personal token", "dop_v1_", Class::Hex, 32, OPEN, false),
    f("DigitalOcean OAuth token", "doo_v1_", Class::Hex, 32, OPEN, false),
    f("DigitalOcean refresh token", "dor_v1_", Class::Hex, 32, OPEN, false),
    f("Shopify access token", "shpat_", Class::Hex, 32, OPEN, false),
    f("Shopify custom app token", "shpca_", Class::Hex, 32, OPEN, false),
    f("Shopify private app token", "shppa_", Class::Hex, 32, OPEN, false),
    f("Shopify shared secret", "shpss_", Class::Hex, 32, OPEN, false),
    f("Mailgun API key", "key-", Class::LowerAlnum, 32, 32, true),
    f("Atlassian API token", "ATATT", Class::Token, 40, OPEN, false),
    f("Linear API key", "lin_api_", Class::Alnum, 32, OPEN, false),
    f("Notion integration token", "ntn_", Class::Alnum, 32, OPEN, false),
    f("Notion legacy token", "secret_", Class::Alnum, 43, 43, true),
    f("Postman API key", "PMAK-", Class::Token, 40, OPEN, false),
    f("Doppler personal token", "dp.pt.", Class::Alnum, 40, OPEN, false),
    f("Doppler service token", "dp.st.", Class::Token, 40, OPEN, false),
    f("Heroku API key", "HRKU-", Class::Token, 30, OPEN, false),
    f("Grafana cloud token", "glc_", Class::Token, 32, OPEN, false),
    f("Grafana service account token", "glsa_", Class::Token, 32, OPEN, false),
    f("Sentry org token", "sntrys_", Class::Token, 40, OPEN, false),
    f("Sentry user token", "sntryu_", Class::Hex, 64, OPEN, false),
    f("Pulumi access token", "pul-", Class::Hex, 40, OPEN, false),
    f("age secret key", "AGE-SECRET-KEY-1", Class::Alnum, 50, OPEN, false),
    f("Mapbox secret token", "sk.eyJ", Class::Token, 40, OPEN, false),
    f("Square access token", "sq0atp-", Class::Token, 22, OPEN, false),
    f("Square OAuth secret", "sq0csp-", Class::Token, 40, OPEN, false),
    f("Square production token", "EAAA", Class::Token, 60, OPEN, false),
    f("Facebook access token", "EAACEdEose0cBA", Class::Alnum, 20, OPEN, false),
    f("Databricks token", "dapi", Class::Hex, 32, 32, true),
    f("New Relic user key", "NRAK-", Class::Alnum, 27, OPEN, false),
    f("Supabase token", "sbp_", Class::Hex, 40, OPEN, false),
    f("Vault service token", "hvs.", Class::Token, 24, OPEN, false),
    f("Vault batch token", "hvb.", Class::Token, 24, OPEN, false),
    f("Groq API key", "gsk_", Class::Alnum, 40, OPEN, false),
    f("Replicate token", "r8_", Class::Alnum, 30, OPEN, false),
    f("Perplexity API key", "pplx-", Class::Alnum, 40, OPEN, false),
    f("xAI API key", "xai-", Class::Alnum, 40, OPEN, false),
    f("Figma token", "figd_", Class::Token, 30, OPEN, false),
    f("Fly.io token", "FlyV1 ", Class::Token, 40, OPEN, false),
];

/// The token formats recognised by prefix, as `(vendor, prefix)`.
pub fn known_formats() -> impl Iterator<Item = (&'static str, &'static str)> {
    FORMATS.iter().map(|f| (f.vendor, f.prefix))
}

/// Bytes a secret can start with (a match is only tried there).
static FIRST: [bool; 256] = first_bytes();

const fn first_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < FORMATS.len() {
        t[FORMATS[i].prefix.as_bytes()[0] as usize] = true;
        i += 1;
    }
    // PEM, JWT, schemes, AWS, webhooks, Discord tokens, assignments, URLs.
    let extra = b"-eBbTtAhdMNOp=:~";
    let mut j = 0;
    while j < extra.len() {
        t[extra[j] as usize] = true;
        j += 1;
    }
    t
}

/// For each first byte, the [`FORMATS`] starting with it (bit `n` is
/// `FORMATS[n]`).
static BY_FIRST: [u128; 256] = formats_by_first_byte();

const fn formats_by_first_byte() -> [u128; 256] {
    assert!(FORMATS.len() <= 128);
    let mut t = [0u128; 256];
    let mut i = 0;
    while i < FORMATS.len() {
        t[FORMATS[i].prefix.as_bytes()[0] as usize] |= 1 << i;
        i += 1;
    }
    t
}

/// For each first byte, the [`FORMATS`] that may be glued to the text
/// before them (see [`glued_format`]): a prefix of four bytes or more with
/// a `_` or `-`.
static GLUED_BY_FIRST: [u128; 256] = glued_by_first_byte();

const fn glued_by_first_byte() -> [u128; 256] {
    let mut t = [0u128; 256];
    let mut i = 0;
    while i < FORMATS.len() {
        let p = FORMATS[i].prefix.as_bytes();
        let mut distinctive = false;
        let mut k = 0;
        while k < p.len() {
            if p[k] == b'_' || p[k] == b'-' {
                distinctive = true;
            }
            k += 1;
        }
        if p.len() >= 4 && distinctive {
            t[p[0] as usize] |= 1 << i;
        }
        i += 1;
    }
    t
}

/// Hosts whose URL path is itself the credential (webhook URLs).
const SECRET_URL_PATHS: &[&str] = &[
    "hooks.slack.com/services/",
    "hooks.slack.com/workflows/",
    "hooks.slack.com/triggers/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
];

/// Secrets registered by value, longest first.
static REGISTERED: RwLock<Vec<String>> = RwLock::new(Vec::new());
static ANY_REGISTERED: AtomicBool = AtomicBool::new(false);

/// Shortest value [`register_secret`] accepts (shorter ones would redact
/// ordinary words).
pub const MIN_REGISTERED_LEN: usize = 8;

/// Register a secret by its value: from now on it is redacted wherever it
/// appears, whatever its shape. Values shorter than
/// [`MIN_REGISTERED_LEN`] (after trimming) and `[REDACTED]` are ignored.
pub fn register_secret(value: &str) {
    let value = value.trim();
    if value.len() < MIN_REGISTERED_LEN || value.contains(REDACTED) {
        return;
    }
    let mut list = REGISTERED.write().unwrap_or_else(PoisonError::into_inner);
    if list.iter().any(|v| v == value) {
        return;
    }
    list.push(value.to_owned());
    list.sort_by_key(|v| std::cmp::Reverse(v.len()));
    ANY_REGISTERED.store(true, Ordering::Release);
}

/// Register the credential-named variables of this process's environment
/// (`*_API_KEY`, `*_TOKEN`, `*_PASSWORD`, `*_SECRET`, …) by value.
pub fn register_environment() {
    for (k, v) in std::env::vars_os() {
        if let (Some(k), Some(v)) = (k.to_str(), v.to_str())
            && is_secret_key(k)
            // `PWD`/`OLDPWD` are the shell's directories, not passwords:
            // registering them would refuse every request naming a path.
            && !matches!(k, "PWD" | "OLDPWD")
        {
            register_secret(v);
        }
    }
}

/// Register the secrets a configuration file names, by value: the
/// variables `api_key_env` (and any `*_env` key naming a credential) point
/// at, every string under a credential-named key, and the argument after a
/// credential-named flag in an argv (`["--api-key", "…"]`). Text that is not
/// TOML is ignored (the config loader reports it).
pub fn register_config_text(text: &str) {
    if let Ok(value) = text.parse::<toml::Table>() {
        register_toml(None, &toml::Value::Table(value));
    }
}

fn register_toml(key: Option<&str>, value: &toml::Value) {
    match value {
        toml::Value::String(s) => {
            let Some(k) = key else { return };
            if k.ends_with("_env") && is_secret_key(&k[..k.len() - 4]) {
                if let Ok(v) = std::env::var(s) {
                    register_secret(&v);
                }
            } else if is_secret_key(k) {
                register_secret(s);
            }
        }
        toml::Value::Array(items) => {
            let mut after_flag = false;
            for item in items {
                if let toml::Value::String(s) = item {
                    if after_flag {
                        register_secret(s);
                    }
                    let flag = s.trim_start_matches('-');
                    after_flag = s.starts_with('-') && !s.contains('=') && is_secret_key(flag);
                    if s.starts_with('-')
                        && let Some((name, v)) = s.split_once('=')
                        && is_secret_key(name.trim_start_matches('-'))
                    {
                        register_secret(v);
                    }
                } else {
                    register_toml(key, item);
                }
            }
        }
        toml::Value::Table(t) => {
            for (k, v) in t {
                register_toml(Some(k), v);
            }
        }
        _ => {}
    }
}

/// Whether an object key may name a credential (outright, or ambiguously:
/// `token`, `auth`; see [`redact_value`] for how each is treated).
pub fn is_secret_key(key: &str) -> bool {
    key_kind(key) != KeyKind::Plain
}

/// Redact a JSON value in place. Returns whether anything changed.
///
/// Text is redacted by its shape everywhere ([`redact_text`]). By key name:
/// under a credential's name (`password`, `api_key`, `client_secret`) any
/// string, list or object is replaced; under an ambiguous one (`token`,
/// `secret`, `auth`, `sig`, `pass`, `cookie`, `credentials`) each text, at
/// any depth, is replaced only when it is shaped like a credential
/// (`{"auth": ["login bug"]}` and `{"token": "IDENT"}` stay,
/// `{"secret": "s3cr3t-v4lue"}` does not). A boolean, a number or null is
/// never a credential (`hasSecret: false`, `token_count: 12`).
pub fn redact_value(value: &mut Value) -> bool {
    redact_under(value, None)
}

/// [`redact_value`]; `shaped`: inside a value of an ambiguous key, where a
/// text shaped like a credential of at least that many bytes is one.
fn redact_under(value: &mut Value, shaped: Option<usize>) -> bool {
    match value {
        Value::String(s) => {
            if shaped.is_some_and(|min| s != REDACTED && credential_shaped(s, min)) {
                *s = REDACTED.to_owned();
                true
            } else if let Cow::Owned(new) = redact_text(s) {
                *s = new;
                true
            } else {
                false
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |acc, v| redact_under(v, shaped) | acc),
        Value::Object(map) => {
            let mut changed = false;
            // A key that is itself a credential is renamed.
            if map.keys().any(|k| matches!(redact_text(k), Cow::Owned(_))) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    let k = match redact_text(&k) {
                        Cow::Owned(_) => REDACTED.to_owned(),
                        Cow::Borrowed(_) => k,
                    };
                    map.insert(k, v);
                }
                changed = true;
            }
            for (k, v) in map.iter_mut() {
                let scalar = matches!(v, Value::Null | Value::Bool(_) | Value::Number(_));
                match key_kind(k) {
                    KeyKind::Credential if !scalar && !is_redacted(v) => {
                        *v = Value::String(REDACTED.to_owned());
                        changed = true;
                    }
                    KeyKind::Ambiguous(min) => changed |= redact_under(v, Some(min)),
                    _ => changed |= redact_under(v, shaped),
                }
            }
            changed
        }
        _ => false,
    }
}

fn is_redacted(v: &Value) -> bool {
    v.as_str() == Some(REDACTED)
}

/// Whether redacting `value` ([`redact_value`]) would change it: what a
/// store that keeps values exactly (queued args, trigger args) refuses.
pub fn redaction_changes(value: &Value) -> bool {
    let mut copy = value.clone();
    redact_value(&mut copy)
}

/// Whether a JSON value holds anything that may be a credential (used to
/// refuse credentials in capability requests): stricter than
/// [`redact_value`], any text under any secret-like key counts, ambiguous
/// ones too (`{"env": {"TOKEN": "x"}}`).
pub fn contains_secret(value: &Value) -> bool {
    match value {
        Value::String(s) => matches!(redact_text(s), Cow::Owned(_)),
        Value::Array(items) => items.iter().any(contains_secret),
        Value::Object(map) => map.iter().any(|(k, v)| {
            matches!(redact_text(k), Cow::Owned(_))
                || (is_secret_key(k)
                    && !matches!(v, Value::Null | Value::Bool(_) | Value::Number(_))
                    && !is_redacted(v))
                || contains_secret(v)
        }),
        _ => false,
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+' | b'/' | b'=' | b'~')
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

fn starts_with_ci(hay: &[u8], needle: &str) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle.as_bytes())
}

fn token_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && is_token_byte(b[j]) {
        j += 1;
    }
    j
}

/// Redact credential-shaped text and registered secrets. Borrowed when
/// nothing matched.
pub fn redact_text(text: &str) -> Cow<'_, str> {
    if ANY_REGISTERED.load(Ordering::Acquire)
        && let Some(replaced) = replace_registered(text)
    {
        return Cow::Owned(redact_patterns(&replaced).into_owned());
    }
    redact_patterns(text)
}

/// Redact a block of text that may span lines (captured stdout/stderr): a
/// PEM private key is replaced from its `BEGIN` line through its `END` line
/// (or to the end of the block when the end was cut off).
pub fn redact_block(text: &str) -> String {
    redact_text(text).into_owned()
}

/// The first secret in `text` by its **shape** alone — a token format, an
/// authorization scheme, a JWT, a PEM private key, a URL password, a webhook
/// URL, a registered secret — ignoring the key-name rules (in source code
/// `password = prompt(…)` or a `{"token": "string"}` schema is no secret).
/// Returns the 1-based line and a description of what was found.
pub fn find_credential(text: &str) -> Option<(usize, String)> {
    let line_of = |at: usize| text[..at].bytes().filter(|&x| x == b'\n').count() + 1;
    if ANY_REGISTERED.load(Ordering::Acquire) {
        let list = REGISTERED.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = list.iter().filter_map(|v| text.find(v.as_str())).min() {
            return Some((line_of(at), "a configured secret (by its value)".into()));
        }
    }
    let b = text.as_bytes();
    for i in 0..b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric()
            && token_start(b, i)
            && let Some((start, _)) = encoded_secret(b, i, 0)
        {
            return Some((
                line_of(start),
                "an encoded credential (base64 or percent-encoded)".into(),
            ));
        }
        if !FIRST[c as usize] {
            continue;
        }
        let assignment = (c == b'=' || c == b':') && !b[i..].starts_with(b"://") && telegram_bot_token(b, i).is_none();
        if assignment {
            if c == b':'
                && let Some((start, _)) = pgpass_password(b, i)
            {
                return Some((line_of(start), "a .pgpass password".into()));
            }
            if let Some((start, end)) = assignment_value_with(b, i, true)
                && literal_credential(b, start, end)
                // A value with a shape of its own is named by it below.
                && match_at(b, start).is_none()
            {
                return Some((line_of(start), "a credential assigned to a credential-named key".into()));
            }
            continue;
        }
        if let Some((start, _)) = match_at(b, i) {
            let rest = &b[i..];
            let what = if let Some(f) = FORMATS.iter().find(|f| rest.starts_with(f.prefix.as_bytes())) {
                format!("a {} ({}…)", f.vendor, f.prefix)
            } else if rest.starts_with(b"-----") {
                "a PEM private key".into()
            } else if rest.starts_with(b"eyJ") {
                "a JSON Web Token".into()
            } else if rest.starts_with(b"://") {
                "a password in a URL".into()
            } else if c == b':' {
                "a Telegram bot token".into()
            } else if c == b'h' || c == b'd' {
                "a webhook URL".into()
            } else {
                "a credential-shaped value".into()
            };
            return Some((line_of(start), what));
        }
    }
    None
}

/// Whether the value of a credential-named key in source code is a literal
/// credential rather than an expression or a type name: quoted, at least 8
/// bytes and credential-looking (`"hunter2-2024"`, not `"string"`); or
/// unquoted, at least 16 bytes with a digit (`KEY=wJalr…`, not
/// `args.key`); never with spaces, a call or an object.
fn literal_credential(b: &[u8], start: usize, end: usize) -> bool {
    let v = &b[start..end];
    if v.iter()
        .any(|x| x.is_ascii_whitespace() || matches!(x, b'(' | b'[' | b'{' | b'<' | b'$' | b'`'))
    {
        return false;
    }
    let quoted = start > 0 && matches!(b[start - 1], b'"' | b'\'');
    if quoted {
        v.len() >= 8 && looks_like_credential(v) && !v.iter().all(|x| x.is_ascii_lowercase() || *x == b'_')
    } else {
        v.len() >= 16 && v.iter().any(u8::is_ascii_digit)
    }
}

/// `text` with every registered secret replaced, or `None` if it holds none.
fn replace_registered(text: &str) -> Option<String> {
    let list = REGISTERED.read().unwrap_or_else(PoisonError::into_inner);
    let mut out: Option<String> = None;
    for secret in list.iter() {
        let cur = out.as_deref().unwrap_or(text);
        if cur.contains(secret.as_str()) {
            out = Some(cur.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

fn redact_patterns(text: &str) -> Cow<'_, str> {
    redact_patterns_depth(text, 0)
}

/// How deep encoded text is decoded and looked into (base64 of
/// percent-encoding of a token is two levels).
const MAX_DECODE_DEPTH: u8 = 3;

fn redact_patterns_depth(text: &str, depth: u8) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `text` already handled into `out`
    let mut i = 0;
    while i < b.len() {
        let encoded = if depth < MAX_DECODE_DEPTH && b[i].is_ascii_alphanumeric() && token_start(b, i) {
            encoded_secret(b, i, depth)
        } else {
            None
        };
        if encoded.is_none() && !FIRST[b[i] as usize] {
            i += 1;
            continue;
        }
        if let Some((start, end)) = encoded.or_else(|| match_at(b, i)) {
            let start = start.max(copied);
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..start]);
            o.push_str(REDACTED);
            copied = end;
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// Whether a token may start at `i` (what precedes it is no token byte
/// and no `%`).
fn token_start(b: &[u8], i: usize) -> bool {
    i == 0 || !(is_token_byte(b[i - 1]) || b[i - 1] == b'%')
}

/// Bytes of text that may hold an encoded token: base64 (standard and
/// URL-safe) and percent-encoding.
fn is_encoded_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'%' | b'_' | b'-' | b'.' | b'~')
}

/// At a token start `i`: a secret hidden by an encoding — percent-encoded
/// (`ghp%5F…`) or base64 (`Z2hwX…`) text whose decoding holds a secret,
/// or a PEM key's body line logged on its own (64 base64 characters,
/// mixed case and digits, alone on its line: a key logged one line per
/// call). The whole encoded token is the range.
fn encoded_secret(b: &[u8], i: usize, depth: u8) -> Option<(usize, usize)> {
    use base64::Engine as _;
    // Most words are short: done after at most 20 bytes.
    if b.len() - i < 20 || !b[i..i + 20].iter().all(|&x| is_encoded_byte(x)) {
        return None;
    }
    let mut end = i + 20;
    while end < b.len() && is_encoded_byte(b[end]) {
        end += 1;
    }
    let span = &b[i..end];
    let holds_secret = |decoded: &[u8]| {
        std::str::from_utf8(decoded).is_ok_and(|t| matches!(redact_patterns_depth(t, depth + 1), Cow::Owned(_)))
    };
    if span.contains(&b'%') {
        let decoded = percent_decode(span)?;
        return holds_secret(&decoded).then_some((i, end));
    }
    // Base64 of text has both cases; hex digests and identifiers in one
    // case are not looked into.
    if span.len() < 24
        || span.contains(&b'.')
        || span.contains(&b'~')
        || !span.iter().any(u8::is_ascii_uppercase)
        || !span.iter().any(u8::is_ascii_lowercase)
    {
        return None;
    }
    let body = span
        .strip_suffix(b"==")
        .or_else(|| span.strip_suffix(b"="))
        .unwrap_or(span);
    let engine = if body.iter().any(|x| matches!(x, b'-' | b'_')) {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        base64::engine::general_purpose::STANDARD_NO_PAD
    };
    if let Ok(decoded) = engine.decode(body)
        && holds_secret(&decoded)
    {
        return Some((i, end));
    }
    // A PEM body line on its own line.
    let alone = (i == 0 || b[i - 1] == b'\n')
        && (end == b.len() || b[end] == b'\n' || (b[end] == b'\r' && b.get(end + 1).is_none_or(|&x| x == b'\n')));
    (alone
        && span.len() == 64
        && span
            .iter()
            .all(|x| x.is_ascii_alphanumeric() || matches!(x, b'+' | b'/'))
        && span.iter().any(u8::is_ascii_uppercase)
        && span.iter().any(u8::is_ascii_lowercase)
        && span.iter().any(u8::is_ascii_digit))
    .then_some((i, end))
}

/// `%XX`-decoded bytes of `span`, or `None` when it has no valid escape.
fn percent_decode(span: &[u8]) -> Option<Vec<u8>> {
    let hex = |x: u8| (x as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(span.len());
    let mut any = false;
    let mut k = 0;
    while k < span.len() {
        if span[k] == b'%'
            && k + 2 < span.len()
            && let (Some(h), Some(l)) = (hex(span[k + 1]), hex(span[k + 2]))
        {
            out.push(h << 4 | l);
            any = true;
            k += 3;
        } else {
            out.push(span[k]);
            k += 1;
        }
    }
    any.then_some(out)
}

/// Inside a word (`abcghp_…`, `x-AKIA…`): a token format with a
/// distinctive prefix (four bytes or more, with a `_` or `-`, or AWS's
/// `AKIA`/`ASIA`) glued to the text before it.
fn glued_format(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let c = b[i];
    let mut candidates = GLUED_BY_FIRST[c as usize];
    if candidates == 0 && c != b'A' {
        return None;
    }
    let rest = &b[i..];
    while candidates != 0 {
        let format = &FORMATS[candidates.trailing_zeros() as usize];
        candidates &= candidates - 1;
        let p = format.prefix.as_bytes();
        if rest.starts_with(p)
            && let Some(end) = format_end(b, i + p.len(), format)
        {
            return Some((i, end));
        }
    }
    if (rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA"))
        && rest.len() >= 20
        && rest[4..20].iter().all(|x| x.is_ascii_uppercase() || x.is_ascii_digit())
        && rest.get(20).is_none_or(|x| !x.is_ascii_alphanumeric())
    {
        return Some((i, i + 20));
    }
    None
}

/// At `i` (a `:`): the password of a `.pgpass` entry,
/// `host:port:database:user:password` (one word: bounded by whitespace or
/// quotes, so also inside a string), when `i` is its fourth colon. The
/// port is digits or `*`; a host of hex digits alone is an IPv6 address.
fn pgpass_password(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let edge = |x: u8| x.is_ascii_whitespace() || matches!(x, b'"' | b'\'' | b'`');
    let word_start = b[..i].iter().rposition(|&x| edge(x)).map_or(0, |p| p + 1);
    let word_end = b[i..].iter().position(|&x| edge(x)).map_or(b.len(), |p| i + p);
    let word = &b[word_start..word_end];
    if word.iter().filter(|&&x| x == b':').count() != 4 {
        return None;
    }
    let fields: Vec<&[u8]> = word.split(|&x| x == b':').collect();
    if fields.iter().any(|f| f.is_empty()) {
        return None;
    }
    let port = fields[1];
    if !(port == b"*" || port.iter().all(u8::is_ascii_digit)) || fields[0].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    // A user name is a name: all digits is a clock's minutes or seconds
    // (`2024-03-08T10:00:00+01:00:00`), not a `.pgpass` entry.
    if fields[3].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let fourth = word_start + fields[..4].iter().map(|f| f.len() + 1).sum::<usize>() - 1;
    (fourth == i).then_some((i + 1, word_end))
}

/// At `i` (the word `password`): a `.netrc` password, `password <value>`
/// after `login <name>` on the same line, or on its own line in a text
/// that names a `machine`.
fn netrc_password(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let rest = &b[i..];
    if !starts_with_ci(rest, "password") || !rest.get(8).is_some_and(|&x| x == b' ' || x == b'\t') {
        return None;
    }
    let line_start = b[..i].iter().rposition(|&x| x == b'\n').map_or(0, |p| p + 1);
    let before = &b[line_start..i];
    let after_login = find(before, b"login ").is_some();
    let own_line = before.iter().all(|x| x.is_ascii_whitespace()) && find(b, b"machine ").is_some();
    if !(after_login || own_line) {
        return None;
    }
    let mut j = i + 8;
    while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    let end = b[j..]
        .iter()
        .position(|x| x.is_ascii_whitespace())
        .map_or(b.len(), |p| j + p);
    (end > j && &b[j..end] != REDACTED.as_bytes()).then_some((j, end))
}

/// If a secret starts at `i`, the byte range to replace.
fn match_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let at_boundary = i == 0 || !is_ident_byte(b[i - 1]) || (i >= 2 && b[i - 2] == b'\\');
    let c = b[i];
    if c == b':' && b[i..].starts_with(b"://") {
        return url_password(b, i);
    }
    if !at_boundary && !matches!(c, b'=' | b':' | b'-' | b'~') {
        return glued_format(b, i);
    }
    let rest = &b[i..];
    // PEM private keys.
    if c == b'-' && starts_with_ci(rest, "-----BEGIN") {
        let line_end = rest.iter().position(|&x| x == b'\n').unwrap_or(rest.len());
        if rest[..line_end]
            .windows(11)
            .any(|w| w.eq_ignore_ascii_case(b"PRIVATE KEY"))
        {
            let end = find(rest, b"-----END")
                .and_then(|e| find(&rest[e + 8..], b"-----").map(|f| e + 8 + f + 5))
                .unwrap_or(rest.len());
            return Some((i, i + end));
        }
        return None;
    }
    if c == b':'
        && let Some(m) = telegram_bot_token(b, i)
    {
        return Some(m);
    }
    if c == b':'
        && let Some(m) = pgpass_password(b, i)
    {
        return Some(m);
    }
    if c == b'=' || c == b':' {
        // `KEY=value` / `key: value` after a credential-named identifier.
        return assignment_value(b, i);
    }
    if c == b'~' {
        return azure_client_secret(b, i);
    }
    if !at_boundary {
        return glued_format(b, i);
    }
    if c == b'p'
        && let Some(m) = netrc_password(b, i)
    {
        return Some(m);
    }
    // Webhook URLs whose path is the credential.
    if matches!(c, b'h' | b'd') {
        for host in SECRET_URL_PATHS {
            if rest.starts_with(host.as_bytes()) {
                let start = i + host.len();
                let end = token_end(b, start);
                return (end - start >= 8).then_some((start, end));
            }
        }
    }
    // Discord bot tokens: base64 user id, timestamp, HMAC.
    if matches!(c, b'M' | b'N' | b'O') {
        let end = token_end(b, i);
        if end - i >= 58 {
            let mut parts = b[i..end].split(|&x| x == b'.');
            let (id, ts, mac) = (parts.next(), parts.next(), parts.next());
            if let (Some(id), Some(ts), Some(mac), None) = (id, ts, mac, parts.next())
                && (23..=28).contains(&id.len())
                && (6..=7).contains(&ts.len())
                && mac.len() >= 27
            {
                return Some((i, end));
            }
        }
    }
    // JSON Web Tokens: three base64url parts.
    if rest.starts_with(b"eyJ") {
        let end = token_end(b, i);
        let tok = &b[i..end];
        if tok.len() >= 30 && tok.iter().filter(|&&x| x == b'.').count() == 2 {
            return Some((i, end));
        }
    }
    // Authorization schemes.
    for scheme in ["bearer ", "basic ", "token "] {
        if starts_with_ci(rest, scheme) {
            let mut j = i + scheme.len();
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let end = token_end(b, j);
            let tok = &b[j..end];
            let ok = if scheme == "basic " {
                // Basic credentials are base64: no `-`, `_` or `.`.
                tok.len() >= 8
                    && tok
                        .iter()
                        .all(|x| x.is_ascii_alphanumeric() || matches!(x, b'+' | b'/' | b'='))
                    && (tok
                        .iter()
                        .any(|x| x.is_ascii_digit() || matches!(x, b'+' | b'/' | b'='))
                        || looks_like_credential(tok))
            } else {
                looks_like_credential(tok)
            };
            if ok {
                return Some((j, end));
            }
        }
    }
    let mut candidates = BY_FIRST[c as usize];
    while candidates != 0 {
        let format = &FORMATS[candidates.trailing_zeros() as usize];
        candidates &= candidates - 1;
        if rest.starts_with(format.prefix.as_bytes())
            && let Some(end) = format_end(b, i + format.prefix.len(), format)
        {
            return Some((i, end));
        }
    }
    if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") {
        let end = token_end(b, i);
        if end - i >= 20 && rest[..20].iter().all(|x| x.is_ascii_uppercase() || x.is_ascii_digit()) {
            return Some((i, end));
        }
    }
    None
}

/// The end of a `format` token whose body starts at `start`, if it is one.
fn format_end(b: &[u8], start: usize, format: &Format) -> Option<usize> {
    let limit = b.len().min(start.saturating_add(format.max));
    let mut end = start;
    while end < limit && format.class.accepts(b[end]) {
        end += 1;
    }
    let len = end - start;
    if len < format.min {
        return None;
    }
    if format.max != OPEN && end < b.len() && is_ident_byte(b[end]) {
        return None; // longer than the format allows
    }
    if format.digit && !b[start..end].iter().any(u8::is_ascii_digit) {
        return None;
    }
    Some(end)
}

/// At `i` (a `:`): a Telegram bot token `<8–10 digits>:<35 chars>`; the part
/// after the colon.
fn telegram_bot_token(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut d = i;
    while d > 0 && b[d - 1].is_ascii_digit() {
        d -= 1;
    }
    let digits = i - d;
    let boundary =
        d == 0 || !is_ident_byte(b[d - 1]) || (d >= 2 && b[d - 2] == b'\\') || (d >= 3 && &b[d - 3..d] == b"bot");
    if !(8..=10).contains(&digits) || !boundary {
        return None;
    }
    let start = i + 1;
    let mut end = start;
    while end < b.len() && is_ident_byte(b[end]) {
        end += 1;
    }
    (end - start == 35).then_some((start, end))
}

/// At `i` (a `~`): an Azure AD client secret `<3 chars><digit>Q~<31–34
/// chars>`.
fn azure_client_secret(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i < 5 || b[i - 1] != b'Q' || !b[i - 2].is_ascii_digit() {
        return None;
    }
    let start = i - 5;
    let azure_byte = |x: u8| x.is_ascii_alphanumeric() || matches!(x, b'_' | b'-' | b'.' | b'~');
    if !b[start..i - 2]
        .iter()
        .all(|&x| x.is_ascii_alphanumeric() || matches!(x, b'_' | b'-' | b'.'))
        || (start > 0 && azure_byte(b[start - 1]) && !(start > 1 && b[start - 2] == b'\\'))
    {
        return None;
    }
    let mut end = i + 1;
    while end < b.len() && azure_byte(b[end]) {
        end += 1;
    }
    (31..=34).contains(&(end - i - 1)).then_some((start, end))
}

/// At `i` (the `:` of `scheme://user:password@host`): the password. A
/// password may hold a `/` written raw (`https://u:ab/cd@host`): the
/// authority runs to the last `@` before a space, a quote, `?` or `#`,
/// unless what follows the user's `:` up to the first `/` is a port.
fn url_password(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let start = i + 3;
    let stop = b[start..]
        .iter()
        .position(|&x| x.is_ascii_whitespace() || matches!(x, b'"' | b'\'' | b'?' | b'#' | b'<' | b'>'))
        .map_or(b.len(), |p| start + p);
    let first_slash = b[start..stop]
        .iter()
        .position(|&x| x == b'/')
        .map_or(stop, |p| start + p);
    // The plain case: the authority ends at the first `/`.
    let plain = &b[start..first_slash];
    let (at, colon) = if let Some(at) = plain.iter().rposition(|&x| x == b'@') {
        (start + at, start + plain[..at].iter().position(|&x| x == b':')?)
    } else {
        // A `/` inside the password: `user:pa/ss@host`.
        let colon = start + plain.iter().position(|&x| x == b':')?;
        if b[colon + 1..first_slash].iter().all(u8::is_ascii_digit) {
            return None; // `host:8080/path…`
        }
        let at = start + b[start..stop].iter().rposition(|&x| x == b'@')?;
        if at < colon {
            return None;
        }
        (at, colon)
    };
    let (p0, p1) = (colon + 1, at);
    (p1 > p0 && &b[p0..p1] != REDACTED.as_bytes()).then_some((p0, p1))
}

/// At `i` (a `=` or `:` right after an identifier): if the identifier names a
/// credential, the range of the value that follows.
fn assignment_value(b: &[u8], i: usize) -> Option<(usize, usize)> {
    assignment_value_with(b, i, true)
}

/// [`assignment_value`]; with `weak_keys`, also after a key that only ends
/// in `key` when the value looks random (redaction; the script check
/// leaves those to the shape rules).
fn assignment_value_with(b: &[u8], i: usize, weak_keys: bool) -> Option<(usize, usize)> {
    // Identifier before `i`, allowing spaces and a closing quote (escaped or
    // not): `"api_key": "…"`, `"api_key" : "…"`, `{\"password\":\"…\"}`.
    let mut k_end = i;
    while k_end > 0 && b[k_end - 1] == b' ' {
        k_end -= 1;
    }
    let key_quoted = k_end > 0 && matches!(b[k_end - 1], b'"' | b'\'');
    if key_quoted {
        k_end -= 1;
        if k_end > 0 && b[k_end - 1] == b'\\' {
            k_end -= 1;
        }
    }
    let mut k_start = k_end;
    while k_start > 0 && is_ident_byte(b[k_start - 1]) {
        k_start -= 1;
    }
    if k_start == k_end || k_end - k_start > 64 {
        return None;
    }
    let key = std::str::from_utf8(&b[k_start..k_end]).ok()?;
    let kind = key_kind(key);
    let weak = weak_keys && kind == KeyKind::Plain && is_weak_secret_key(key);
    if kind == KeyKind::Plain && !weak {
        return None;
    }
    // What the value must look like to be taken for a credential.
    let looks_secret = |v: &[u8]| {
        if weak {
            random_value(v)
        } else if let KeyKind::Ambiguous(min) = kind {
            std::str::from_utf8(v).is_ok_and(|v| credential_shaped(v, min))
        } else {
            true
        }
    };
    let mut j = i + 1;
    while j < b.len() && b[j] == b' ' {
        j += 1;
    }
    if j + 1 < b.len() && b[j] == b'\\' && matches!(b[j + 1], b'"' | b'\'') {
        j += 1; // an escaped quote: `\"value\"`
    }
    let quoted = j < b.len() && matches!(b[j], b'"' | b'\'');
    if quoted {
        let q = b[j];
        let start = j + 1;
        let mut end = b[start..].iter().position(|&x| x == q).map_or(b.len(), |p| start + p);
        if end > start && b[end - 1] == b'\\' {
            end -= 1;
        }
        if end > start && &b[start..end] != REDACTED.as_bytes() && looks_secret(&b[start..end]) {
            return Some((start, end));
        }
        return None;
    }
    // Unquoted: up to whitespace or a separator; a following scheme word
    // (`Authorization: Bearer xyz`) is covered by the scheme rule.
    if ["bearer ", "basic ", "token "]
        .iter()
        .any(|w| starts_with_ci(&b[j..], w))
    {
        return None;
    }
    let end = b[j..]
        .iter()
        .position(|&x| x.is_ascii_whitespace() || matches!(x, b',' | b';' | b'&' | b'"' | b'\'' | b'}' | b')' | b'\\'))
        .map_or(b.len(), |p| j + p);
    let value = &b[j..end];
    // A boolean or null is never a credential, nor a number in JSON or a
    // Python literal (`{"password": false}`, `{'pin': None}`, `"api_key":
    // 0`), as a structured value is not: an unquoted number stays one
    // after an unquoted key (`password=123456`).
    let literal = matches!(value, b"true" | b"false" | b"null" | b"True" | b"False" | b"None")
        || (key_quoted && json_number(value));
    if end > j && !literal && value != REDACTED.as_bytes() && looks_secret(value) {
        Some((j, end))
    } else {
        None
    }
}

/// Whether `v` is a JSON number (`-12`, `0.5`, `1e-3`).
fn json_number(v: &[u8]) -> bool {
    std::str::from_utf8(v).is_ok_and(|t| {
        let digits = t.strip_prefix('-').unwrap_or(t);
        digits.starts_with(|c: char| c.is_ascii_digit()) && serde_json::from_str::<serde_json::Number>(t).is_ok()
    })
}

/// A scheme credential: long enough, and not an English word (it has a
/// digit or a symbol, or is long). A sentence's final `.` or `,` is not
/// part of it ("the output token maximum." is prose).
fn looks_like_credential(tok: &[u8]) -> bool {
    let tok = match tok {
        [rest @ .., b'.' | b','] => rest,
        _ => tok,
    };
    let mixed_case =
        tok.len() >= 12 && tok[1..].iter().any(u8::is_ascii_uppercase) && tok.iter().any(u8::is_ascii_lowercase);
    tok.len() >= 8
        && (tok.len() >= 24
            || mixed_case
            || tok
                .iter()
                .any(|b| b.is_ascii_digit() || matches!(b, b'=' | b'+' | b'/' | b'_' | b'-' | b'.')))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Scripts are stored verbatim (saved versions, `inline/`), so one with a
/// credential written into it is refused rather than stored: the secret
/// would outlive the run on disk. Only the shape rules apply (a token
/// format, a PEM key, a JWT, a URL password, a configured secret), not the
/// key-name rules, so `password = prompt(…)` or a `{"token": "string"}`
/// schema pass.
///
/// # Errors
///
/// `invalid_script` naming the line and the kind of credential.
pub fn refuse_credentials_in_script(source: &[u8]) -> crate::error::Result<()> {
    let text = String::from_utf8_lossy(source);
    match find_credential(&text) {
        None => Ok(()),
        Some((line, what)) => Err(crate::error::Error::new(
            crate::error::ErrorCode::InvalidScript,
            format!(
                "line {line} of the script holds {what}; scripts are stored as sent, so hwf refuses to keep \
                 credentials in them: configure the secret on the host (an agent backend's api_key_env, a command \
                 backend's environment) and leave it out of the script"
            ),
        )),
    }
}

/// A value as it may be stored: borrowed when it holds nothing secret.
pub fn redacted(value: &Value) -> Cow<'_, Value> {
    let mut copy = value.clone();
    if redact_value(&mut copy) {
        Cow::Owned(copy)
    } else {
        Cow::Borrowed(value)
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char
/// boundary.
pub fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29, finding 11: shapes that were stored verbatim, each
    /// redacted, and near misses left alone.
    #[test]
    fn round_three_shapes_are_redacted_and_near_misses_are_not() {
        use base64::Engine as _;
        let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
        let gh = "ghp_7Qx9Kd2LmN4pR8sT1vW3yZ5aB6cD0eF2gH4j";
        let pem_line = "MIIEowIBAAKCAQEA7Qx9Kd2LmN4pR8sT1vW3yZ5aB6cD0eF2gH4jK6mL8nP0qR2s";
        for (text, secret) in [
            ("DB_PASS=Hx7kq2Lm9Zp4Rt8v", "Hx7kq2Lm9Zp4Rt8v"),
            ("https://deploy:ab7/Qx9k@git.example.com/repo.git", "ab7/Qx9k"),
            (&format!("abc{gh}") as &str, gh),
            ("x-AKIA7QZ2XK4M9PLR3TVW", "AKIA7QZ2XK4M9PLR3TVW"),
            (&format!("token blob {} end", b64(gh)), &b64(gh) as &str),
            (
                &format!("q={}&page=2", gh.replace('_', "%5F")),
                &gh.replace('_', "%5F") as &str,
            ),
            (
                "machine api.example.com login deploy password Zq8mK3vR7tY2",
                "Zq8mK3vR7tY2",
            ),
            (
                "machine api.example.com\n  login deploy\n  password Zq8mK3vR7tY2\n",
                "Zq8mK3vR7tY2",
            ),
            ("db.internal:5432:prod:app:Pg7sEcReT9x", "Pg7sEcReT9x"),
            (
                r#"{"auths": {"ghcr.io": {"auth": "ZGVwbG95OjdReDlLZDJMbU40cFI4c1Qx"}}}"#,
                "ZGVwbG95OjdReDlLZDJMbU40cFI4c1Qx",
            ),
            (
                "STRIPE_KEY=7Qx9Kd2LmN4pR8sT1vW3yZ5aB6cD0eF2",
                "7Qx9Kd2LmN4pR8sT1vW3yZ5aB6cD0eF2",
            ),
            (
                "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=",
                "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=",
            ),
            (pem_line, pem_line),
            (&format!("{pem_line}\n") as &str, pem_line),
        ] {
            let out = redact_text(text);
            assert!(!out.contains(secret), "{text:?} -> {out:?}");
            assert!(out.contains(REDACTED), "{text:?} -> {out:?}");
        }
        for fine in [
            "sort_key=created_at",
            "cache_key=user-42",
            "bypass=yes",
            "https://example.com:8080/path@v2",
            "ssh://git@github.com:org/repo",
            "fe80:0:0:0:1 is link-local",
            "at 12:30:45:10:99 UTC",
            "2024-03-08T10:00:00+01:00:00 => NaN",
            "T10:00:00+01:00:00",
            "the password is on the wiki",
            "see logs at /var/log/app.log",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "550e8400-e29b-41d4-a716-446655440000",
            "The quick brown fox jumps over the lazy dog again and again.",
            "aGVsbG8gd29ybGQsIHRoaXMgaXMgYSBwbGFpbiBtZXNzYWdl",
            "100%25 of the tests pass",
            "release-2024-11-30-build-7Qx9Kd2LmN4p",
        ] {
            assert_eq!(redact_text(fine), fine, "{fine}");
        }
    }
    use serde_json::json;

    #[test]
    fn text_patterns() {
        let cases = [
            ("Authorization: Bearer abcdef123456", "Authorization: Bearer [REDACTED]"),
            (
                "the response exceeded the 64000 output token maximum. To configure it",
                "the response exceeded the 64000 output token maximum. To configure it",
            ),
            ("Basic dXNlcjpwYXNz", "Basic [REDACTED]"),
            ("key sk-abcdefghijklmnop1234 end", "key [REDACTED] end"),
            ("ghp_ABCDEFGHIJKLMNOPQRST0123", "[REDACTED]"),
            ("github_pat_11ABCDEFG0123456789_abc", "[REDACTED]"),
            ("glpat-abcdefghijklmn", "[REDACTED]"),
            ("slack xoxb-123456789-abc", "slack [REDACTED]"),
            ("AKIAIOSFODNN7EXAMPLE", "[REDACTED]"),
            ("GITHUB_TOKEN=abc123 next", "GITHUB_TOKEN=[REDACTED] next"),
            ("password: hunter2", "password: [REDACTED]"),
            (r#"{"api_key": "s3cr3t-value"}"#, r#"{"api_key": "[REDACTED]"}"#),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok",
                "[REDACTED]\nok",
            ),
            (
                "key: x\\n-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----",
                "key: x\\n[REDACTED]",
            ),
            (
                "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG",
                "AWS_SECRET_ACCESS_KEY=[REDACTED]",
            ),
            (
                "Authorization: Token 9f8e7d6c5b4a39281706",
                "Authorization: Token [REDACTED]",
            ),
            (
                "postgres://admin:Sup3rS3cretPw@db:5432/x",
                "postgres://admin:[REDACTED]@db:5432/x",
            ),
            ("sk_live_abcdefghijklmnop", "[REDACTED]"),
            (
                "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
                "t [REDACTED]",
            ),
            (r#"{\"password\":\"hunter2\"}"#, r#"{\"password\":\"[REDACTED]\"}"#),
            (r#""client_secret" : "abc123xyz""#, r#""client_secret" : "[REDACTED]""#),
        ];
        for (input, want) in cases {
            assert_eq!(redact_text(input), want, "{input}");
        }
    }

    /// A body of `len` bytes of `class` with digits and both cases.
    fn body(class: Class, len: usize) -> String {
        let alphabet: &[u8] = match class {
            Class::Hex => b"0a1b2c3d4e5f6789",
            Class::LowerAlnum => b"a0b1c2d3e4f5g6h7k8m9",
            Class::Alnum | Class::Token => b"aZ0bY1cX2dW3eV4fU5",
        };
        (0..len)
            .map(|i| alphabet[(i * 7 + 3) % alphabet.len()] as char)
            .collect()
    }

    #[test]
    fn every_format_is_redacted_in_every_context() {
        assert!(FORMATS.len() >= 70, "{}", FORMATS.len());
        for format in FORMATS {
            let len = if format.max == OPEN { format.min + 5 } else { format.max };
            let token = format!("{}{}", format.prefix, body(format.class, len));
            for ctx in [
                token.clone(),
                format!("the key is {token} ok"),
                format!("\"{token}\""),
                format!("x={token}"),
                format!("(\\n{token})"),
            ] {
                let out = redact_text(&ctx);
                assert!(!out.contains(&token), "{}: {ctx} -> {out}", format.vendor);
                assert!(out.contains(REDACTED), "{}: {ctx} -> {out}", format.vendor);
            }
            // One byte short of the minimum is not a token.
            let short = format!("{} {}{}", "see", format.prefix, body(format.class, format.min - 1));
            assert!(
                matches!(redact_text(&short), Cow::Borrowed(_)),
                "{}: {short} -> {}",
                format.vendor,
                redact_text(&short)
            );
        }
    }

    #[test]
    fn special_shapes() {
        let cases = [
            // Slack and Discord webhooks: the path is the credential.
            (
                "post to https://hooks.slack.com/services/T0AB12CDE/B0FG34HIJ/abcdEFGHijklMNOPqrstUVWX now",
                "post to https://hooks.slack.com/services/[REDACTED] now",
            ),
            (
                "https://discord.com/api/webhooks/123456789012345678/aBcDeFgHiJkLmNoPqRsTuVwXyZ_012345",
                "https://discord.com/api/webhooks/[REDACTED]",
            ),
            // Telegram bot tokens (also inside the API URL).
            (
                "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 up",
                "bot 123456789:[REDACTED] up",
            ),
            (
                "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/getMe",
                "https://api.telegram.org/bot123456789:[REDACTED]/getMe",
            ),
            // Discord bot token.
            (
                "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
                "[REDACTED]",
            ),
            // Azure AD client secret.
            (
                "secret abc8Q~Zk3Lw9pTq2Vx7Rn1Ym5Hs4Gd6Fb0Jc8N.e ok",
                "secret [REDACTED] ok",
            ),
            // AWS secret access keys by key name (camelCase too) and Azure
            // connection strings.
            (
                r#"{"secretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#,
                r#"{"secretAccessKey": "[REDACTED]"}"#,
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED]",
            ),
            (
                "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4+/==;EndpointSuffix=x",
                "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=x",
            ),
            (
                "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=abcDEF123%2Bxyz&se=2030",
                "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=[REDACTED]&se=2030",
            ),
            ("DD_API_KEY=0123456789abcdef0123456789abcdef", "DD_API_KEY=[REDACTED]"),
            (
                "DD-APPLICATION-KEY: 0123456789abcdef0123456789abcdef01234567",
                "DD-APPLICATION-KEY: [REDACTED]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact_text(input), want, "{input}");
        }
    }

    #[test]
    fn pem_bodies_are_redacted_across_lines() {
        let out = "starting\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACD\n\
                   -----END OPENSSH PRIVATE KEY-----\ndone\n";
        let red = redact_block(out);
        assert_eq!(red, "starting\n[REDACTED]\ndone\n");
        // Cut off before its end: redacted to the end of the block.
        let cut = "x\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBL\nAwEHoUQDQgAE";
        assert_eq!(redact_block(cut), "x\n[REDACTED]");
        // A certificate is not a secret.
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(redact_block(cert), cert);
    }

    #[test]
    fn flags_numbers_and_nulls_under_secret_keys_are_kept() {
        let mut v = json!({"hasSecret": false, "token_count": 12, "password": null, "api_key": "abc", "client_secret": {"v": 1}});
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({"hasSecret": false, "token_count": 12, "password": null, "api_key": "[REDACTED]", "client_secret": "[REDACTED]"})
        );
    }

    /// Issue 28: a key that is a credential's name in one sense and a
    /// harmless word in another (`auth` a module, `token` a lexer's,
    /// `secret` a review dimension, `sig` significant digits, `first_pass`)
    /// keeps words and redacts what is shaped like a credential, at any
    /// depth, in values and in `key: value` text alike.
    #[test]
    fn ambiguous_keys_keep_words_and_redact_credential_shaped_text() {
        let mut v = json!({
            "auth": ["login bug", "session fixation"],
            "byDim": {"auth": "2 findings", "secret": "none", "sig": "20"},
            "token": "IDENT", "next_token": "cursor-2", "first_pass": ["a.py"],
            "summary": {"auth": "green"},
            "cookie": "accepted",
        });
        let before = v.clone();
        assert!(!redact_value(&mut v), "{v}");
        assert_eq!(v, before);
        let mut v = json!({
            "secret": "s3cr3t-v4lue", "sig": "abcDEF123%2Bxyz", "db_pass": "hunter22",
            "auth": {"user": "bob", "pass": "Zq8mK3vR7tY2"},
            "credentials": ["wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"],
            "password": "words are secret here",
        });
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({
                "secret": "[REDACTED]", "sig": "[REDACTED]", "db_pass": "[REDACTED]",
                "auth": {"user": "bob", "pass": "[REDACTED]"},
                "credentials": ["[REDACTED]"],
                "password": "[REDACTED]",
            })
        );
        for (text, want) in [
            ("auth: 2 findings", "auth: 2 findings"),
            ("unexpected token: 'Here'", "unexpected token: 'Here'"),
            (
                "{'auth': 'green', 'token': 'IDENT'}",
                "{'auth': 'green', 'token': 'IDENT'}",
            ),
            ("token=abc123def456 next", "token=[REDACTED] next"),
            ("next_token=cursor-2 next", "next_token=cursor-2 next"),
            ("pass=hunter2", "pass=[REDACTED]"),
            ("GITHUB_TOKEN=abc123", "GITHUB_TOKEN=[REDACTED]"),
            ("secret: s3cr3t-v4lue", "secret: [REDACTED]"),
            ("password: hunter", "password: [REDACTED]"),
        ] {
            assert_eq!(redact_text(text), want, "{text}");
        }
    }

    #[test]
    fn literals_in_text_are_no_credentials() {
        for (text, want) in [
            (
                r#"{"password":false,"api_key":null,"client_secret":0}"#,
                r#"{"password":false,"api_key":null,"client_secret":0}"#,
            ),
            (
                "{'password': None, 'token_secret': True}",
                "{'password': None, 'token_secret': True}",
            ),
            (r#"{\"password\": 12.5}"#, r#"{\"password\": 12.5}"#),
            ("password: false", "password: false"),
            // Unquoted after an unquoted key, a number may be a PIN.
            ("password=123456", "password=[REDACTED]"),
            (r#"{"password": "false-hope-77"}"#, r#"{"password": "[REDACTED]"}"#),
            (r#"{"password":falsehood}"#, r#"{"password":[REDACTED]}"#),
        ] {
            assert_eq!(redact_text(text), want, "{text}");
        }
    }

    #[test]
    fn registered_values_are_redacted_whatever_their_shape() {
        let value = "plain-looking-value-4417";
        assert_eq!(redact_text(&format!("echo {value}!")), format!("echo {value}!"));
        register_secret(value);
        register_secret("short");
        assert_eq!(redact_text(&format!("echo {value}!")), "echo [REDACTED]!");
        assert_eq!(redact_text("short words stay"), "short words stay");
        let mut v = json!({"out": format!("{value}{value}")});
        assert!(redact_value(&mut v));
        assert_eq!(v, json!({"out": "[REDACTED][REDACTED]"}));
    }

    #[test]
    fn config_secrets_are_registered() {
        // SAFETY-free: a variable name no other test reads.
        let name = "HWF_REDACT_UNIT_TEST_KEY_VAR";
        let from_env = std::env::var(name).unwrap_or_default();
        let toml = format!(
            "[agents.backends.x]\nkind = \"openai\"\napi_key_env = \"{name}\"\n\
             [agents.backends.y]\nkind = \"command\"\nargv = [\"tool\", \"--api-key\", \"argv-secret-73519\", \"--token=flag-secret-86420\"]\n\
             [agents.backends.y.env]\nSERVICE_PASSWORD = \"env-table-secret-11235\"\n"
        );
        register_config_text(&toml);
        for s in ["argv-secret-73519", "flag-secret-86420", "env-table-secret-11235"] {
            assert_eq!(redact_text(&format!("<{s}>")), "<[REDACTED]>", "{s}");
        }
        assert!(from_env.is_empty() || redact_text(&from_env) == REDACTED);
        assert_eq!(redact_text("tool --api-key"), "tool --api-key");
    }

    #[test]
    fn credentials_in_source_are_found_by_shape_only() {
        let key = format!("{}{}", "sk-proj-", "Abc123Def456Ghi789Jkl0");
        let src = format!(
            "export default async function () {{\n  const password = prompt('x');\n  return fetch(u, {{key: '{key}'}});\n}}"
        );
        let (line, what) = find_credential(&src).expect("found");
        assert_eq!(line, 3);
        assert!(what.contains("OpenAI"), "{what}");
        let assigned = "const cfg = {\n  secretAccessKey: \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Wx3Lm2N\"\n};";
        assert_eq!(find_credential(assigned).map(|f| f.0), Some(2));
        for clean in [
            "const password = prompt('p'); const schema = {\"token\": \"string\", \"api_key\": \"string\"};",
            "const token = args.token; const apiKey = args.api_key_for_the_backend; let password = await ask(x);",
            "{\"schema\": {\"password\": {\"type\": \"string\"}}, \"secret\": \"boolean_flag\"}",
            "let url = 'https://example.com/x?token=' + t; // Bearer token from config",
            "{\"steps\": [{\"kind\": \"agent\", \"prompt\": \"use the token budget wisely\"}]}",
        ] {
            assert_eq!(find_credential(clean), None, "{clean}");
        }
        let pem = "a\nb\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----";
        assert_eq!(find_credential(pem), Some((3, "a PEM private key".into())));
    }

    #[test]
    fn harmless_text_is_borrowed() {
        for s in [
            "hello, world",
            "task-list sk- short",
            "tokens: 12 spent",
            "risk-free",
            "Bearer tokens and basic information",
            "the token budget",
            "a basic key-value store",
            "see https://example.com/a:b@c",
            "the meeting is at 10:30 and 12345678:short",
            "key-value store with key-ordering-and-more-words-here",
            "Skipping ACME account creation",
            "secret_santa_gift_list_for_the_whole_team_2024",
            "MTk4 is not a discord token",
            "a SG.value and an AC unit",
            "shpat_ without body, dapi short, EAAA short",
            "path/to/somewhere/pattern/matching/a/very/long/path/with/many/segments/here",
            "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "uuid 0192f7a4-5b6c-7d8e-9f01-23456789abcd and v1.2.3",
            "Q~ alone, 1Q~ short",
            "hooks.slack.com/services/ is documented",
        ] {
            assert!(matches!(redact_text(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn keys_and_nested_values() {
        let mut v = json!({
            "headers": {"Authorization": "x", "X-Api-Key": "5"},
            "password": "p", "tokens": 12, "token_total": null,
            "list": ["Bearer zzzz1234zzzz", "fine"],
        });
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({
                "headers": {"Authorization": "[REDACTED]", "X-Api-Key": "[REDACTED]"},
                "password": "[REDACTED]", "tokens": 12, "token_total": null,
                "list": ["Bearer [REDACTED]", "fine"],
            })
        );
    }
}
