//! hwf: generator objects, produced by calling a function whose body
//! contains `yield`.
//!
//! A generator holds its function's frame while it is not running: the
//! bound arguments before the first `next()`, then the locals, operand stack,
//! instruction pointer and exception-stack entries saved by each `yield`.
//! Advancing it (`next()`, a `for` loop, `list()`, `send()`) pushes that
//! frame back onto the VM and runs it until the next `yield` (the yielded
//! value is the item) or until it returns (the generator is exhausted), as
//! CPython does. It runs in a nested `run()` of the VM, like a `sorted(key=)`
//! callback: host calls (external functions) inside a generator's body are
//! refused with `NotImplementedError`.
//!
//! An async generator (`yield` inside `async def`, `is_async`) is the same
//! object advanced by `async for` instead, its frame on the VM's frame stack
//! (see `bytecode/vm/generator.rs`); it is not a (sync) iterator.

use std::mem;

use serde::{Deserialize, Serialize};

use crate::{
    args::ArgValues,
    builtins::Builtins,
    bytecode::{CallResult, VM},
    exception_private::{ExcType, ExcTypeExt, RunResult, SimpleException},
    heap::{DropWithContext, HeapId, HeapItem, HeapObjectRead},
    intern::FunctionId,
    types::{PyTrait, Type},
    value::{EitherStr, Value},
};

/// Where a generator is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum GeneratorState {
    /// Created; `stack` holds the bound namespace, nothing has run.
    New,
    /// Paused at a `yield`; `stack`, `ip` and `exception_stack` hold the frame.
    Suspended,
    /// Its frame is on the VM (advancing it again raises `ValueError`).
    Running,
    /// Returned or raised; it yields nothing more.
    Finished,
}

/// A generator object (`<generator object f>`).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Generator {
    /// The generator function.
    pub func_id: FunctionId,
    /// The frame's stack region: locals, then the operand stack at the
    /// `yield` (just the bound locals while `New`).
    pub stack: Vec<Value>,
    /// The instruction after the `yield` the frame paused at.
    pub ip: usize,
    /// Exception-stack entries the frame had pushed (a `yield` inside an
    /// `except` block).
    pub exception_stack: Vec<Value>,
    /// Number of local slots at the bottom of `stack`.
    pub locals_count: u16,
    /// Where it is in its life.
    pub state: GeneratorState,
    /// What its body returned, once `Finished`, until a `yield from` over it
    /// takes it.
    #[serde(default)]
    pub return_value: Option<Value>,
    /// Paused at the `yield` of a `yield from`: the iterator it delegates to
    /// is the top of `stack`.
    #[serde(default)]
    pub delegating: bool,
    /// hwf: an async generator (its function is an `async def`).
    #[serde(default)]
    pub is_async: bool,
}

impl Generator {
    /// A generator for `func_id` whose arguments are bound into `namespace`.
    pub(crate) fn new(func_id: FunctionId, namespace: Vec<Value>) -> Self {
        let locals_count = u16::try_from(namespace.len()).unwrap_or(u16::MAX);
        Self {
            func_id,
            stack: namespace,
            ip: 0,
            exception_stack: Vec::new(),
            locals_count,
            state: GeneratorState::New,
            return_value: None,
            delegating: false,
            is_async: false,
        }
    }

    /// Invokes `on_child` for each heap id this generator owns (GC trace hook).
    pub(crate) fn for_each_child_id(&self, mut on_child: impl FnMut(HeapId)) {
        for value in self.stack.iter().chain(&self.exception_stack).chain(&self.return_value) {
            if let Value::Ref(id) = value {
                on_child(*id);
            }
        }
    }

    /// Takes the saved frame out (leaving the generator empty).
    pub(crate) fn take_frame(&mut self) -> (Vec<Value>, Vec<Value>) {
        (mem::take(&mut self.stack), mem::take(&mut self.exception_stack))
    }
}

