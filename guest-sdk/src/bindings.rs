//! Generated bindings for the `hermes:workflow` worlds.
//!
//! Hidden from authors: everything here is wrapped by the SDK's own types so
//! that a wit-bindgen upgrade never changes a harness's source.
//!
//! The crate-level bindings are the `harness` world's; [`script_runtime`]
//! adds the `script-runtime` world's exports over the same `types` and
//! `host` modules. Both are generated with `pub_export_macro`, so the crate
//! itself only describes its imports (which the two worlds share); a
//! component's exports are described where its export macro expands
//! ([`export_harness!`](crate::export_harness) or
//! [`export_script_runtime!`](crate::export_script_runtime)).

wit_bindgen::generate!({
    path: "wit",
    world: "harness",
    pub_export_macro: true,
    export_macro_name: "__export_harness_world",
    default_bindings_module: "::hwf_guest::bindings",
    runtime_path: "::hwf_guest::__private::wit_bindgen::rt",
    // `diagnostic` and `severity` are used by the script-runtime world only.
    generate_unused_types: true,
});

/// The `script-runtime` world: its exports only (`types` and `host` are
/// the modules above).
pub mod script_runtime {
    wit_bindgen::generate!({
        path: "wit",
        world: "script-runtime",
        with: {
            "hermes:workflow/types@0.1.0": ::hwf_guest::bindings::hermes::workflow::types,
            "hermes:workflow/host@0.1.0": ::hwf_guest::bindings::hermes::workflow::host,
        },
        pub_export_macro: true,
        export_macro_name: "__export_script_runtime_world",
        default_bindings_module: "::hwf_guest::bindings::script_runtime",
        runtime_path: "::hwf_guest::__private::wit_bindgen::rt",
    });
}
