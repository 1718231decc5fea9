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
# retryable, `RuntimeError raised while dispatching brokered call` whatever
# it said (a fixture runner raises `RuntimeError`): each of hwf's `agent_*`
# codes.
RETRYABLE = {"agent_failed", "agent_timeout", "agent_unavailable", "agent_auth", "agent_refused",
             "agent_truncated", "agent_tool_call", "agent_cancelled", "capability_failed"}


class _Budget:
    """The seed's ``_Budget``: ``total`` is a read-only property (no
    ceiling here), ``remaining()`` a float."""
    tokens = 0

    @property
    def total(self):
        return None

    def spent(self):
        return self.tokens

    def remaining(self):
        return math.inf


# The seed's prompt-agent options (`agents.CHILD_AGENT_OPTION_KEYS`) and
# the agent types its registry knows without definition files.
CHILD_AGENT_OPTION_KEYS = {"label", "phase", "schema", "model", "effort", "isolation", "context", "tools",
                           "agentType"}
KNOWN_AGENT_TYPES = {"general-purpose"}
# `VMLimits.max_schema_retries`.
MAX_SCHEMA_RETRIES = 2


def bad_request(message):
    return CapabilityError(message, "bad_request", False)


def prompt_request(params):
    """The seed's ``vm._prompt_agent_request``: its checks, in its order."""
    prompt = params.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise bad_request("prompt agent call requires a non-empty 'prompt'")
    unknown = sorted(set(params) - ({"prompt"} | CHILD_AGENT_OPTION_KEYS))
    if unknown:
        raise bad_request("unsupported prompt agent option(s): " + ", ".join(unknown))

    def text(key):
        value = params.get(key)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"prompt agent option {key!r} must be a string")
        return value

    def obj(key):
        value = params.get(key)
        if value is not None and not isinstance(value, dict):
            raise bad_request(f"prompt agent option {key!r} must be an object")
        return value

    def tools():
        value = params.get("tools")
        if value is None:
            return None
        error = bad_request("prompt agent option 'tools' must be a list of non-empty strings")
        if not isinstance(value, (list, tuple)):
            raise error
        deduped = []
        for item in value:
            if not isinstance(item, str) or not item:
                raise error
            if item not in deduped:
                deduped.append(item)
        return deduped

    def agent_type():
        value = params.get("agentType")
        if value is None or (isinstance(value, str) and value):
            return value
        raise bad_request("prompt agent option 'agentType' must be a non-empty string")

    return {"prompt": prompt, "label": text("label"), "phase": text("phase"), "schema": obj("schema"),
            "model": text("model"), "effort": text("effort"), "isolation": text("isolation"),
            "context": obj("context") or {}, "tools": tools(), "agentType": agent_type()}


class SchemaError(Exception):
    pass


SCHEMA_KEYWORDS = {"type", "properties", "required", "items", "enum", "additionalProperties"}
PY_TYPES = {"object": (dict,), "array": (list,), "string": (str,), "number": (int, float), "integer": (int,),
            "boolean": (bool,), "null": (type(None),)}
LEGACY_HINTS = {"string": "string", "str": "string", "number": "number", "float": "number", "int": "integer",
                "integer": "integer", "bool": "boolean", "boolean": "boolean", "object": "object",
                "dict": "object", "list": "array", "array": "array"}


def normalize_schema(schema):
    """The seed's ``schema_subset.normalize_schema``: ``None`` when nothing
    is declared, a subset schema checked and normalized, a flat
    ``{field: hint}`` one as an object requiring every field (an unknown
    hint leaves its field unchecked); ``SchemaError`` with the seed's text
    for a malformed one."""
    if not isinstance(schema, dict) or not schema:
        return None
    subset = "type" in schema or (set(schema) <= SCHEMA_KEYWORDS and (
        any(k in schema for k in ("properties", "items", "enum", "additionalProperties"))
        or isinstance(schema.get("required"), list)))
    if subset:
        return normalize_node(schema, "")
    properties = {}
    for name, hint in schema.items():
        if not isinstance(name, str):
            raise SchemaError(f"schema: legacy field name must be a string, got {name!r}")
        kind = LEGACY_HINTS.get(hint.lower()) if isinstance(hint, str) else None
        properties[name] = {"type": kind} if kind else {}
    return {"type": "object", "properties": properties, "required": list(schema)}


