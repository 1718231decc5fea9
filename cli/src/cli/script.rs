//! `hwf validate` and `hwf script save|list|inspect`.

use super::output::{self, Out};
use super::{Cli, ScriptCommand, open_host};
use hwf_host::catalog::Severity;
use hwf_host::config::Config;
use hwf_host::{Error, ErrorCode, Target};
use serde_json::Value;
use std::path::Path;

/// `hwf validate PATH`.
pub async fn validate(cli: &Cli, config: &Config, path: &Path, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let report = hwf.validate(path).await?;
    let at = |d: &hwf_host::catalog::Diagnostic| {
        d.pointer
            .as_ref()
            .map(|p| format!(" (at {p})"))
            .or_else(|| d.line.map(|l| format!(" (line {l})")))
            .unwrap_or_default()
    };
    if !report.valid {
        if !out.is_json() {
            for d in report.diagnostics.iter().flatten() {
                super::output::say_err(&format!(
                    "{} {}: {}{}",
                    if d.severity == Severity::Warning {
                        "warning"
                    } else {
                        "error"
                    },
                    d.code,
                    d.message,
                    at(d)
                ));
            }
        }
        let e = hwf_host::catalog::script_error(&report);
        if out.is_json() {
            out.raw(&hwf_host::facade::error_envelope(&e, Some(report.to_json())));
            return Ok(2);
        }
        return Err(e);
    }
    // A valid script's diagnostics are its warnings.
    let warnings = report.diagnostics.as_ref().map_or(0, Vec::len);
    if !out.is_json() {
        for d in report.diagnostics.iter().flatten() {
            super::output::say_err(&format!("warning {}: {}{}", d.code, d.message, at(d)));
        }
    }
    let name = report.meta.as_ref().map_or("?", |m| m.name.as_str());
    out.data(&report.to_json(), |_| match &report.imports {
        Some(imports) => format!(
            "ok: {} is a valid harness ({name}; imports: {})",
            path.display(),
            imports.len()
        ),
        None => format!(
            "ok: {} is a valid {} workflow ({name}; {warnings} warning{})",
            path.display(),
            match report.language.as_str() {
                "js" => "JavaScript",
                "json" => "JSON",
                "python" => "Python",
                other => other,
            },
            if warnings == 1 { "" } else { "s" }
        ),
    });
    Ok(0)
}

/// `hwf script …`.
pub async fn script(cli: &Cli, config: &Config, cmd: &ScriptCommand, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    match cmd {
        ScriptCommand::Save {
            name, path, replace, ..
        } => {
            let meta = hwf.save_script(name, path, *replace).await?;
            let v = serde_json::to_value(&meta).unwrap_or(Value::Null);
            out.data(&v, |_| {
                format!("saved {} v{:06} ({})", meta.name, meta.version, meta.digest)
            });
        }
        ScriptCommand::List { versions, .. } => {
            let list = hwf.script_list(*versions)?;
            out.data(&list.to_json(), output::script_list_text);
        }
        ScriptCommand::Inspect { name, .. } => {
            let (name, version) = match Target::parse(name)? {
                Target::Saved { name, version } => (name, version),
                Target::Path(_) => {
                    return Err(Error::new(
                        ErrorCode::InvalidName,
                        format!("{name:?} is not a script name"),
                    ));
                }
            };
            let v = hwf.script_inspect(&name, version)?.to_json();
            out.data(&v, |v| serde_json::to_string_pretty(v).unwrap_or_default());
        }
    }
    Ok(0)
}
