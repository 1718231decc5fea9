//! INTERNAL: paths of the guest components built by `build.rs` for the
//! end-to-end tests, and the benchmark.

#![allow(clippy::unwrap_used, reason = "build-time constants")]

/// Component paths (absolute), one constant per guest.
pub mod harnesses {
    include!(concat!(env!("OUT_DIR"), "/harnesses.rs"));
}

/// The workspace root.
pub const WORKSPACE_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
