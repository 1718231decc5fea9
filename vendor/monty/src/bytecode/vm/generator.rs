//! hwf: running generator frames, and `del` of items and attributes.
//!
//! A generator's frame runs in a nested `run()` (like a `sorted(key=)`
//! callback): [`VM::resume_generator`] pushes the saved frame with
//! `should_return` set, and the `Yield` opcode
//! ([`VM::suspend_generator_frame`]) saves it back into the generator and
//! leaves that `run()` with the yielded value. A frame that returns instead
//! leaves the generator finished.
//!
//! An async generator (`yield` inside `async def`) is advanced by `async
//! for` (`AsyncForNext`) instead: its saved frame is pushed onto the frame
//! stack as an ordinary frame, as an awaited coroutine's is, so an `await`
//! in its body suspends the VM like any coroutine frame. Its `yield`
//! ([`VM::async_generator_yield`]) saves the frame back and hands the value
//! to the `async for`; its end leaves it finished and the loop ends.

use super::{CallFrame, FrameExit, VM};
use crate::{
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult, SimpleException},
    heap::{DropWithContext, HeapData, HeapId, HeapReadOutput},
    intern::{FunctionId, StringId},
    types::{Generator, GeneratorState, attribute_name_value},
    value::{EitherStr, Value},
};