def normalize_node(node, path):
    """The seed's ``schema_subset._normalize_subset_node`` and its texts."""
    if not isinstance(node, dict):
        raise SchemaError(f"schema{path}: subschema must be an object, got {type(node).__name__}")
    unknown = sorted(set(node) - SCHEMA_KEYWORDS)
    if unknown:
        raise SchemaError(f"schema{path}: unsupported schema keyword(s) {unknown!r}")
    result = {}
    if "type" in node:
        if not isinstance(node["type"], str) or node["type"] not in PY_TYPES:
            raise SchemaError(f"schema{path}/type: must be one of {sorted(PY_TYPES)!r}, got {node['type']!r}")
        result["type"] = node["type"]
    if "required" in node:
        required = node["required"]
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise SchemaError(f"schema{path}/required: must be a list of strings")
        result["required"] = list(required)
    if "properties" in node:
        properties = node["properties"]
        if not isinstance(properties, dict) or not all(isinstance(k, str) for k in properties):
            raise SchemaError(f"schema{path}/properties: must be an object keyed by property name")
        result["properties"] = {name: normalize_node(sub, f"{path}/properties/{name}")
                                for name, sub in properties.items()}
    if "items" in node:
        result["items"] = normalize_node(node["items"], f"{path}/items")
    if "enum" in node:
        if not isinstance(node["enum"], list) or not node["enum"]:
            raise SchemaError(f"schema{path}/enum: must be a non-empty list")
        result["enum"] = list(node["enum"])
    if "additionalProperties" in node:
        if not isinstance(node["additionalProperties"], bool):
            raise SchemaError(f"schema{path}/additionalProperties: must be a boolean")
        result["additionalProperties"] = node["additionalProperties"]
    return result


def check_value(value, node, path):
    """The seed's ``schema_subset._check_value`` and its texts."""
    type_name = node.get("type")
    if type_name is not None:
        expected = PY_TYPES[type_name]
        if expected != (bool,) and isinstance(value, bool):
            raise SchemaError(f"{path} expected {type_name}, got bool")
        if not isinstance(value, expected):
            raise SchemaError(f"{path} expected {type_name}, got {type(value).__name__}")
    if "enum" in node and value not in node["enum"]:
        raise SchemaError(f"{path} value is not one of the declared enum values")
    if isinstance(value, dict) and (type_name == "object" or "properties" in node or "required" in node):
        for name in node.get("required", ()):
            if name not in value:
                raise SchemaError(f"{path} missing required field {name!r}")
        properties = node.get("properties", {})
        for name, sub in properties.items():
            if name in value:
                check_value(value[name], sub, f"{path}.{name}")
        if node.get("additionalProperties") is False:
            extra = sorted(set(value) - set(properties))
            if extra:
                raise SchemaError(f"{path} has unexpected field(s) {extra!r} (additionalProperties: false)")
    elif isinstance(value, list) and (type_name == "array" or "items" in node) and node.get("items"):
        for index, item in enumerate(value):
            check_value(item, node["items"], f"{path}[{index}]")


def checked_output(output, schema):
    """One attempt's output as the seed's broker accepts it: a dict that
    matches the schema, else the text of its ``schema`` refusal."""
    if not isinstance(output, dict):
        raise SchemaError(f"prompt child agent returned {type(output).__name__}, expected dict")
    node = normalize_schema(schema)
    if node is not None:
        check_value(output, node, "output")
    return output


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
                if code in RETRYABLE:
                    raise runner_error()
                raise CapabilityError(f"{code}: {answer['error']}", code, False)
            return copy.deepcopy(answer["output"])
        # The seed's registry knows the ids its runner serves: here, those a
        # fixture rule names (hwf's fixture backend: `agent_unknown`).
        agent = request.get("agent")
        if agent is not None and not any(rule.get("match", {}).get("agent") == agent for rule in self.rules):
            raise CapabilityError(f"unknown agent id {agent!r}", "unknown_agent", False)
        raise runner_error()


