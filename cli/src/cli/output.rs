//! Printing: human text or the facade JSON envelope, and one-line errors.

use super::exit_code;
use hwf_host::{Error, RunOutcome};
use serde_json::{Value, json};
use std::io::Write;

/// Where command output goes, and in which form.
pub struct Out {
    json: bool,
}

/// `text` with every character that could steer a terminal written as a
/// `\uXXXX` escape: C0 controls but newline and tab (ESC starts ANSI and
/// OSC sequences, CR rewrites a line, BEL…), DEL, C1 controls (U+0080 to
/// U+009F: an 8-bit CSI), and the bidirectional overrides and isolates
/// that reorder what is shown ("Trojan Source"). Phases, labels, logs,
/// questions, card titles and file names come from guests and agents: none
/// reaches a terminal raw. The escape is also a valid JSON string escape,
/// so JSON output stays valid (serde_json already escapes C0 there).
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    fn steers(c: char) -> bool {
        (c < ' ' && c != '\n' && c != '\t')
            || ('\u{7f}'..='\u{9f}').contains(&c)
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    }
    if !text.chars().any(steers) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if steers(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`hwf status … | head`) is not an error.
    let _ = writeln!(out, "{}", terminal_safe(text));
}

/// Print one line on stdout, made [`terminal_safe`].
pub fn say(text: &str) {
    print_stdout(text);
}

/// Print one line on stderr, made [`terminal_safe`].
pub fn say_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", terminal_safe(text));
}

impl Out {
    pub fn new(json: bool) -> Self {
        Self { json }
    }

    /// Whether output is the JSON envelope.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// Print a failure (one line on stderr, or the JSON envelope on stdout)
    /// and return its exit code.
    pub fn error(&self, e: &Error) -> i32 {
        if self.json {
            print_stdout(&hwf_host::facade::error_envelope(e, None).to_string());
        } else {
            say_err(&format!("hwf: {e}"));
        }
        if e.code().is_bad_input() { 2 } else { 1 }
    }

    /// Print a successful command's data.
    pub fn data(&self, data: &Value, human: impl FnOnce(&Value) -> String) {
        if self.json {
            print_stdout(&hwf_host::facade::envelope(Ok(data.clone())).to_string());
        } else {
            print_stdout(&human(data));
        }
    }

    /// Print a raw JSON value (facade responses).
    pub fn raw(&self, v: &Value) {
        print_stdout(&v.to_string());
    }

    /// Print a finished run and return the exit code.
    pub fn run_outcome(&self, o: &RunOutcome, state_dir: &std::path::Path) -> i32 {
        let s = &o.snapshot;
        let code = exit_code(s.state);
        if self.json {
            print_stdout(&hwf_host::facade::run_envelope(s, state_dir).to_string());
            return code;
        }
        match &s.error {
            None if !s.waits.is_empty() => {
                for w in &s.waits {
                    let call = if w.call.is_empty() {
                        String::new()
                    } else {
                        format!(" (call {})", w.call)
                    };
                    say_err(&format!("run {} waiting: {}{call}", s.run_id, w.summary));
                }
                print_stdout(s.run_id.as_str());
            }
            None => {
                // Calls that failed are said even when the run succeeded
                // (a dead agent resolves `null` in a script, by design).
                let failed = match s.counts.failed {
                    0 => String::new(),
                    1 => " (1 call failed; `hwf status` says why)".to_owned(),
                    n => format!(" ({n} calls failed; `hwf status` says why)"),
                };
                say_err(&format!("run {} {}{failed}", s.run_id, s.state.as_str()));
                let shown = s.result.clone().unwrap_or_else(|| json!(s.result_preview));
                print_stdout(&serde_json::to_string_pretty(&shown).unwrap_or_default());
                if let Some(p) = &s.result_path {
                    say_err(&format!(
                        "(result is large; full result in {})",
                        state_dir.join(p).display()
                    ));
                }
            }
            Some(err) => {
                say_err(&format!(
                    "hwf: run {} {}: {}: {}",
                    s.run_id,
                    s.state.as_str(),
                    err.code,
                    err.message
                ));
            }
        }
        code
    }

