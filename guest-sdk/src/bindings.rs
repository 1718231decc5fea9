//! Generated bindings for the `hermes:workflow/harness` world.
//!
//! Hidden from authors: everything here is wrapped by the SDK's own types so
//! that a wit-bindgen upgrade never changes a harness's source.

wit_bindgen::generate!({
    path: "../wit",
    world: "harness",
    pub_export_macro: true,
    export_macro_name: "__export_harness_world",
    default_bindings_module: "::hwf_guest::bindings",
    runtime_path: "::hwf_guest::__private::wit_bindgen::rt",
});