impl VM<'_> {
    /// Builds the generator a call to the generator function `func_id`
    /// returns, its arguments already bound into `namespace`.
    pub(super) fn new_generator(&mut self, func_id: FunctionId, namespace: Vec<Value>) -> Value {
        let mut generator = Generator::new(func_id, namespace);
        generator.is_async = self.interns.get_function(func_id).is_async;
        Value::Ref(self.heap.allocate(HeapData::Generator(Box::new(generator))))
    }

    /// The `Yield` opcode: saves the running generator frame into its
    /// generator and pops it. Returns the yielded value, for the caller to
    /// leave this nested `run()` with.
    /// `delegating` marks the `yield` of a `yield from` (`YieldFrom`).
    pub(super) fn suspend_generator_frame(&mut self, value: Value, delegating: bool) -> Result<Value, RunError> {
        let Some(generator_id) = self.current_frame.generator else {
            value.drop_with(self);
            return Err(RunError::internal("yield outside a generator frame"));
        };
        let stack: Vec<Value> = self.stack.drain(self.current_frame.stack_base..).collect();
        let exceptions: Vec<Value> = self
            .exception_stack
            .drain(self.current_frame.exception_stack_base.min(self.exception_stack.len())..)
            .collect();
        let ip = self.current_frame.ip;
        self.with_generator(generator_id, |generator| {
            generator.stack = stack;
            generator.exception_stack = exceptions;
            generator.ip = ip;
            generator.state = GeneratorState::Suspended;
            generator.delegating = delegating;
        });
        // The frame's stack region is already empty; `should_return` is set.
        self.pop_frame();
        Ok(value)
    }

    /// hwf: one step of `async for` (`AsyncForNext`) over the async
    /// generator on top of the stack: `Ok(true)` once its frame is pushed,
    /// `Ok(false)` when it is finished (the loop ends). The caller's ip is
    /// left on the `AsyncForNext`: [`Self::async_generator_yield`] steps past
    /// it; a body that ends leaves the generator finished and it runs again.
    pub(super) fn async_for_next(&mut self) -> RunResult<bool> {
        let Value::Ref(id) = *self.peek() else {
            return Err(not_async_iterable(self.peek().py_type_name(self).to_string()));
        };
        let taken = match self.heap.read(id) {
            HeapReadOutput::Generator(mut generator) => {
                let generator = generator.get_mut(self.heap);
                if !generator.is_async {
                    Err(Some(not_async_iterable("generator".to_owned())))
                } else {
                    match generator.state {
                        GeneratorState::Finished => Err(None),
                        GeneratorState::Running => Err(Some(
                            SimpleException::new_msg(
                                ExcType::RuntimeError,
                                "anext(): asynchronous generator is already running",
                            )
                            .into(),
                        )),
                        GeneratorState::New | GeneratorState::Suspended => {
                            let was_new = generator.state == GeneratorState::New;
                            generator.state = GeneratorState::Running;
                            let (stack, exceptions) = generator.take_frame();
                            Ok((
                                generator.func_id,
                                generator.ip,
                                generator.locals_count,
                                stack,
                                exceptions,
                                was_new,
                            ))
                        }
                    }
                }
            }
            _ => {
                let type_name = self.peek().py_type_name(self).to_string();
                Err(Some(not_async_iterable(type_name)))
            }
        };
        let (func_id, ip, locals_count, stack, exceptions, was_new) = match taken {
            Ok(frame) => frame,
            Err(None) => return Ok(false),
            Err(Some(error)) => return Err(error),
        };
        let call_offset = self.current_offset();
        // Back onto this `AsyncForNext`: see the doc above.
        self.current_frame.ip = self.instruction_ip;
        let func = self.interns.get_function(func_id);
        let stack_base = self.stack.len();
        self.stack.extend(stack);
        if !was_new {
            // The paused `yield` evaluates to `None`, as for `__anext__()`.
            self.push(Value::None);
        }
        let exception_stack_base = self.exception_stack.len();
        self.exception_stack.extend(exceptions);
        let mut frame = CallFrame::new_function(
            &func.code,
            stack_base,
            locals_count,
            exception_stack_base,
            func_id,
            call_offset,
        );
        frame.ip = ip;
        frame.generator = Some(id);
        if let Err(e) = self.push_frame(frame) {
            // `push_frame` released the stack region; drop what the frame
            // had pushed on the exception stack too.
            let leftover: Vec<Value> = self.exception_stack.drain(exception_stack_base..).collect();
            leftover.drop_with(self);
            self.finish_generator(id);
            return Err(e);
        }
        Ok(true)
    }

    /// hwf: the `yield` of an async generator's frame (on the frame stack,
    /// pushed by `AsyncForNext`): saves the frame into the generator, pops
    /// it, and hands `value` to the `async for` whose `AsyncForNext` the
    /// caller's ip is still on, stepping past that instruction.
    pub(super) fn async_generator_yield(&mut self, value: Value) -> RunResult<()> {
        let value = self.suspend_generator_frame(value, false)?;
        let at = self.current_frame.ip;
        if self.current_frame.bytecode.get(at).copied() != Some(crate::bytecode::Opcode::AsyncForNext as u8) {
            value.drop_with(self);
            return Err(RunError::internal("async generator frame not advanced by async for"));
        }
        // The opcode and its i16 offset.
        self.current_frame.ip = at + 3;
        self.push(value);
        Ok(())
    }

    /// hwf: a generator's frame left the frame stack (`pop_frame`): unless
    /// its `yield` saved it (`Suspended`), the body returned or raised, so
    /// the generator is finished.
    pub(super) fn generator_frame_popped(&mut self, id: HeapId) {
        self.with_generator(id, |generator| {
            if generator.state == GeneratorState::Running {
                generator.state = GeneratorState::Finished;
            }
        });
    }

    /// Advances generator `id` with `sent` as the result of its paused
    /// `yield`: the next yielded value, or `None` once it is exhausted.
    pub(crate) fn resume_generator(&mut self, id: HeapId, sent: Value) -> RunResult<Option<Value>> {
        self.resume_generator_with(id, sent, false)
    }

    /// hwf: `generator.throw(exc)`: raises `exc` (an exception instance or
    /// class) at the paused `yield` of generator `id`, as CPython does. The
    /// next value it yields, `None` once it returns, or the exception it
    /// lets out. A generator not yet started or already finished raises
    /// `exc` at once (and is finished).
    pub(crate) fn throw_into_generator(&mut self, id: HeapId, exc: Value) -> RunResult<Option<Value>> {
        self.resume_generator_with(id, exc, true)
    }

    /// hwf: `generator.close()`: raises `GeneratorExit` at the paused
    /// `yield` so its `finally` blocks and `except GeneratorExit` run; a
    /// generator that yields again is CPython's `RuntimeError: generator
    /// ignored GeneratorExit`.
    pub(crate) fn close_generator(&mut self, id: HeapId) -> RunResult<()> {
        let state = self.with_generator(id, |generator| generator.state);
        match state {
            Some(GeneratorState::Suspended) => {}
            Some(GeneratorState::Running) => {
                return Err(SimpleException::new_msg(ExcType::ValueError, "generator already executing").into());
            }
            _ => {
                self.finish_generator(id);
                return Ok(());
            }
        }
        let exit = Value::Builtin(crate::builtins::Builtins::ExcType(ExcType::GeneratorExit));
        match self.throw_into_generator(id, exit) {
            Ok(None) => Ok(()),
            Ok(Some(value)) => {
                value.drop_with(self);
                self.finish_generator(id);
                Err(SimpleException::new_msg(ExcType::RuntimeError, "generator ignored GeneratorExit").into())
            }
            Err(RunError::Exc(e)) if matches!(e.exc.exc_type(), ExcType::GeneratorExit | ExcType::StopIteration) => {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// hwf: the `StopIteration` a finished generator `id` raises to
    /// `next()` / `send()`: its return value is the exception's `value`
    /// (taken: a second `next()` raises a bare `StopIteration`, as in CPython).
    pub(crate) fn generator_stop_iteration(&mut self, id: HeapId) -> RunError {
        let value = self
            .with_generator(id, |generator| generator.return_value.take())
            .flatten();
        match value {
            Some(Value::None) | None => SimpleException::new_none(ExcType::StopIteration).into(),
            Some(value) => match SimpleException::from_args(ExcType::StopIteration, smallvec::smallvec![value], self) {
                Ok(exc) => exc.into(),
                Err(e) => e,
            },
        }
    }

    /// [`Self::resume_generator`], or with `throw` [`Self::throw_into_generator`]
    /// (`sent` is then the exception).
    fn resume_generator_with(&mut self, id: HeapId, sent: Value, throw: bool) -> RunResult<Option<Value>> {
        let sending = !throw && !matches!(sent, Value::None);
        if sending || throw {
            return self.delegate_or_resume(id, sent, throw);
        }
        self.resume_frame(id, sent, Thrown::No)
    }

    /// hwf: `send(v)` / `throw(exc)` to generator `id`. Paused in a `yield
    /// from` over another generator, it goes to that one first, as CPython's
    /// `gen_send_ex` / `_gen_throw` do: what the inner one yields is the
    /// outer's value; once it returns, the outer goes on (its loop finds it
    /// exhausted and `yield from` gives its return value); what it raises is
    /// raised at the outer's paused `yield from`.
    fn delegate_or_resume(&mut self, id: HeapId, sent: Value, throw: bool) -> RunResult<Option<Value>> {
        let inner = self.with_generator(id, |generator| match (generator.state, generator.delegating) {
            (GeneratorState::Suspended, true) => match generator.stack.last() {
                Some(Value::Ref(inner)) => Some(*inner),
                _ => None,
            },
            _ => None,
        });
        let inner = inner
            .flatten()
            .filter(|inner| matches!(self.heap.get(*inner), HeapData::Generator(_)));
        let Some(inner) = inner else {
            return self.resume_frame(id, sent, if throw { Thrown::Value } else { Thrown::No });
        };
        // The outer generator is running while the inner one does (CPython's
        // `gi_running`): advancing it from inside is `already executing`.
        self.with_generator(id, |generator| generator.state = GeneratorState::Running);
        let result = if throw {
            self.throw_into_generator(inner, sent)
        } else {
            self.resume_generator(inner, sent)
        };
        self.with_generator(id, |generator| {
            if generator.state == GeneratorState::Running {
                generator.state = GeneratorState::Suspended;
            }
        });
        match result {
            Ok(Some(value)) => Ok(Some(value)),
            Ok(None) => self.resume_frame(id, Value::None, Thrown::No),
            Err(error) => self.resume_frame(id, Value::None, Thrown::Error(error)),
        }
    }

    /// Pushes generator `id`'s saved frame and runs it to its next `yield`:
    /// `sent` is the paused `yield`'s value, or with `thrown` what it raises.
    fn resume_frame(&mut self, id: HeapId, sent: Value, thrown: Thrown) -> RunResult<Option<Value>> {
        let throw = !matches!(thrown, Thrown::No);
        let sending = !throw && !matches!(sent, Value::None);
        let taken = self.with_generator(id, |generator| match generator.state {
            GeneratorState::Finished => Err(None),
            GeneratorState::Running => Err(Some("running")),
            GeneratorState::New if sending => Err(Some("new")),
            GeneratorState::New if throw => Err(None),
            GeneratorState::New | GeneratorState::Suspended => {
                let was_new = generator.state == GeneratorState::New;
                generator.state = GeneratorState::Running;
                let (stack, exceptions) = generator.take_frame();
                Ok((
                    generator.func_id,
                    generator.ip,
                    generator.locals_count,
                    stack,
                    exceptions,
                    was_new,
                ))
            }
        });
        let (func_id, ip, locals_count, stack, exceptions, was_new) = match taken {
            Some(Ok(frame)) => frame,
            Some(Err(None)) if throw => {
                // Not started or finished: the exception comes straight out.
                self.finish_generator(id);
                let error = match thrown {
                    Thrown::Error(error) => error,
                    _ => self.make_exception(&sent, true),
                };
                sent.drop_with(self);
                return Err(error);
            }
            Some(Err(why)) => {
                sent.drop_with(self);
                return match why {
                    None => Ok(None),
                    Some("running") => {
                        Err(SimpleException::new_msg(ExcType::ValueError, "generator already executing").into())
                    }
                    Some(_) => Err(SimpleException::new_msg(
                        ExcType::TypeError,
                        "can't send non-None value to a just-started generator",
                    )
                    .into()),
                };
            }
            None => {
                sent.drop_with(self);
                return Err(RunError::internal("resume_generator: not a generator"));
            }
        };
        if let Err(e) = self.enter_run_reentry() {
            self.finish_generator(id);
            sent.drop_with(self);
            stack.drop_with(self);
            exceptions.drop_with(self);
            return Err(e.into());
        }
        let mut guard = super::recursion::RunReentryGuard::new(self);
        let this = &mut *guard;

        let call_offset = this.current_offset();
        let func = this.interns.get_function(func_id);
        let stack_base = this.stack.len();
        this.stack.extend(stack);
        let thrown = if throw {
            Some((sent, thrown))
        } else {
            if was_new {
                sent.drop_with(this);
            } else {
                this.push(sent);
            }
            None
        };
        let exception_stack_base = this.exception_stack.len();
        this.exception_stack.extend(exceptions);
        let mut frame = CallFrame::new_function(
            &func.code,
            stack_base,
            locals_count,
            exception_stack_base,
            func_id,
            call_offset,
        );
        frame.ip = ip;
        frame.should_return = true;
        frame.generator = Some(id);
        if let Err(e) = this.push_frame(frame) {
            // `push_frame` released the stack region; drop what the frame
            // had pushed on the exception stack too.
            let leftover: Vec<Value> = this.exception_stack.drain(exception_stack_base..).collect();
            leftover.drop_with(this);
            if let Some((exc, _)) = thrown {
                exc.drop_with(this);
            }
            this.finish_generator(id);
            return Err(e);
        }
        if let Some((exc, how)) = thrown {
            // The exception is raised by the paused `Yield` (one byte before
            // the saved ip), so that `yield`'s handlers catch it.
            this.instruction_ip = ip.saturating_sub(1);
            let error = match how {
                // Raised by the generator a `yield from` delegated to.
                Thrown::Error(error) => error,
                _ => this.make_exception(&exc, true),
            };
            let raised = match &exc {
                Value::Ref(exc_id) if matches!(this.heap.get(*exc_id), HeapData::Exception(_)) => Some(exc),
                _ => {
                    exc.drop_with(this);
                    None
                }
            };
            if let Some(error) = this.handle_exception_with_value(error, raised) {
                this.finish_generator(id);
                return Err(stop_iteration_to_runtime_error(error));
            }
        }
        loop {
            match this.run() {
                Ok(FrameExit::Return(value)) => {
                    let suspended = matches!(
                        this.heap.get(id),
                        HeapData::Generator(g) if g.state == GeneratorState::Suspended
                    );
                    if suspended {
                        return Ok(Some(value));
                    }
                    // The body returned: the generator is exhausted; it
                    // keeps its return value for a `yield from` over it.
                    this.finish_generator(id);
                    if let Some(Some(old)) = this.with_generator(id, |generator| generator.return_value.replace(value))
                    {
                        old.drop_with(this);
                    }
                    return Ok(None);
                }
                Ok(FrameExit::AttrLookup {
                    effect: Some(effect), ..
                }) => {
                    let value = effect.apply(None, this);
                    this.push(value);
                }
                // hwf: an external call the host answers in place (`phase`,
                // `budget.spent()`) is the call's value; see `nested_frame_exit`.
                Ok(exit) => match this.nested_frame_exit("generator", exit) {
                    Ok(value) => this.push(value),
                    Err(error) => {
                        if let Some(error) = this.handle_exception(error) {
                            this.finish_generator(id);
                            return Err(error);
                        }
                    }
                },
                Err(e) => {
                    this.finish_generator(id);
                    return Err(stop_iteration_to_runtime_error(e));
                }
            }
        }
    }

    /// The value `yield from iter` evaluates to: the return value of a
    /// finished generator, else `None`.
    pub(super) fn generator_return_value(&mut self, iter: &Value) -> Value {
        let Value::Ref(id) = iter else {
            return Value::None;
        };
        let taken = self.with_generator(*id, |generator| generator.return_value.take());
        taken.flatten().unwrap_or(Value::None)
    }

    /// Marks generator `id` finished, releasing anything it still holds.
    fn finish_generator(&mut self, id: HeapId) {
        let frame = self.with_generator(id, |generator| {
            generator.state = GeneratorState::Finished;
            generator.take_frame()
        });
        if let Some((stack, exceptions)) = frame {
            stack.drop_with(self);
            exceptions.drop_with(self);
        }
    }

    /// Runs `f` on generator `id` (`None` if `id` is not a generator).
    fn with_generator<R>(&mut self, id: HeapId, f: impl FnOnce(&mut Generator) -> R) -> Option<R> {
        match self.heap.read(id) {
            HeapReadOutput::Generator(mut generator) => Some(f(generator.get_mut(self.heap))),
            _ => None,
        }
    }

    /// `del obj[index]`: a dict key (a missing one is `KeyError`), a list
    /// index or slice; anything else is `TypeError`.
    pub(super) fn delete_item(&mut self, obj: &Value, index: Value) -> RunResult<()> {
        let this = self;
        crate::defer_drop!(index, this);
        if let Value::Ref(id) = obj {
            match this.heap.read(*id) {
                HeapReadOutput::Dict(mut dict) => {
                    return match dict.pop(index, this)? {
                        Some((key, value)) => {
                            key.drop_with(this);
                            value.drop_with(this);
                            Ok(())
                        }
                        None => Err(ExcType::key_error(index, this)),
                    };
                }
                HeapReadOutput::List(mut list) => {
                    let removed = list.delete_item(index, this)?;
                    removed.drop_with(this);
                    return Ok(());
                }
                // hwf: `del ba[i]`, `del ba[a:b]` on a bytearray.
                HeapReadOutput::ByteArray(mut data) => return data.delete_item(index, this),
                _ => {}
            }
        }
        let type_name = obj.py_type_name(this);
        Err(SimpleException::new_msg(
            ExcType::TypeError,
            format!("'{type_name}' object doesn't support item deletion"),
        )
        .into())
    }

    /// `del obj.name`: an attribute of a class instance; anything else is
    /// `AttributeError`.
    pub(super) fn delete_attr(&mut self, obj: &Value, name_id: StringId) -> RunResult<()> {
        let name = EitherStr::Interned(name_id);
        // hwf: `del fn.calls`, `del err.retry_after`.
        if crate::types::user_attrs::takes_attrs(obj, self) && crate::types::user_attrs::delete_attr(obj, &name, self)?
        {
            return Ok(());
        }
        if let Value::Ref(id) = obj
            && let HeapReadOutput::Instance(mut instance) = self.heap.read(*id)
        {
            let key = attribute_name_value(&name, self);
            let removed = instance.delete_attr(&key, self);
            key.drop_with(self);
            if let Some((k, v)) = removed? {
                k.drop_with(self);
                v.drop_with(self);
                return Ok(());
            }
        }
        let type_name = obj.py_type_name(self);
        Err(ExcType::attribute_error(type_name, name.as_str(self.interns)))
    }
}

/// What [`VM::resume_frame`] raises at the paused `yield`.
enum Thrown {
    /// Nothing: `sent` is the `yield`'s value.
    No,
    /// `sent`, an exception instance or class (`throw(exc)`).
    Value,
    /// What the generator a `yield from` delegated to raised.
    Error(RunError),
}

/// hwf: CPython's `TypeError` for `async for` over something that is not an
/// async iterator (only async generators are).
fn not_async_iterable(type_name: String) -> RunError {
    SimpleException::new_msg(
        ExcType::TypeError,
        format!("'async for' requires an object with __aiter__ method, got {type_name}"),
    )
    .into()
}

/// hwf: PEP 479, as CPython 3.7+: a `StopIteration` that escapes a
/// generator's body (`yield next(it)` on an exhausted iterator) becomes
/// `RuntimeError: generator raised StopIteration` rather than silently
/// ending the loop that drives the generator.
fn stop_iteration_to_runtime_error(error: RunError) -> RunError {
    match error {
        RunError::Exc(mut raise) if raise.exc.exc_type() == ExcType::StopIteration => {
            raise.exc = SimpleException::new_msg(ExcType::RuntimeError, "generator raised StopIteration");
            RunError::Exc(raise)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    //! hwf: async generators driven end to end through [`MontyRun`], with a
    //! host function `ext(x)` that answers `x` as a pending future (so the
    //! VM suspends inside the async generator's frame, as at an agent call).

    use monty_types::{CompileOptions, ExtFunctionResult, MontyObject, NameLookupResult, PrintWriter, ResourceTracker};

    use crate::{MontyRun, RunProgress};

    /// Runs `src` (its last statement the result), answering `ext(x)` with
    /// `x` one pending call at a time, last submitted first; the result's
    /// `str`, or `error: <type>: <message>`.
    fn drive(src: &str) -> String {
        let run = match MontyRun::new(src.to_owned(), "t.py", vec![], CompileOptions::default()) {
            Ok(run) => run,
            Err(e) => return format!("error: {}: {}", e.exc_type(), e.message().unwrap_or("")),
        };
        let mut pending: Vec<(u32, MontyObject)> = Vec::new();
        let mut progress = run.start(vec![], ResourceTracker::default(), PrintWriter::Stdout);
        loop {
            let step = match progress {
                Err(e) => return format!("error: {}: {}", e.exc_type(), e.message().unwrap_or("")),
                Ok(step) => step,
            };
            progress = match step {
                RunProgress::Complete(MontyObject::String(s)) => return s,
                RunProgress::Complete(other) => return format!("{other:?}"),
                RunProgress::NameLookup(lookup) => {
                    let name = lookup.name.clone();
                    lookup.resume(
                        NameLookupResult::Value(MontyObject::Function { name, docstring: None }),
                        PrintWriter::Stdout,
                    )
                }
                RunProgress::FunctionCall(call) => {
                    pending.push((call.call_id, call.args[0].clone()));
                    call.resume_pending(PrintWriter::Stdout)
                }
                RunProgress::ResolveFutures(state) => {
                    let (id, value) = pending.pop().expect("a pending call");
                    state.resume(vec![(id, ExtFunctionResult::Return(value))], PrintWriter::Stdout)
                }
                RunProgress::OsCall(_) => return "os call".to_owned(),
            };
        }
    }

    #[test]
    fn async_for_over_async_generator_with_awaits() {
        let src = r#"
async def answers(items):
    for t in items:
        r = await ext(t + "!")
        yield t, r

async def countdown(n):
    while n > 0:
        yield n
        n -= 1

async def main():
    got = []
    async for t, r in answers(["a", "b"]):
        got.append(t + r)
    lengths = [len(r) async for _, r in answers(["xy", "z"])]
    upper = {t: r.upper() async for t, r in answers(["q"])}
    ticks = [x async for x in countdown(4) if x % 2 == 0]
    return repr([got, lengths, upper, ticks])

await main()
"#;
        assert_eq!(drive(src), "[['aa!', 'bb!'], [3, 2], {'q': 'Q!'}, [4, 2]]");
    }

    #[test]
    fn async_generator_module_level_and_nested() {
        let src = r#"
async def inner(n):
    for i in range(n):
        yield await ext(i)

async def outer(n):
    async for i in inner(n):
        async for j in inner(i):
            yield (i, j)

acc = [p async for p in outer(3)]
async for x in inner(2):
    acc.append(x)
else:
    acc.append("else")
g = inner(5)
async for x in g:
    if x == 1:
        break
acc.append([x async for x in g])
acc.append([x async for x in g])
repr(acc)
"#;
        assert_eq!(drive(src), "[(1, 0), (2, 0), (2, 1), 0, 1, 'else', [2, 3, 4], []]");
    }

    #[test]
    fn async_generator_errors_and_finally() {
        let src = r#"
events = []

async def risky(n):
    try:
        for i in range(n):
            if i == 2:
                raise ValueError(f"bad {i}")
            yield await ext(i)
    finally:
        events.append("finally")

got = []
g = risky(5)
try:
    async for x in g:
        got.append(x)
except ValueError as e:
    got.append(str(e))
got.append([x async for x in g])
errs = []
for bad in ([1], 5):
    try:
        async for x in bad:
            pass
    except TypeError as e:
        errs.append(str(e))
try:
    list(risky(1))
except TypeError as e:
    errs.append(str(e))
repr([got, events, errs])
"#;
        assert_eq!(
            drive(src),
            "[[0, 1, 'bad 2', []], ['finally'], [\"'async for' requires an object with __aiter__ method, got list\", \
             \"'async for' requires an object with __aiter__ method, got int\", \"'async_generator' object is not iterable\"]]"
        );
    }

    #[test]
    fn async_generators_in_gathered_tasks() {
        let src = r#"
import asyncio

async def stream(tag, n):
    for i in range(n):
        yield await ext(f"{tag}{i}")

async def collect(tag):
    return [x async for x in stream(tag, 3)]

res = await asyncio.gather(collect("a"), collect("b"))
repr(res)
"#;
        assert_eq!(drive(src), "[['a0', 'a1', 'a2'], ['b0', 'b1', 'b2']]");
    }

    #[test]
    fn async_generator_left_by_break_is_closed_without_panic() {
        let src = r#"
events = []

async def gen(tag):
    try:
        for i in range(5):
            yield await ext(i)
    finally:
        events.append(tag)

async def awaits_in_finally():
    try:
        yield 1
        yield 2
    finally:
        await ext("late")
        events.append("unreachable?")

async def main():
    async for x in gen("a"):
        if x == 1:
            break
    async for x in awaits_in_finally():
        break
    g = gen("b")
    r = repr(g).split(" ")[:3]
    async for x in g:
        break
    del g
    return r

r = await main()
repr([r, events[:2]])
"#;
        assert_eq!(drive(src), "[['<async_generator', 'object', 'gen'], ['a', 'b']]");
    }

    #[test]
    fn async_generator_refusals() {
        assert!(
            drive("async def f():\n    yield 1\n    return 2\n").contains("'return' with value in async generator")
        );
        assert!(
            drive("def f():\n    async for x in y:\n        pass\n").contains("'async for' outside async function")
        );
        assert!(drive("async def f():\n    yield from [1]\n").contains("'yield from' inside async function"));
        assert!(
            drive("async def g():\n    yield 1\nf = lambda: [x async for x in g()]\n")
                .contains("asynchronous comprehension outside of an asynchronous function")
        );
        assert!(
            drive("async def g():\n    yield 1\nx = (y async for y in g())\n")
                .contains("asynchronous generator expressions")
        );
    }
}
