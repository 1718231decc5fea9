//! Checking and saving workflows: components (gate, compile, `meta`) and
//! scripts (their runtime's `check`), and the catalog of saved versions.

use crate::broker::LoadedComponent;
use crate::broker::instances::call_meta;
use crate::store::{ScriptMeta, now_ms};
use crate::{Hwf, Target};
use hwf_core::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// What a harness says about itself (its `meta` export, or its script
/// runtime's `check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowMeta {
    /// Short name.
    pub name: String,
    /// One-paragraph description.
    pub description: String,
    /// When an agent should pick this workflow.
    pub when_to_use: Option<String>,
    /// Declared phases, in order.
    pub phases: Vec<PhaseInfo>,
    /// JSON Schema of the run arguments.
    pub args_schema: Option<Value>,
}

/// A declared phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseInfo {
    /// Title.
    pub title: String,
    /// Longer description.
    pub detail: Option<String>,
}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The script cannot run.
    Error,
    /// The script runs; something looks wrong.
    Warning,
}

/// One finding of a script runtime's `check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Stable code (e.g. `meta_not_first`).
    pub code: String,
    /// Severity.
    pub severity: Severity,
    /// Human-readable message.
    pub message: String,
    /// 1-based line, when known.
    pub line: Option<u32>,
    /// 1-based column, when known.
    pub column: Option<u32>,
    /// RFC 6901 pointer into a JSON definition, when relevant.
    pub pointer: Option<String>,
}

/// The outcome of validating a component or a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    /// Whether it can run (no diagnostic is an error).
    pub valid: bool,
    /// Its language (`wasm`, `js`, `json`, `python`).
    pub language: String,
    /// Digest of the bytes validated.
    pub digest: String,
    /// Size in bytes (when it checked out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The imports a component uses (components only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imports: Option<Vec<String>>,
    /// What it says about itself (when it checked out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<WorkflowMeta>,
    /// The script runtime's findings (scripts only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

impl ValidationReport {
    /// The diagnostics that are errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .flatten()
            .filter(|d| d.severity == Severity::Error)
    }

    /// The report as the JSON the front doors print.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Hwf {
    /// Check a component: gate, compile, and call its `meta` export.
    /// Returns `(imports, meta)`.
    ///
    /// # Errors
    ///
    /// The gate's and loader's codes; a trap in `meta`.
    pub async fn inspect_component(&self, bytes: &[u8]) -> Result<(LoadedComponent, WorkflowMeta)> {
        let loaded = self.load(bytes)?;
        let meta = call_meta(self.vm(), &loaded, &self.services().limits).await?;
        Ok((loaded, meta_json(&meta)))
    }

    /// Validate a component file; returns a report.
    ///
    /// # Errors
    ///
    /// As [`Hwf::inspect_component`], plus `not_found`/`io` for the file.
    pub async fn validate(&self, path: &Path) -> Result<ValidationReport> {
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
    pub async fn validate_resolved(&self, resolved: crate::app::resolve::Resolved) -> Result<ValidationReport> {
        if resolved.language == crate::scripts::Language::Wasm {
            return self.validate_bytes(&resolved.bytes).await;
        }
        let checked =
            crate::broker::instances::call_check(self.vm(), &resolved.loaded, &self.services().limits).await?;
        let language = resolved.language.as_str().to_owned();
        Ok(match checked {
            Ok(checked) => ValidationReport {
                valid: true,
                language,
                digest: resolved.script.digest,
                size: Some(resolved.bytes.len() as u64),
                imports: None,
                meta: Some(meta_json(&checked.meta)),
                diagnostics: Some(checked.warnings.iter().map(diagnostic_json).collect()),
            },
            Err(diags) => {
                let diagnostics: Vec<Diagnostic> = diags.iter().map(diagnostic_json).collect();
                ValidationReport {
                    valid: !diagnostics.iter().any(|d| d.severity == Severity::Error),
                    language,
                    digest: resolved.script.digest,
                    size: None,
                    imports: None,
                    meta: None,
                    diagnostics: Some(diagnostics),
                }
            }
        })
    }

    /// Validate component bytes; returns a report.
    ///
    /// # Errors
    ///
    /// As [`Hwf::inspect_component`].
    pub async fn validate_bytes(&self, bytes: &[u8]) -> Result<ValidationReport> {
        let (loaded, meta) = self.inspect_component(bytes).await?;
        Ok(ValidationReport {
            valid: true,
            language: "wasm".into(),
            digest: loaded.digest,
            size: Some(bytes.len() as u64),
            imports: Some(loaded.imports),
            meta: Some(meta),
            diagnostics: None,
        })
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
        resolved: crate::app::resolve::Resolved,
        replace: bool,
    ) -> Result<ScriptMeta> {
        hwf_core::ids::validate_name("script name", name)?;
        if resolved.language == crate::scripts::Language::Wasm {
            return self.save_script_bytes(name, &resolved.bytes, replace).await;
        }
        let source = resolved.bytes.clone();
        refuse_credentials_in_script(&source)?;
        let size = source.len() as u64;
        let report = self.validate_resolved(resolved).await?;
        let meta = match (&report.meta, report.valid) {
            (Some(meta), true) => meta_value(meta)?,
            _ => return Err(script_error(&report)),
        };
        let script = ScriptMeta {
            name: name.to_owned(),
            version: 0,
            digest: report.digest,
            size,
            language: report.language,
            saved_at_ms: now_ms(),
            meta,
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
            meta: meta_value(&meta)?,
            imports: loaded.imports,
        };
        self.store().save_script(name, bytes, script, replace)
    }
}

pub use hwf_core::redact::refuse_credentials_in_script;

/// A meta as stored with a saved script.
fn meta_value(meta: &WorkflowMeta) -> Result<Value> {
    serde_json::to_value(meta).map_err(|e| Error::new(ErrorCode::Internal, format!("meta: {e}")))
}

/// A script meta from its WIT record.
pub(crate) fn meta_json(meta: &crate::vm::bindings::hermes::workflow::types::Meta) -> WorkflowMeta {
    WorkflowMeta {
        name: meta.name.clone(),
        description: meta.description.clone(),
        when_to_use: meta.when_to_use.clone(),
        phases: meta
            .phases
            .iter()
            .map(|p| PhaseInfo {
                title: p.title.clone(),
                detail: p.detail.clone(),
            })
            .collect(),
        args_schema: meta
            .args_schema
            .as_deref()
            .and_then(|s| serde_json::from_str::<Value>(s).ok()),
    }
}

/// A diagnostic from its WIT record.
fn diagnostic_json(d: &crate::vm::bindings::hermes::workflow::types::Diagnostic) -> Diagnostic {
    use crate::vm::bindings::hermes::workflow::types::Severity as Wit;
    Diagnostic {
        code: d.code.clone(),
        severity: match d.severity {
            Wit::Error => Severity::Error,
            Wit::Warning => Severity::Warning,
        },
        message: d.message.clone(),
        line: d.line,
        column: d.column,
        pointer: d.pointer.clone(),
    }
}

/// The `invalid_script` error for a validation report with errors.
pub fn script_error(report: &ValidationReport) -> Error {
    let errors: Vec<&Diagnostic> = report.errors().collect();
    let first = errors.first().map_or("the script is invalid".to_owned(), |d| {
        let at = d.pointer.clone().or_else(|| d.line.map(|l| format!("line {l}")));
        format!(
            "{}: {}{}",
            d.code,
            d.message,
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
