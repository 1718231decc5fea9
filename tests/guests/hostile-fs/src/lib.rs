//! A guest that imports `wasi:filesystem` (reads a file); the gate must refuse it.

use hwf_guest::{Harness, Meta, Result, Value, json};

struct Fs;

impl Harness for Fs {
    fn meta() -> Meta {
        Meta::new("hostile-fs", "Tries to read the host filesystem (tests only).")
    }
    fn run(_args: Value) -> Result<Value> {
        let text = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        Ok(json!({"len": text.len()}))
    }
}

hwf_guest::export_harness!(Fs);
