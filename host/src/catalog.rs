//! Checking and saving workflows: components (gate, compile, `meta`) and
//! scripts (their runtime's `check`), and the catalog of saved versions.

use crate::broker::LoadedComponent;
use crate::broker::instances::call_meta;
use crate::runtime::{Hwf, Target};
use crate::store::{ScriptMeta, now_ms};
use hwf_core::error::{Error, ErrorCode, Result};
use serde_json::{Value, json};
use std::path::Path;

impl Hwf {
    /// Check a component: gate, compile, and call its `meta` export.
    /// Returns `(imports, meta)`.
    ///
    /// # Errors
    ///
    /// The gate's and loader's codes; a trap in `meta`.
    pub async fn inspect_component(&self, bytes: &[u8]) -> Result<(LoadedComponent, Value)> {
        let loaded = self.load(bytes)?;
        let meta = call_meta(self.vm(), &loaded, &self.services().limits).await?;
        Ok((loaded, meta_json(&meta)))
    }

    /// Validate a component file; returns a report.
    ///
    /// # Errors
    ///
    /// As [`Hwf::inspect_component`], plus `not_found`/`io` for the file.
    pub async fn validate(&self, path: &Path) -> Result<Value> {
        let resolved = self.resolve(&Target::Path(path.to_path_buf()))?;
        self.validate_resolved(resolved).await
    }

    /// Validate resolved bytes (a component, or a script through its
    /// runtime's `check`): a report with the meta, or the diagnostics
    /// (`valid: false`; an error listing them when `strict`).
    ///
    /// # Errors
    ///
    /// As [`Hwf::inspect_component`].
    pub async fn validate_resolved(&self, resolved: crate::scripts::Resolved) -> Result<Value> {
        if resolved.language == crate::scripts::Language::Wasm {
            return self.validate_bytes(&resolved.bytes).await;
        }
        let checked = crate::broker::instances::call_check(self.vm(), &resolved.loaded, &self.services().limits).await?;
        let lang = resolved.language.as_str();
        Ok(match checked {
            Ok(meta) => json!({
                "valid": true,
                "language": lang,
                "digest": resolved.script.digest,
                "size": resolved.bytes.len(),
                "meta": meta_json(&meta),
                "diagnostics": [],
            }),
            Err(diags) => json!({
                "valid": !diags.iter().any(|d| matches!(d.severity, crate::vm::bindings::hermes::workflow::types::Severity::Error)),
                "language": lang,
                "digest": resolved.script.digest,
                "diagnostics": diags.iter().map(diagnostic_json).collect::<Vec<_>>(),
            }),
        })
    }

    /// Validate component bytes; returns a report.
    ///
    /// # Errors
    ///
    /// As [`Hwf::inspect_component`].
    pub async fn validate_bytes(&self, bytes: &[u8]) -> Result<Value> {
        let (loaded, meta) = self.inspect_component(bytes).await?;
        Ok(
            json!({"valid": true, "language": "wasm", "digest": loaded.digest, "size": bytes.len(), "imports": loaded.imports, "meta": meta}),
        )
    }

    /// Save a component file as a new version of script `name`.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `already_exists` (without `replace`), the loader's
    /// codes.
    pub async fn save_script(&self, name: &str, path: &Path, replace: bool) -> Result<ScriptMeta> {
        hwf_core::ids::validate_name("script name", name)?;
        let resolved = self.resolve(&Target::Path(path.to_path_buf()))?;
        self.save_resolved(name, resolved, replace).await
    }

    /// Save resolved bytes (a component or a checked script) as a new
    /// version of script `name`.
    ///
    /// # Errors
    ///
    /// `invalid_script` for a script with errors; as [`Hwf::save_script`].
    pub async fn save_resolved(
        &self,
        name: &str,
        resolved: crate::scripts::Resolved,
        replace: bool,
    ) -> Result<ScriptMeta> {
        hwf_core::ids::validate_name("script name", name)?;
        if resolved.language == crate::scripts::Language::Wasm {
            return self.save_script_bytes(name, &resolved.bytes, replace).await;
        }
        let source = resolved.bytes.clone();
        refuse_credentials_in_script(&source)?;
        let report = self.validate_resolved(resolved).await?;
        if report["valid"] != true || report.get("meta").is_none() {
            return Err(script_error(&report));
        }
        let digest = report["digest"].as_str().unwrap_or("").to_owned();
        let language = report["language"].as_str().unwrap_or("").to_owned();
        let bytes_len = report["size"].as_u64().unwrap_or(0);
        let script = ScriptMeta {
            name: name.to_owned(),
            version: 0,
            digest,
            size: bytes_len,
            language,
            saved_at_ms: now_ms(),
            meta: report["meta"].clone(),
            imports: Vec::new(),
        };
        self.store().save_script(name, &source, script, replace)
    }

    /// Save component bytes as a new version of script `name`.
    ///
    /// # Errors
    ///
    /// As [`Hwf::save_script`].
    pub async fn save_script_bytes(&self, name: &str, bytes: &[u8], replace: bool) -> Result<ScriptMeta> {
        hwf_core::ids::validate_name("script name", name)?;
        let (loaded, meta) = self.inspect_component(bytes).await?;
        let script = ScriptMeta {
            name: name.to_owned(),
            version: 0,
            digest: loaded.digest,
            size: bytes.len() as u64,
            language: "wasm".into(),
            saved_at_ms: now_ms(),
            meta,
            imports: loaded.imports,
        };
        self.store().save_script(name, bytes, script, replace)
    }
}

pub use hwf_core::redact::refuse_credentials_in_script;

/// A script meta as JSON.
pub(crate) fn meta_json(meta: &crate::vm::bindings::hermes::workflow::types::Meta) -> Value {
    json!({
        "name": meta.name,
        "description": meta.description,
        "when_to_use": meta.when_to_use,
        "phases": meta.phases.iter().map(|p| json!({"title": p.title, "detail": p.detail})).collect::<Vec<_>>(),
        "args_schema": meta.args_schema.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok()),
    })
}

/// A diagnostic as JSON.
fn diagnostic_json(d: &crate::vm::bindings::hermes::workflow::types::Diagnostic) -> Value {
    use crate::vm::bindings::hermes::workflow::types::Severity;
    json!({
        "code": d.code,
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "message": d.message,
        "line": d.line,
        "column": d.column,
        "pointer": d.pointer,
    })
}

/// The `invalid_script` error for a validation report with errors.
pub fn script_error(report: &Value) -> Error {
    let errors: Vec<&Value> = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["severity"] == "error")
        .collect();
    let first = errors.first().map_or("the script is invalid".to_owned(), |d| {
        let at = d["pointer"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| d["line"].as_u64().map(|l| format!("line {l}")));
        format!(
            "{}: {}{}",
            d["code"].as_str().unwrap_or("?"),
            d["message"].as_str().unwrap_or(""),
            at.map(|a| format!(" (at {a})")).unwrap_or_default()
        )
    });
    let more = if errors.len() > 1 {
        format!(" (and {} more)", errors.len() - 1)
    } else {
        String::new()
    };
    Error::new(ErrorCode::InvalidScript, format!("{first}{more}"))
}
