//! hwf patch (speed): one function called many times in a row from native
//! code with two arguments, as `Array.prototype.sort` calls its comparator.
//!
//! A call of an ordinary function builds a [`CallFrame`] from the function
//! object (its code, environments, realm and script, each a reference-count
//! increment), pushes it, runs it and drops it again (each a decrement). A
//! sort of 200k items makes ~3.3 million comparator calls, so that set-up
//! was a large share of the sort. [`RepeatedCall`] keeps the frame of one
//! call and pushes it again for the next, reset to its entry state, for the
//! functions whose calls need nothing else from `function_call`: arrow
//! functions (no `this` binding) that are not async or generators, have no
//! binding identifier and no function scope. Anything else, and any call
//! that did not leave its frame as it found it (a throw, an environment or
//! iterator still pushed), takes the ordinary call path.

use crate::{
    Context, JsResult, JsValue,
    builtins::function::{OrdinaryFunction, ThisMode},
    object::JsObject,
    vm::{CallFrame, CallFrameFlags},
};

/// A function called repeatedly with two arguments (see the module docs).
pub(crate) struct RepeatedCall {
    function: JsObject,
    /// Whether the function's frame can be kept between calls.
    reusable: bool,
    /// The frame of the last call, ready to be pushed again, and its
    /// environment count on entry.
    frame: Option<(CallFrame, usize)>,
}

impl RepeatedCall {
    /// Prepares calls of `function`.
    pub(crate) fn new(function: &JsObject) -> Self {
        let reusable = function.downcast_ref::<OrdinaryFunction>().is_some_and(|f| {
            let code = &f.code;
            code.this_mode == ThisMode::Lexical
                && code.is_ordinary()
                && !code.is_class_constructor()
                && !code.has_binding_identifier()
                && !code.has_function_scope()
        });
        Self {
            function: function.clone(),
            reusable,
            frame: None,
        }
    }

    /// `Call(function, undefined, « x, y »)`.
    pub(crate) fn call(&mut self, x: &JsValue, y: &JsValue, context: &mut Context) -> JsResult<JsValue> {
        let Some((mut frame, env_len)) = self.frame.take() else {
            return self.first_call(x, y, context);
        };
        context.check_runtime_limits()?;
        let stack = &mut context.vm.stack;
        stack.push(JsValue::undefined()); // this
        stack.push(self.function.clone()); // func
        stack.push(x.clone());
        stack.push(y.clone());
        // The entry state `function_call` and `JsObject::call` give a frame.
        frame.pc = 0;
        frame.loop_iteration_count = 0;
        frame.flags = CallFrameFlags::EXIT_EARLY;
        context.vm.push_frame(frame);
        self.run(env_len, context)
    }

    /// The ordinary call, keeping the frame afterwards when it can be reused.
    fn first_call(&mut self, x: &JsValue, y: &JsValue, context: &mut Context) -> JsResult<JsValue> {
        if !self.reusable {
            return self.function.call_pair(&JsValue::undefined(), x, y, context);
        }
        let stack = &mut context.vm.stack;
        stack.push(JsValue::undefined()); // this
        stack.push(self.function.clone()); // func
        stack.push(x.clone());
        stack.push(y.clone());
        let frames = context.vm.frames.len();
        // An ordinary function pushes its frame: `resolve` is `false`.
        if self.function.__call__(2).resolve(context)? {
            return Ok(context.vm.stack.pop());
        }
        if context.vm.frames.len() != frames + 1 {
            // Not the frame expected: finish as `JsObject::call` does.
            context.vm.frames[frames + 1].set_exit_early(true);
            context.vm.host_call_depth += 1;
            let result = context.run().consume();
            context.vm.host_call_depth = context.vm.host_call_depth.saturating_sub(1);
            context.vm.pop_frame();
            return result;
        }
        context.vm.frame_mut().set_exit_early(true);
        let env_len = context.vm.frame().environments.len();
        self.run(env_len, context)
    }

    /// Runs the frame just pushed and keeps it if it is back in its entry
    /// state.
    fn run(&mut self, env_len: usize, context: &mut Context) -> JsResult<JsValue> {
        context.vm.host_call_depth += 1;
        let result = context.run().consume();
        context.vm.host_call_depth = context.vm.host_call_depth.saturating_sub(1);
        let frame = context.vm.pop_frame();
        if let Some(frame) = frame
            && result.is_ok()
            && frame.environments.len() == env_len
            && frame.iterators.is_empty()
            && frame.binding_stack.is_empty()
        {
            self.frame = Some((frame, env_len));
        }
        result
    }
}
