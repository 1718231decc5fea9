//! hwf: running generator frames, and `del` of items and attributes.
//!
//! A generator's frame runs in a nested `run()` (like a `sorted(key=)`
//! callback): [`VM::resume_generator`] pushes the saved frame with
//! `should_return` set, and the `Yield` opcode
//! ([`VM::suspend_generator_frame`]) saves it back into the generator and
//! leaves that `run()` with the yielded value. A frame that returns instead
//! leaves the generator finished.

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
        let generator = Generator::new(func_id, namespace);
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