def runner_error():
    return CapabilityError("RuntimeError raised while dispatching brokered call", "runner_error", True)


class _Host:
    """When agent calls finish. The seed's broker answers over a pipe, so a
    call's answer reaches the guest long after everything it set going has
    run as far as it can (a failed ``parallel`` branch's siblings cancelled,
    a finished gather's waiter resumed); hwf's host delivers one finished
    call at a time when the script waits on nothing else. So here: one
    answer per turn, in call order, once the loop has nothing else to run."""

    def __init__(self):
        self.waiting = []
        self.pump = None

    async def turn(self):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.waiting.append(fut)
        if self.pump is None or self.pump.done():
            self.pump = loop.create_task(self._pump())
        await fut

    async def _pump(self):
        loop = asyncio.get_running_loop()
        while True:
            # A cancelled call (its branch was cancelled) is never answered.
            self.waiting = [f for f in self.waiting if not f.done()]
            if not self.waiting:
                return
            await asyncio.sleep(0)
            if loop._ready:
                continue  # something else can still run
            fut = self.waiting.pop(0)
            if not fut.done():
                fut.set_result(None)


def globals_for(fixture, args, logs):
    # The seed's fingerprint cache: a prompt call the run already made with
    # the same prompt and options is answered with its first result.
    seen = {}
    budget = _Budget()
    host = _Host()

    async def agent(target, input=None, *, label=None, phase=None, schema=None, model=None, effort=None,
                    isolation=None, context=None, tools=None, agentType=None):
        await host.turn()
        legacy = (isinstance(target, str) and target.startswith(("hermes.", "kanban."))
                  and len(target.split(".", 1)[1]) > 0 and not any(c.isspace() for c in target))
        if legacy:
            if target.startswith("kanban."):
                raise CapabilityError(f"reserved kanban runner id {target!r} must be reached via kanban_agent",
                                      "reserved_agent", False)
            request = {"agent": target, "input": input or {}, "label": label}
            output = fixture.answer(request)
            # `_invoke`: a dict, then checked once against the schema after
            # the call; a malformed schema or an output that does not match
            # is a `schema` refusal with its text alone.
            if not isinstance(output, dict):
                raise CapabilityError(f"agent {target!r} returned {type(output).__name__}, expected dict",
                                      "bad_output", False)
            try:
                node = normalize_schema(schema)
                if node is not None:
                    check_value(output, node, "output")
            except SchemaError as exc:
                raise CapabilityError(str(exc), "schema", False)
            return spend(output)
        # The seed's guest (`vm_guest.agent`): the prompt, the options dict
        # (its `prompt` wins), the keywords that are not `None`; a second
        # argument that is not a dict is an option of its own.
        params = {"prompt": target}
        if isinstance(input, dict):
            params.update(input)
        elif input is not None:
            params["_invalid_opts_type"] = type(input).__name__
        explicit = {"label": label, "phase": phase, "schema": schema, "model": model, "effort": effort,
                    "isolation": isolation, "context": context, "tools": tools, "agentType": agentType}
        params.update({k: v for k, v in explicit.items() if v is not None})
        request = prompt_request(params)
        # The seed's `_prompt_agent_fingerprint_payload`: every option is
        # part of the call's identity, `tools` and `agentType` only when set.
        identity = {k: v for k, v in request.items() if k not in ("tools", "agentType") or v is not None}
        key = json.dumps(identity, sort_keys=True, default=str)
        if key in seen:
            # A cache hit mirrors the live accounting: its `_tokens` are
            # charged again (the seed's `vm.py`).
            return copy.deepcopy(spend(seen[key]))
        if request["agentType"] is not None and request["agentType"] not in KNOWN_AGENT_TYPES:
            raise CapabilityError(f"unknown agentType: {request['agentType']!r}", "unknown_agent_type", False)
        # A malformed schema (one built at run time) is refused before the
        # first attempt (`_invoke_prompt_agent_with_schema_retry`).
        try:
            normalize_schema(request["schema"])
        except SchemaError as exc:
            raise bad_request(f"invalid 'schema' argument: {exc}")
        # `_invoke_prompt_agent_with_schema_retry`: up to
        # `max_schema_retries + 1` attempts; only the accepted one's
        # `_tokens` are charged.
        attempts = MAX_SCHEMA_RETRIES + 1
        for attempt in range(1, attempts + 1):
            try:
                output = checked_output(fixture.answer(request), request["schema"])
                break
            except SchemaError as exc:
                if attempt >= attempts:
                    raise CapabilityError(f"schema validation failed after {attempts} attempt(s): {exc}",
                                          "schema", False)
        seen[key] = output
        return copy.deepcopy(spend(output))

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

    # The seed's `parallel` (vm_guest.py): each thunk is called in a task of
    # its own, at most `max_parallel` (8) running; the first failure cancels
    # the tasks still running (their pending awaits never resume) and is
    # raised once they have ended. Of thunks that fail in the same turn, the
    # first (as `pipeline`, below).
    async def parallel(thunks):
        thunk_list = list(thunks)
        results = [None] * len(thunk_list)
        running = set()
        order = {}
        next_index = 0

        async def run_one(index, thunk):
            results[index] = await maybe_await(thunk())

        def start_ready():
            nonlocal next_index
            while next_index < len(thunk_list) and len(running) < 8:
                task = asyncio.create_task(run_one(next_index, thunk_list[next_index]))
                order[task] = next_index
                running.add(task)
                next_index += 1

        start_ready()
        while running:
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            try:
                for task in sorted(done, key=order.get):
                    await task
            except BaseException:
                for task in done:
                    if not task.cancelled():
                        task.exception()
                for task in running:
                    task.cancel()
                await asyncio.gather(*running, return_exceptions=True)
                raise
            start_ready()
        return results

    def call_stage(stage, prev, item, index):
        try:
            params = inspect.signature(stage).parameters
            arity = len([p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        except (TypeError, ValueError):
            arity = 1
        return stage(*(prev, item, index)[: max(arity, 1)])

    # The seed's `pipeline` (vm_guest.py): each item's stages run in a task
    # of its own, at most `max_parallel` (8) running; the first failure
    # cancels the tasks still running and is raised once they have ended.
    # Of items that fail in the same turn the seed raises whichever its
    # `done` set yields first (by address; the first item, as the seed runs
    # p174); here, the first item, and the others' failures are retrieved
    # (no "never retrieved" warning).
    async def pipeline(items, *stages):
        item_list = list(items)
        results = [None] * len(item_list)
        running = set()
        order = {}
        next_index = 0

        async def run_item(index, item):
            current = item
            for stage_index, stage in enumerate(stages):
                try:
                    current = await maybe_await(call_stage(stage, current, item, index))
                except BaseException as exc:
                    raise PipelineStageError(index, stage_index, exc) from exc
            results[index] = current

        def start_ready():
            nonlocal next_index
            while next_index < len(item_list) and len(running) < 8:
                task = asyncio.create_task(run_item(next_index, item_list[next_index]))
                order[task] = next_index
                running.add(task)
                next_index += 1

        start_ready()
        while running:
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            try:
                for task in sorted(done, key=order.get):
                    await task
            except BaseException:
                for task in done:
                    if not task.cancelled():
                        task.exception()
                for task in running:
                    task.cancel()
                await asyncio.gather(*running, return_exceptions=True)
                raise
            start_ready()
        return results

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
