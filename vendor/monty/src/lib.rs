#![doc = include_str!("../README.md")]
// these files first because they include macros for the rest of the crate to use
mod boundary_uuid;
mod heap;
mod heap_traits;

mod args;
mod asyncio;
mod builtins;
mod bytecode;
mod codecs;
mod cpython_hash; // hwf: CPython's set order
mod dump_format;
mod exception_private;
mod expressions;
mod fstring;
mod function;
mod hash;
mod heap_data;
mod identity;
mod intern;
mod modules;
mod name_map;
mod namespace;
mod object_bridge;
mod os_dispatch;
mod parse;
// hwf patch: printf-style `str % args`.
mod percent_format;
mod predicate;
mod prepare;
mod repl;
mod resource_checks;
mod run;
mod run_progress;
mod sorting;
mod source_map;
mod str_format;
mod string_builder;
mod stringize;
mod types;
mod value;

#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub use crate::function::FunctionMetadataFault;
#[cfg(feature = "ref-count-return")]
pub use crate::run::RefCountOutput;
pub use crate::{
    dump_format::{DUMP_VERSION, Dump, DumpError, Session, SessionRef, dump},
    repl::{
        MontyRepl, ReplContinuationMode, ReplFunctionCall, ReplNameLookup, ReplOsCall, ReplProgress,
        ReplResolveFutures, ReplStartError, detect_repl_continuation_mode,
    },
    run::MontyRun,
    run_progress::{FunctionCall, NameLookup, OsCall, ResolveFutures, RunProgress},
};
