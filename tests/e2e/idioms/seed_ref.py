"""The seed's script VM in one CPython process, for comparing results.

Usage: python3 seed_ref.py SCRIPT FIXTURE ARGS_JSON

Runs SCRIPT as hermes-plugin-dynamic-workflows' guest does (vm_guest.py):
the body wrapped into an ``async def _hermes_wf_entry`` (the seed's name,
which CPython's messages name: ``_hermes_wf_entry.<locals>.f()``), ``json``/``math``/``args``/
``budget``/``meta`` and the workflow globals in scope, ``parallel`` and
``pipeline`` on asyncio tasks (a failure raises; a failed stage raises
``PipelineStageError``), a failed agent call raising ``CapabilityError``.
A prompt call repeated with the same prompt and options is answered with
its first result (the seed's fingerprint cache). Agents answer from a
fixture in hwf's format (``label``, ``agent``,
``prompt_contains`` and dotted ``input.*`` matches; ``output``, ``error``
with ``code``, ``sequence``). Prints ``{"result": …, "logs": […]}``.
"""

import asyncio
import copy
import inspect
import json
import math
import os
import sys
import textwrap


class CapabilityError(RuntimeError):
    def __init__(self, message, code=None, retryable=False):
        self.code = code
        self.retryable = retryable
        super().__init__(message)


class PipelineStageError(RuntimeError):
    def __init__(self, item_index, stage_index, exc):
        self.item_index = item_index
        self.stage_index = stage_index
        self.cause_type = type(exc).__name__
        self.code = exc.code if isinstance(exc, CapabilityError) else None
        self.retryable = exc.retryable if isinstance(exc, CapabilityError) else False
        super().__init__(f"pipeline item {item_index} stage {stage_index} failed: {type(exc).__name__}: {exc}")


# The seed's VM marks every failure its agent runner raised `runner_error`,
# retryable: each of hwf's `agent_*` codes.
RETRYABLE = {"agent_failed", "agent_timeout", "agent_unavailable", "agent_auth", "agent_refused",
             "agent_truncated", "agent_tool_call", "agent_cancelled", "capability_failed"}


class Budget:
    total = None
    tokens = 0

    def spent(self):
        return self.tokens

    def remaining(self):
        return math.inf


def at(request, path):
    value = request
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


class Fixture:
    def __init__(self, rules):
        self.rules = rules
        self.hits = [0] * len(rules)

    def answer(self, request):
        for i, rule in enumerate(self.rules):
            ok = True
            for key, want in rule.get("match", {}).items():
                if key == "prompt_contains":
                    ok = ok and want in (request.get("prompt") or "")
                else:
                    ok = ok and at(request, key) == want
            if not ok:
                continue
            answers = rule.get("sequence") or [rule]
            answer = answers[min(self.hits[i], len(answers) - 1)]
            self.hits[i] += 1
            if "error" in answer:
                code = answer.get("code", "agent_failed")
                raise CapabilityError(f"{code}: {answer['error']}", code, code in RETRYABLE)
            return copy.deepcopy(answer["output"])
        raise CapabilityError(f"no fixture response for {request}", "agent_failed", True)