impl HeapItem for Generator {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        for value in self
            .stack
            .iter_mut()
            .chain(self.exception_stack.iter_mut())
            .chain(self.return_value.iter_mut())
        {
            value.py_dec_ref_ids(stack);
        }
    }
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, Generator> {
    fn py_is_iterator(&self, vm: &VM<'h>) -> bool {
        !self.get(vm.heap).is_async
    }

    fn py_is_iterable(&self, vm: &VM<'h>) -> bool {
        !self.get(vm.heap).is_async
    }

    fn py_type(&self, _: &VM<'h>) -> Type {
        Type::Generator
    }

    fn py_len(&self, _: &VM<'h>) -> Option<usize> {
        None
    }

    fn py_eq_impl(&self, _: &Value, _: &mut VM<'h>) -> RunResult<Option<bool>> {
        Ok(None)
    }

    /// hwf: an async generator's `repr` names its type and function, as
    /// CPython's `<async_generator object f at 0x…>`.
    fn py_repr_fmt(
        &self,
        f: &mut impl std::fmt::Write,
        vm: &mut VM<'h>,
        _heap_ids: &mut crate::types::LazyHeapSet,
    ) -> RunResult<()> {
        let generator = self.get(vm.heap);
        if !generator.is_async {
            return self.py_default_repr_fmt(f, vm);
        }
        let name = vm
            .interns
            .get_str(vm.interns.get_function(generator.func_id).name.name_id);
        let identity = crate::types::py_trait::PyObjectIdentity::py_identity(self);
        Ok(write!(
            f,
            "<async_generator object {name} at 0x{:x}>",
            identity.encoded()
        )?)
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        if self.get(vm.heap).is_async {
            return Err(
                SimpleException::new_msg(ExcType::TypeError, "'async_generator' object is not iterable").into(),
            );
        }
        Ok(self.clone_value(vm.heap))
    }

    /// Runs the generator to its next `yield`. No heap borrow is held across
    /// the run: the body may reach this generator again (`ValueError:
    /// generator already executing`, as in CPython).
    fn py_next(&mut self, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        if self.get(vm.heap).is_async {
            return Err(
                SimpleException::new_msg(ExcType::TypeError, "'async_generator' object is not an iterator").into(),
            );
        }
        let id = self.id();
        vm.resume_generator(id, Value::None)
    }

    /// `send(value)` advances the generator with `value` as the result of
    /// the paused `yield` (`StopIteration` carrying its return value when it
    /// is exhausted); `throw(exc)` raises `exc` there; `close()` raises
    /// `GeneratorExit` there, so pending `finally` blocks run, as in CPython.
    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        let id = self.id();
        if self.get(vm.heap).is_async {
            // hwf: `asend` / `athrow` / `aclose` / `__anext__` are not built.
            args.drop_with(vm);
            return Err(ExcType::attribute_error("async_generator", attr.as_str(vm.interns)));
        }
        match attr.as_str(vm.interns) {
            "send" => {
                let ArgValues::One(value) = args else {
                    let n = args.count();
                    args.drop_with(vm);
                    return Err(SimpleException::new_msg(
                        ExcType::TypeError,
                        format!("generator.send() takes exactly one argument ({n} given)"),
                    )
                    .into());
                };
                match vm.resume_generator(id, value)? {
                    Some(item) => Ok(CallResult::Value(item)),
                    None => Err(vm.generator_stop_iteration(id)),
                }
            }
            "throw" => {
                // `throw(exc)`; the deprecated `throw(type, value)` form
                // raises `type(value)` when `value` is not an instance.
                let exc = match args {
                    ArgValues::One(exc) => exc,
                    ArgValues::Two(ty, value) => match (&ty, &value) {
                        (Value::Builtin(Builtins::ExcType(exc_type)), v) if !matches!(v, Value::Ref(_)) => {
                            let exc_type = *exc_type;
                            let arg = value;
                            let exc = exc_type.call(vm, ArgValues::One(arg))?;
                            ty.drop_with(vm);
                            exc
                        }
                        _ => {
                            ty.drop_with(vm);
                            value
                        }
                    },
                    other => {
                        let n = other.count();
                        other.drop_with(vm);
                        return Err(SimpleException::new_msg(
                            ExcType::TypeError,
                            format!("throw expected at least 1 argument, got {n}"),
                        )
                        .into());
                    }
                };
                match vm.throw_into_generator(id, exc)? {
                    Some(item) => Ok(CallResult::Value(item)),
                    None => Err(vm.generator_stop_iteration(id)),
                }
            }
            "close" => {
                args.drop_with(vm);
                vm.close_generator(id)?;
                Ok(CallResult::Value(Value::None))
            }
            _ => {
                args.drop_with(vm);
                Err(ExcType::attribute_error(self.py_type_name(vm), attr.as_str(vm.interns)))
            }
        }
    }
}
