//! The JS, Python and JSON script runtimes this binary carries (components
//! and artifacts precompiled for the build's target, zstd-compressed), as
//! `build.rs` made them; handed to `hwf_host::scripts::embed_runtimes` at
//! start-up. Nothing is read or decompressed until a script runs.

include!(concat!(env!("OUT_DIR"), "/runtimes.rs"));
