//! The [`Harness`] trait and [`Meta`], which a harness implements and
//! exports with [`export_harness!`](crate::export_harness).

use crate::bindings::hermes::workflow::types;
use crate::{Error, Result};
use serde_json::Value;

/// What a workflow says about itself (`hwf script inspect` shows it).
#[derive(Debug, Clone, Default)]
pub struct Meta {
    name: String,
    description: String,
    when_to_use: Option<String>,
    phases: Vec<(String, Option<String>)>,
    args_schema: Option<Value>,
}

impl Meta {
    /// A name and a one-paragraph description.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            ..Self::default()
        }
    }
    /// When an agent should pick this workflow.
    pub fn when_to_use(mut self, text: impl Into<String>) -> Self {
        self.when_to_use = Some(text.into());
        self
    }
    /// Declare a phase (in order).
    pub fn phase(mut self, title: impl Into<String>) -> Self {
        self.phases.push((title.into(), None));
        self
    }
    /// Declare a phase with a description.
    pub fn phase_with_detail(mut self, title: impl Into<String>, detail: impl Into<String>) -> Self {
        self.phases.push((title.into(), Some(detail.into())));
        self
    }
    /// JSON Schema of the run arguments.
    pub fn args_schema(mut self, schema: Value) -> Self {
        self.args_schema = Some(schema);
        self
    }

    #[doc(hidden)]
    pub fn into_wit(self) -> types::Meta {
        types::Meta {
            name: self.name,
            description: self.description,
            when_to_use: self.when_to_use,
            phases: self
                .phases
                .into_iter()
                .map(|(title, detail)| types::PhaseInfo { title, detail })
                .collect(),
            args_schema: self.args_schema.map(|v| v.to_string()),
        }
    }
}

/// A workflow harness. Implement it on a unit struct and export it with
/// [`export_harness!`](crate::export_harness).
pub trait Harness {
    /// Describe the workflow.
    fn meta() -> Meta;

    /// Run the workflow. `args` is the run's JSON arguments (`null` when none
    /// were given).
    ///
    /// # Errors
    ///
    /// An error fails the run with its message.
    fn run(args: Value) -> Result<Value>;

    /// Run a named branch; the host calls this in a fresh instance for
    /// [`branch`](crate::branch) tasks and pipeline stages.
    ///
    /// # Errors
    ///
    /// The default answers `unknown_branch` for every name.
    fn branch(name: &str, input: Value) -> Result<Value> {
        let _ = input;
        Err(Error::msg(format!(
            "unknown_branch: this harness has no branch named {name:?}"
        )))
    }
}

#[doc(hidden)]
pub fn __run<H: Harness>(args: String) -> std::result::Result<String, String> {
    let args: Value = if args.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&args).map_err(|e| format!("invalid_args: {e}"))?
    };
    let out = H::run(args).map_err(|e| e.to_string())?;
    Ok(out.to_string())
}

#[doc(hidden)]
pub fn __branch<H: Harness>(name: String, input: String) -> std::result::Result<String, String> {
    let input: Value = serde_json::from_str(&input).map_err(|e| format!("invalid_args: {e}"))?;
    let out = H::branch(&name, input).map_err(|e| e.to_string())?;
    Ok(out.to_string())
}

/// Export a [`Harness`] implementation as this component's `meta`, `run`
/// and `branch`.
///
/// ```no_run
/// use hwf_guest::{Harness, Meta, Value, Result};
/// struct Noop;
/// impl Harness for Noop {
///     fn meta() -> Meta { Meta::new("noop", "Does nothing.") }
///     fn run(args: Value) -> Result<Value> { Ok(args) }
/// }
/// hwf_guest::export_harness!(Noop);
/// ```
#[macro_export]
macro_rules! export_harness {
    ($harness:ty) => {
        const _: () = {
            #[doc(hidden)]
            pub struct __HwfExport;
            impl $crate::bindings::Guest for __HwfExport {
                fn meta() -> $crate::bindings::hermes::workflow::types::Meta {
                    <$harness as $crate::Harness>::meta().into_wit()
                }
                fn run(
                    args: ::std::string::String,
                ) -> ::std::result::Result<::std::string::String, ::std::string::String> {
                    $crate::__private::run::<$harness>(args)
                }
                fn branch(
                    name: ::std::string::String,
                    input: ::std::string::String,
                ) -> ::std::result::Result<::std::string::String, ::std::string::String> {
                    $crate::__private::branch::<$harness>(name, input)
                }
            }
    $crate::bindings::__export_harness_world!(__HwfExport with_types_in $crate::bindings);
        };
    };
}
