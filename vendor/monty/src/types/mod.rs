/// Type definitions for Python runtime values.
///
/// This module contains structured types that wrap heap-allocated data
/// and provide Python-like semantics for operations like append, insert, etc.
///
/// The `AbstractValue` trait provides a common interface for all heap-allocated
/// types, enabling efficient dispatch via `enum_dispatch`.
pub mod bytearray;
pub mod bytes;
pub mod callable_iterator;
pub mod class;
/// hwf: `complex`.
pub mod complex;
pub mod date;
pub mod datetime;
pub mod deque;
pub mod dict;
pub mod dict_view;
pub mod ext_function;
pub mod file;
pub mod generator;
pub mod host_class;
pub mod instance;
pub mod iter;
pub mod itertools;
pub mod list;
pub mod long_int;
pub mod method_descriptor;
pub mod module;
pub mod namedtuple;
pub mod partial;
pub mod path;
pub mod property;
pub mod py_trait;
pub mod range;
pub mod re_match;
pub mod re_pattern;
pub mod set;
pub mod slice;
pub mod str;
pub mod time;
pub mod timedelta;
pub mod timezone;
pub mod tuple;
/// hwf: `int | None` (PEP 604).
pub mod union_type;
pub(crate) mod user_attrs;
pub mod r#type;

pub(crate) use bytes::{Bytes, BytesIterator};
pub(crate) use class::{Class, DataclassOptions};
pub(crate) use deque::Deque;
pub(crate) use dict::{Dict, DictItemIterator, DictKeyIterator, DictValueIterator};
pub(crate) use dict_view::{DictItemsView, DictKeysView, DictValuesView};
pub(crate) use ext_function::ExtFunction;
pub(crate) use file::OpenFile;
pub(crate) use generator::{Generator, GeneratorState};
pub(crate) use host_class::{HostClass, HostClassType, host_class_type};
pub(crate) use instance::{BoundMethod, Instance};
pub(crate) use iter::{collect_iterable, collect_iterable_bounded};
pub(crate) use itertools::ItertoolsIter;
pub(crate) use list::List;
pub(crate) use long_int::LongInt;
pub(crate) use module::Module;
pub(crate) use namedtuple::{NamedTuple, NamedTupleClass, construct_namedtuple};
pub(crate) use partial::Partial;
pub(crate) use path::Path;
pub(crate) use property::Property;
pub(crate) use py_trait::{AttrCallResult, CmpOrder, LazyHeapSet, PyTrait, attribute_name_value};
pub(crate) use range::{Range, RangeIterator};
pub(crate) use re_match::ReMatch;
pub(crate) use re_pattern::{BoundedCompileError, RePattern};
pub(crate) use set::{FrozenSet, Set, SetIterator};
pub(crate) use slice::Slice;
pub(crate) use str::{Str, StringIterator, allocate_string};
pub(crate) use timedelta::TimeDelta;
pub(crate) use timezone::TimeZone;
pub(crate) use tuple::{Tuple, TupleIterator, TupleVec, allocate_tuple};
pub(crate) use r#type::Type;
