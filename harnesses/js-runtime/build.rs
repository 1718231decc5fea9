//! Links the runtime with a larger C stack than Rust's default 1 MiB, so
//! QuickJS's own limit (`engine::JS_STACK`) can allow recursion as deep as
//! scripts written for Node and Bun expect.

/// Bytes of linear memory reserved for the C stack (QuickJS's frames).
const C_STACK: usize = 4 << 20;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size={C_STACK}");
    }
}