    /// Print a run's status.
    pub fn status(&self, v: &Value) {
        self.data(v, |v| {
            let mut text = format!(
                "run {}  {}  phase: {}\n",
                v["run_id"].as_str().unwrap_or("?"),
                v["state"].as_str().unwrap_or("?"),
                v["phase"].as_str().unwrap_or("-")
            );
            if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
                text.push_str(&format!(
                    "error: {}: {}\n",
                    err["code"].as_str().unwrap_or("?"),
                    err["message"].as_str().unwrap_or("")
                ));
            }
            if let Some(err) = v.get("controls_error").filter(|e| !e.is_null()) {
                text.push_str(&format!(
                    "controls damaged: {}: {} (decisions on this run are refused until controls.jsonl is repaired)\n",
                    err["code"].as_str().unwrap_or("?"),
                    err["message"].as_str().unwrap_or("")
                ));
            }
            if let Some(missing) = v.get("needs_host").and_then(Value::as_array).filter(|m| !m.is_empty()) {
                let names: Vec<String> = missing
                    .iter()
                    .map(|n| format!("{} ({})", n["name"].as_str().unwrap_or("?"), n["class"].as_str().unwrap_or("?")))
                    .collect();
                text.push_str(&format!(
                    "needs_host: needs a host offering {}; this host's runner leaves the run as it is for the host (embedder) that offers them\n",
                    names.join(", ")
                ));
            }
            let p = &v["progress"];
            text.push_str(&format!(
                "calls: {} done, {} failed, {} running; tokens {}{}\n",
                p["done"],
                p["failed"],
                p["running"],
                v["counts"]["tokens"],
                usage_split(&v["counts"]["usage"])
            ));
            if let Some(phases) = v["phases"].as_array().filter(|p| !p.is_empty()) {
                let titles: Vec<&str> = phases.iter().filter_map(|p| p["title"].as_str()).collect();
                text.push_str(&format!("phases: {}\n", titles.join(" → ")));
            }
            for c in v["calls"].as_array().into_iter().flatten() {
                let dur = c["duration_us"]
                    .as_u64()
                    .map_or("-".to_owned(), |us| format!("{:.1}ms", us as f64 / 1000.0));
                // A replayed call shows what it took when it ran.
                let state = match c["state"].as_str().unwrap_or("?") {
                    "done" if c["replayed"] == true => "replayed",
                    other => other,
                };
                text.push_str(&format!(
                    "  {:<8} {:<10} {:<8} {:<24} {:>9}  {}\n",
                    c["call"].as_str().unwrap_or("?"),
                    c["kind"].as_str().unwrap_or("?"),
                    state,
                    c["label"].as_str().or(c["name"].as_str()).unwrap_or("-"),
                    dur,
                    c["fingerprint"].as_str().map_or("", |f| &f[..f.len().min(19)])
                ));
                // A call's error is `{kind, message}`, its message led by
                // the code (`agent_unavailable: runner down`).
                if let Some(err) = c.get("error").filter(|e| !e.is_null()) {
                    let message = one_line(err["message"].as_str().unwrap_or(""), 200);
                    match err["code"].as_str() {
                        Some(code) => text.push_str(&format!("           error: {code}: {message}\n")),
                        None => text.push_str(&format!("           error: {message}\n")),
                    }
                }
                // What the agent said when its answer was not taken.
                for r in c["rejected"].as_array().into_iter().flatten() {
                    text.push_str(&format!(
                        "           attempt {} {}: {}\n             answered: {}\n",
                        r["attempt"],
                        r["code"].as_str().unwrap_or("rejected"),
                        one_line(r["error"].as_str().unwrap_or(""), 200),
                        one_line(r["answer"].as_str().unwrap_or("(nothing)"), 300)
                    ));
                }
            }
            if let Some(r) = v.get("result").filter(|r| !r.is_null()) {
                text.push_str(&format!("result: {r}\n"));
            } else if let Some(p) = v["result_path"].as_str() {
                text.push_str(&format!("result: {p}\n"));
            }
            text.trim_end().to_owned()
        });
    }
}

/// ` (input N, cache write N, cache read N, output N, reasoning N)`: the
/// parts of a token count that are not zero; empty when none is known.
pub fn usage_split(u: &Value) -> String {
    let parts: Vec<String> = [
        ("input", "input"),
        ("cache_creation", "cache write"),
        ("cache_read", "cache read"),
        ("output", "output"),
        ("reasoning", "reasoning"),
        ("unsplit", "unsplit"),
    ]
    .iter()
    .filter_map(|(k, name)| u[*k].as_u64().filter(|n| *n > 0).map(|n| format!("{name} {n}")))
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// `text` on one line (newlines shown as `⏎`), clipped to `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.trim().replace('\n', " ⏎ ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max).collect();
    cut.push('…');
    cut
}

/// Human text for `script list`.
pub fn script_list_text(v: &Value) -> String {
    let scripts = v["scripts"].as_array().cloned().unwrap_or_default();
    if scripts.is_empty() {
        return "no saved scripts".to_owned();
    }
    let mut lines = Vec::new();
    for s in &scripts {
        lines.push(format!(
            "{:<24} v{:06}  {}",
            s["name"].as_str().unwrap_or("?"),
            s["latest_version"].as_u64().unwrap_or(0),
            s["description"].as_str().unwrap_or("")
        ));
        // `--versions`: one line per version.
        for v in s["version_details"].as_array().into_iter().flatten() {
            let digest = v["digest"].as_str().unwrap_or("");
            lines.push(format!(
                "  v{:06}  {:<5} {:>9} B  {}  saved {}",
                v["version"].as_u64().unwrap_or(0),
                v["language"].as_str().unwrap_or("?"),
                v["size"].as_u64().unwrap_or(0),
                &digest[..digest.len().min(19)],
                v["saved_at_ms"].as_u64().unwrap_or(0)
            ));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn what_steers_a_terminal_is_escaped_and_json_stays_json() {
        assert_eq!(terminal_safe("plain\nlines\tand tabs"), "plain\nlines\tand tabs");
        assert_eq!(
            terminal_safe("\u{1b}[2J\u{1b}]0;pwned\u{7}"),
            "\\u001b[2J\\u001b]0;pwned\\u0007"
        );
        assert_eq!(terminal_safe("a\rb\u{9b}31m\u{7f}"), "a\\u000db\\u009b31m\\u007f");
        assert_eq!(terminal_safe("admin\u{202e}txt.exe"), "admin\\u202etxt.exe");
        let json = serde_json::json!({"title": "\u{9b}2J\u{202e}x"}).to_string();
        let shown = terminal_safe(&json);
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back["title"], "\u{9b}2J\u{202e}x");
    }
}
