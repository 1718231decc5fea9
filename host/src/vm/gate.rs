//! The import gate: what a component may import, checked on the raw bytes
//! before anything is compiled (at `script save`, `validate` and `run`).
//!
//! Allowed: `hermes:workflow/*` and the WASI 0.2 interfaces a std Rust guest
//! needs — `wasi:cli/*`, `wasi:io/*`, `wasi:clocks/*`, `wasi:random/*`.
//! Anything else (`wasi:filesystem`, `wasi:sockets`, `wasi:http`, unknown
//! packages) is refused with an error naming the import.

use hwf_core::error::{Error, ErrorCode, Result};
use wasmparser::{Parser, Payload};

/// Interface prefixes a harness may import.
pub const ALLOWED_IMPORT_PREFIXES: &[&str] = &[
    "hermes:workflow/",
    "wasi:cli/",
    "wasi:io/",
    "wasi:clocks/",
    "wasi:random/",
];

/// Extra prefixes a bundled script runtime may import: the filesystem,
/// linked with no preopens (no directory exists to reach).
pub const RUNTIME_EXTRA_PREFIXES: &[&str] = &["wasi:filesystem/"];

/// Which allow-list applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// User harnesses: the allow-list above.
    Harness,
    /// The bundled script runtimes (loaded from the runtime directory).
    Runtime,
}

/// Whether one import name is allowed.
pub fn is_allowed_import(name: &str) -> bool {
    ALLOWED_IMPORT_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn allowed(name: &str, which: Gate) -> bool {
    is_allowed_import(name) || (which == Gate::Runtime && RUNTIME_EXTRA_PREFIXES.iter().any(|p| name.starts_with(p)))
}

/// Check the bytes are a component within the size limit whose top-level
/// imports are all allowed; returns the import names.
///
/// # Errors
///
/// `component_too_large`, `not_a_component` (a core module),
/// `invalid_component` (anything unparsable), `forbidden_import` naming the
/// first offending import and how many there are.
pub fn check_component(bytes: &[u8], max_bytes: u64) -> Result<Vec<String>> {
    check_component_with(bytes, max_bytes, Gate::Harness)
}

/// [`check_component`] with a chosen allow-list.
///
/// # Errors
///
/// As [`check_component`].
pub fn check_component_with(bytes: &[u8], max_bytes: u64, which: Gate) -> Result<Vec<String>> {
    if bytes.len() as u64 > max_bytes {
        return Err(Error::new(
            ErrorCode::ComponentTooLarge,
            format!("the component is {} bytes; the limit is {max_bytes}", bytes.len()),
        ));
    }
    if Parser::is_core_wasm(bytes) {
        return Err(Error::new(
            ErrorCode::NotAComponent,
            "this is a core WebAssembly module, not a component; build the harness for wasm32-wasip2 (or run `wasm-tools component new`)",
        ));
    }
    if !Parser::is_component(bytes) {
        let why = if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
            "it does not start with the WebAssembly magic number"
        } else {
            "its version/layer header is not a component's"
        };
        return Err(Error::new(
            ErrorCode::InvalidComponent,
            format!("not a WebAssembly component: {why}"),
        ));
    }
    let mut imports = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload =
            payload.map_err(|e| Error::new(ErrorCode::InvalidComponent, format!("malformed component: {e}")))?;
        match payload {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(reader) if depth == 1 => {
                for import in reader {
                    let import = import
                        .map_err(|e| Error::new(ErrorCode::InvalidComponent, format!("malformed import: {e}")))?;
                    // Type imports (`use types.{json}` at world level) carry
                    // no behaviour; everything else is gated.
                    if matches!(import.ty, wasmparser::ComponentTypeRef::Type(_)) {
                        continue;
                    }
                    imports.push(import.name.name.to_owned());
                    // A plain-named import may claim to implement an
                    // interface; gate that interface too.
                    if let Some(iface) = import.name.implements {
                        imports.push(iface.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    check_import_names(imports, which)
}

/// Check a component's top-level import names (as [`check_component_with`]
/// reads them from the bytes, or as wasmtime lists them for a component
/// loaded from a precompiled artifact) against the allow-list; returns
/// them.
///
/// # Errors
///
/// `forbidden_import` naming the first offending imports and how many there
/// are.
pub fn check_import_names(imports: Vec<String>, which: Gate) -> Result<Vec<String>> {
    let forbidden: Vec<&str> = imports
        .iter()
        .map(String::as_str)
        .filter(|n| !allowed(n, which))
        .collect();
    if !forbidden.is_empty() {
        let shown: Vec<String> = forbidden.iter().take(6).map(|n| format!("{n:?}")).collect();
        let more = if forbidden.len() > 6 {
            format!(" and {} more", forbidden.len() - 6)
        } else {
            String::new()
        };
        return Err(Error::new(
            ErrorCode::ForbiddenImport,
            format!(
                "the component imports {}{more}; harnesses may only import hermes:workflow/*, wasi:cli/*, wasi:io/*, wasi:clocks/* and wasi:random/*",
                shown.join(", ")
            ),
        ));
    }
    Ok(imports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_non_components() {
        let core = b"\0asm\x01\0\0\0";
        assert_eq!(
            check_component(core, 1 << 20).expect_err("core").code(),
            ErrorCode::NotAComponent
        );
        assert_eq!(
            check_component(b"hello world", 1 << 20).expect_err("junk").code(),
            ErrorCode::InvalidComponent
        );
        assert_eq!(
            check_component(b"", 1 << 20).expect_err("empty").code(),
            ErrorCode::InvalidComponent
        );
        assert_eq!(
            check_component(&[0u8; 100], 10).expect_err("big").code(),
            ErrorCode::ComponentTooLarge
        );
        // A component header followed by garbage.
        let bad = b"\0asm\x0d\0\x01\0\xff\xff\xff";
        assert_eq!(
            check_component(bad, 1 << 20).expect_err("torn").code(),
            ErrorCode::InvalidComponent
        );
    }

    #[test]
    fn allow_list() {
        assert!(is_allowed_import("hermes:workflow/host@0.1.0"));
        assert!(is_allowed_import("wasi:cli/stdout@0.2.3"));
        assert!(!is_allowed_import("wasi:filesystem/types@0.2.3"));
        assert!(!is_allowed_import("wasi:sockets/tcp@0.2.3"));
        assert!(!is_allowed_import("wasi:http/outgoing-handler@0.2.3"));
        assert!(!is_allowed_import("evil:pkg/x"));
    }
}