def globals_for(fixture, args, logs):
    # The seed's fingerprint cache: a prompt call the run already made with
    # the same prompt and options is answered with its first result.
    seen = {}
    budget = Budget()

    async def agent(target, input=None, *, label=None, phase=None, schema=None, model=None, effort=None,
                    isolation=None, context=None, tools=None, agentType=None):
        await asyncio.sleep(0)
        legacy = isinstance(target, str) and target.startswith(("hermes.", "kanban.")) and " " not in target
        if legacy:
            request = {"agent": target, "input": input or {}, "label": label}
        else:
            request = {"prompt": target, "label": label, "phase": phase, "context": context, "schema": schema}
            if isinstance(input, dict):
                request.update(input)
            # The seed's `_prompt_agent_fingerprint_payload`: every option
            # is part of the call's identity, `tools` and `agentType` only
            # when set.
            identity = dict(request, model=model, effort=effort, isolation=isolation)
            if tools is not None:
                identity["tools"] = tools
            if agentType is not None:
                identity["agentType"] = agentType
            key = json.dumps(identity, sort_keys=True, default=str)
            if key not in seen:
                seen[key] = fixture.answer(request)
            # A cache hit mirrors the live accounting: its `_tokens` are
            # charged again (the seed's `vm.py`).
            return copy.deepcopy(spend(seen[key]))
        return spend(fixture.answer(request))

    def spend(output):
        # The seed's budget counts an output's non-negative `_tokens`.
        tokens = output.get("_tokens") if isinstance(output, dict) else None
        if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
            budget.tokens += tokens
        return output

    def log(message):
        logs.append(str(message))

    def phase(title):
        pass

    async def maybe_await(value):
        if inspect.isawaitable(value):
            return await value
        return value

    async def parallel(thunks):
        return list(await asyncio.gather(*(maybe_await(t()) for t in list(thunks))))

    def call_stage(stage, prev, item, index):
        try:
            params = inspect.signature(stage).parameters
            arity = len([p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        except (TypeError, ValueError):
            arity = 1
        return stage(*(prev, item, index)[: max(arity, 1)])

    async def pipeline(items, *stages):
        async def run_item(index, item):
            current = item
            for stage_index, stage in enumerate(stages):
                try:
                    current = await maybe_await(call_stage(stage, current, item, index))
                except BaseException as exc:
                    raise PipelineStageError(index, stage_index, exc) from exc
            return current

        return list(await asyncio.gather(*(run_item(i, x) for i, x in enumerate(list(items)))))

    # The seed's background child agents, as its Hermes plugin runs them:
    # no async child-agent runner is wired in (vm.py's `_handle_agent_start`
    # and `_require_async_record` with `async_runner=None`).
    async def agent_start(target, input=None, opts=None):
        input = input or {}
        opts = opts or {}
        if not isinstance(target, str) or not target:
            raise CapabilityError("agent_start requires a non-empty 'target'", "bad_request", False)
        if not isinstance(input, dict):
            raise CapabilityError("agent_start option 'input' must be an object", "bad_request", False)
        if not isinstance(opts, dict):
            raise CapabilityError("agent_start option 'opts' must be an object", "bad_request", False)
        raise CapabilityError("no async child agent runner configured for agent_start",
                              "async_child_agent_unavailable", False)

    async def agent_poll(handle):
        if not isinstance(handle, str) or not handle:
            raise CapabilityError("call requires a non-empty 'handle'", "bad_request", False)
        raise CapabilityError(f"unknown async agent handle {handle!r}", "unknown_handle", False)

    async def agent_list():
        return {"handles": []}

    return {
        "json": json, "math": math, "args": args, "budget": budget, "agent": agent, "log": log,
        "phase": phase, "parallel": parallel, "pipeline": pipeline,
        "agent_start": agent_start, "agent_check": agent_poll, "agent_cancel": agent_poll,
        "agent_list": agent_list,
        "CapabilityError": CapabilityError, "PipelineStageError": PipelineStageError,
    }


def main():
    # The seed's VM runs scripts with PYTHONHASHSEED=0 (`vm._scrubbed_env`), so
    # a set of strings iterates in one order; so does this reference.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    script = open(sys.argv[1], encoding="utf-8").read()
    fixture = Fixture(json.load(open(sys.argv[2], encoding="utf-8")).get("responses", []))
    args = json.loads(sys.argv[3])
    logs = []
    scope = globals_for(fixture, args, logs)
    wrapped = "async def _hermes_wf_entry():\n" + textwrap.indent(script, "    ") + "\n    pass\n"
    exec(compile(wrapped, "<workflow-script>", "exec"), scope)
    result = asyncio.run(scope["_hermes_wf_entry"]())
    print(json.dumps({"result": jsonable(result), "logs": logs}))


def jsonable(value):
    """The seed's ``_jsonable``: ``str(key)`` keys, tuples as lists, other
    values by type name."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return {"_unserializable_type": type(value).__name__}


main()
