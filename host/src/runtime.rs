//! The embedding API's former home, kept so that `hwf_host::runtime::…`
//! paths keep working: [`Hwf`] and its builder live in
//! [`crate::app::host`], runs in [`crate::app::runs`], resumes in
//! [`crate::app::resume`], progress in [`crate::app::monitor`], targets in
//! [`crate::app::resolve`].

pub use crate::app::host::{Hwf, HwfBuilder};
pub use crate::app::monitor::{Progress, ProgressFn};
pub use crate::app::resolve::{Target, read_component};
pub use crate::app::runs::{RESULT_PREVIEW_BYTES, RunOutcome, RunRequest};
