//! Link the component with an 8 MiB stack (the default is 1 MiB): Boa's
//! recursive-descent parser spends several kilobytes of stack per nesting
//! level, and the source check (`src/depth.rs`) allows 128 levels.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=-zstack-size=8388608");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
