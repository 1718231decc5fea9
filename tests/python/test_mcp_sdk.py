"""hwf mcp driven by the official Python MCP SDK (the 1.26 line Hermes pins
and the 2.x line): a parked JS run answered by ``workflow_control decide``
succeeds within 2 s with no other process; a foreground call with
``wait_seconds: 1`` on a 5 s run returns its run id and the run completes;
progress notifications strictly increase."""

from __future__ import annotations

import asyncio
import json
import time

from conftest import ASK_JS, SLOW_JS, hwf_bin, processes_naming, require


def _params(env, *extra):
    mcp = require("mcp")
    return mcp.StdioServerParameters(
        command=hwf_bin(),
        args=["--state-dir", str(env["state"]), "mcp", *extra],
        # As Hermes does: nothing but what the entry names.
        env={"PATH": "/usr/bin:/bin", "HWF_CACHE_DIR": env["cache"]},
    )


def _field(obj, camel: str, snake: str):
    """A result field under the 1.x (camelCase) or 2.x (snake_case) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def _envelope(result) -> dict:
    structured = _field(result, "structuredContent", "structured_content")
    assert structured is not None, result
    return structured


def _is_error(result) -> bool:
    return bool(_field(result, "isError", "is_error"))


async def _status(session, run_id: str) -> dict:
    r = await session.call_tool("workflow_control", {"action": "status", "run_id": run_id})
    return _envelope(r)["data"]


async def _wait_state(session, run_id: str, state: str, within: float) -> dict:
    deadline = time.monotonic() + within
    while True:
        data = await _status(session, run_id)
        if data["state"] == state:
            return data
        assert time.monotonic() < deadline, f"run {run_id} not {state} within {within} s: {data}"
        await asyncio.sleep(0.02)


def test_tools_are_discovered_with_valid_schemas(env):
    require("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def go():
        async with stdio_client(_params(env)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                names = sorted(t.name for t in tools)
                assert names == ["workflow", "workflow_control", "workflow_status"]
                for t in tools:
                    schema = _field(t, "inputSchema", "input_schema")
                    assert schema["type"] == "object"
                    assert _field(t, "outputSchema", "output_schema")["type"] == "object"
                    assert "scriptPath" not in schema["properties"]

    asyncio.run(go())


def test_decide_answers_a_parked_js_run_within_two_seconds(env):
    require("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def go():
        async with stdio_client(_params(env)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                r = await session.call_tool("workflow", {"script_source": ASK_JS})
                assert not _is_error(r), r
                data = _envelope(r)["data"]
                assert data["state"] == "waiting", data
                run_id, call = data["run_id"], data["waits"][0]["call"]
                t0 = time.monotonic()
                d = await session.call_tool(
                    "workflow_control",
                    {"action": "decide", "run_id": run_id, "call": call, "decision": "respond", "value": "yes"},
                )
                assert _envelope(d)["success"] is True, d
                done = await _wait_state(session, run_id, "succeeded", 2.0)
                took = time.monotonic() - t0
                assert took < 2.0, took
                assert done["result"]["answer"] == "yes", done
                # Nothing but the server itself touched this state dir.
                others = [p for p in processes_naming(str(env["state"])) if " mcp" not in p]
                assert not others, others
                print(f"decide -> succeeded in {took * 1000:.0f} ms")

    asyncio.run(go())


def test_wait_seconds_detaches_and_progress_strictly_increases(env):
    require("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    progress: list[tuple[float, float | None]] = []

    async def on_progress(value, total, message):
        progress.append((value, total))

    async def go():
        async with stdio_client(_params(env, "--agents", str(env["fixture"]))) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                t0 = time.monotonic()
                r = await session.call_tool(
                    "workflow", {"script_source": SLOW_JS, "wait_seconds": 1}, progress_callback=on_progress
                )
                answered = time.monotonic() - t0
                data = _envelope(r)["data"]
                assert data.get("detached") is True, data
                assert answered < 4.0, answered
                run_id = data["run_id"]
                done = await _wait_state(session, run_id, "succeeded", 60.0)
                assert done["result"] == {"done": 5}, done
                # A call that waits to the end reports progress.
                progress.clear()
                r = await session.call_tool("workflow", {"script_source": SLOW_JS}, progress_callback=on_progress)
                assert _envelope(r)["data"]["state"] == "succeeded"
                values = [v for v, _ in progress]
                assert len(values) >= 3, progress
                assert all(b > a for a, b in zip(values, values[1:])), values
                assert all(t == 3 for _, t in progress), progress
                print(f"detached after {answered:.2f} s; progress {values}")

    asyncio.run(go())


def test_failed_runs_and_unknown_ids_are_reports_not_errors(env):
    require("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def go():
        async with stdio_client(_params(env)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                r = await session.call_tool(
                    "workflow_control", {"action": "status", "run_id": "r0000000000000000000000000000000"}
                )
                assert not _is_error(r)
                assert _envelope(r)["error"]["code"] == "not_found"
                # A mistake the model can fix is a report as well (isError
                # would count towards Hermes' breaker), its text the JSON.
                r = await session.call_tool("workflow", {"bogus": 1})
                assert not _is_error(r)
                assert _envelope(r)["error"]["code"] == "invalid_params"
                assert json.loads(r.content[0].text) == _envelope(r)

    asyncio.run(go())
