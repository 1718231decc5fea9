"""``hwf mcp --http`` driven by real clients: the official Python MCP SDK
(2.x with ``mcp2``: its ``ClientSession`` over Streamable HTTP speaks the
2025 revisions with a session, its ``Client`` negotiates 2026-07-28
statelessly; the 1.26 line Hermes pins) and raw HTTP for what an SDK will
not send (a foreign ``Host`` or ``Origin``, a missing or wrong token).

Each test starts its own server on ``127.0.0.1:0`` and reads the bound
address from the line it prints."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import ASK_JS, SLOW_JS, hwf_bin, require

QUICK_JS = """export const meta = { name: "quick-http", description: "returns at once" };
return { ok: true };
"""


class HttpServer:
    """``hwf mcp --http ADDR`` in a child process; ``url`` is its endpoint."""

    def __init__(self, env, *extra: str, addr: str = "127.0.0.1:0", token: str | None = None):
        args = [hwf_bin(), "--state-dir", str(env["state"]), "mcp", "--http", addr, *extra]
        if token:
            args += ["--token", token]
        self.proc = subprocess.Popen(
            args,
            env={"PATH": "/usr/bin:/bin", "HWF_CACHE_DIR": env["cache"]},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        self.url = None
        while self.url is None:
            assert time.monotonic() < deadline, f"no address printed: {self.lines}"
            line = self.proc.stdout.readline()
            assert line, f"hwf mcp --http exited: {self.proc.wait()} {self.proc.stderr.read()}"
            self.lines.append(line.strip())
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                self.url = m.group(1)

    def token_printed(self) -> str | None:
        for line in self.lines:
            m = re.search(r"Bearer (\S+)$", line)
            if m and m.group(1) != "<token>":
                return m.group(1)
        return None

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _field(obj, camel: str, snake: str):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def _envelope(result) -> dict:
    structured = _field(result, "structuredContent", "structured_content")
    assert structured is not None, result
    # The same envelope as JSON text, for clients that read only content.
    assert json.loads(result.content[0].text) == structured, result
    return structured


def _is_error(result) -> bool:
    return bool(_field(result, "isError", "is_error"))


def _session_client(url: str, token: str | None = None):
    """The SDK's Streamable HTTP transport (2.x, or 1.26 on httpx), with a
    bearer token when given."""
    require("mcp")
    from mcp.client.streamable_http import streamable_http_client

    if not token:
        return streamable_http_client(url)
    try:
        import httpx2 as httpx  # the 2.x SDK's client
    except ImportError:
        import httpx
    client = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return streamable_http_client(url, http_client=client)


def _error_code(exc: BaseException) -> int | None:
    err = getattr(exc, "error", None)
    return getattr(err, "code", None)


def _error_data(exc: BaseException):
    return getattr(getattr(exc, "error", None), "data", None)


def test_http_session_lists_tools_runs_a_workflow_and_reads_it(env):
    require("mcp")
    from mcp import ClientSession

    async def go(url):
        async with _session_client(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                assert sorted(t.name for t in tools) == ["workflow", "workflow_control", "workflow_status"]
                for t in tools:
                    hints = t.annotations
                    assert _field(hints, "destructiveHint", "destructive_hint") is False, t
                    read = t.name == "workflow_status"
                    assert _field(hints, "readOnlyHint", "read_only_hint") is read, t
                r = await session.call_tool("workflow", {"script_source": QUICK_JS})
                assert not _is_error(r), r
                data = _envelope(r)["data"]
                assert data["state"] == "succeeded" and data["result"] == {"ok": True}, data
                run_id = data["run_id"]
                # Round trip of a status call over HTTP.
                took = []
                for _ in range(20):
                    t0 = time.monotonic()
                    s = await session.call_tool("workflow_status", {"action": "status", "run_id": run_id})
                    took.append(time.monotonic() - t0)
                    assert _envelope(s)["data"]["workflow"] == "quick-http"
                took.sort()
                print(f"status over HTTP: median {took[10] * 1000:.1f} ms, max {took[-1] * 1000:.1f} ms")
                # The run is a resource.
                read = await session.read_resource(f"hwf://runs/{run_id}")
                status = json.loads(read.contents[0].text)
                assert status["state"] == "succeeded" and status["workflow"] == "quick-http", status
                listed = await session.list_resources()
                assert any(str(r.uri) == f"hwf://runs/{run_id}" for r in listed.resources), listed
                # An unknown resource is -32002 in the 2025 revisions.
                for uri in ("hwf://runs/rnope", "file:///etc/passwd"):
                    with pytest.raises(Exception) as caught:
                        await session.read_resource(uri)
                    assert _error_code(caught.value) == -32002, caught.value
                    assert (_error_data(caught.value) or {}).get("uri") == uri, caught.value

    with HttpServer(env) as server:
        asyncio.run(go(server.url))


def test_http_a_parked_run_is_answered_and_the_overview_is_paged(env):
    require("mcp")
    from mcp import ClientSession

    async def go(url):
        async with _session_client(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                r = await session.call_tool("workflow", {"script_source": ASK_JS})
                data = _envelope(r)["data"]
                assert data["state"] == "waiting", data
                d = await session.call_tool(
                    "workflow_control",
                    {
                        "action": "decide",
                        "run_id": data["run_id"],
                        "call": data["waits"][0]["call"],
                        "decision": "respond",
                        "value": "yes",
                    },
                )
                assert _envelope(d)["success"] is True, d
                ids = [data["run_id"]]
                for _ in range(4):
                    r = await session.call_tool("workflow", {"script_source": QUICK_JS})
                    ids.append(_envelope(r)["data"]["run_id"])
                deadline = time.monotonic() + 5
                while True:
                    s = await session.call_tool("workflow_status", {"action": "status", "run_id": ids[0]})
                    if _envelope(s)["data"]["state"] == "succeeded":
                        break
                    assert time.monotonic() < deadline, s
                    await asyncio.sleep(0.05)
                # Pages of two, newest first, by cursor.
                seen, cursor = [], None
                while True:
                    args = {"limit": 2, **({"cursor": cursor} if cursor else {})}
                    page = _envelope(await session.call_tool("workflow_status", args))["data"]
                    assert len(page["runs"]) <= 2
                    seen += [line["run_id"] for line in page["runs"]]
                    cursor = page["next_cursor"]
                    if cursor is None:
                        break
                assert seen == list(reversed(ids)), (seen, ids)
                names = _envelope(await session.call_tool("workflow_status", {"workflow": "ask"}))["data"]
                assert [line["run_id"] for line in names["runs"]] == [ids[0]], names
                waiting = _envelope(await session.call_tool("workflow_status", {"state": "waiting"}))["data"]
                assert waiting["total"] == 0, waiting
                # A fixable mistake is a report, not a tool error.
                bad = await session.call_tool("workflow_status", {"limit": 1000})
                assert not _is_error(bad), bad
                assert _envelope(bad)["error"]["code"] == "invalid_params", bad

    with HttpServer(env) as server:
        asyncio.run(go(server.url))


def test_http_2026_client_is_served_statelessly(env):
    mcp = require("mcp")
    if not hasattr(mcp, "Client"):
        pytest.skip("the 1.x SDK has no 2026-07-28 client")
    from mcp import Client

    async def go(url):
        async with Client(url) as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            tools = await client.list_tools()
            assert len(tools.tools) == 3
            r = await client.call_tool("workflow", {"script_source": QUICK_JS})
            data = _envelope(r)["data"]
            assert data["state"] == "succeeded", data
            read = await client.read_resource(f"hwf://runs/{data['run_id']}")
            assert json.loads(read.contents[0].text)["state"] == "succeeded"
            # 2026-07-28 says -32602 for an unknown resource (rmcp maps it).
            with pytest.raises(Exception) as caught:
                await client.read_resource("hwf://runs/rnope")
            assert _error_code(caught.value) == -32602, caught.value
            assert (_error_data(caught.value) or {}).get("uri") == "hwf://runs/rnope"

    with HttpServer(env) as server:
        asyncio.run(go(server.url))


def test_http_progress_and_a_cancelled_call_stops_its_run(env):
    """Progress arrives over the request's SSE stream; cancelling the call
    (``notifications/cancelled``) stops the run."""
    mcp_module = require("mcp")
    from mcp import ClientSession

    progress: list[float] = []

    async def on_progress(value, total, message):
        progress.append(value)

    async def go(url):
        async with _session_client(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                r = await session.call_tool("workflow", {"script_source": SLOW_JS}, progress_callback=on_progress)
                assert _envelope(r)["data"]["state"] == "succeeded"
                assert len(progress) >= 3 and all(b > a for a, b in zip(progress, progress[1:])), progress
                run_id = "rcancelledhttp000000000000000001"
                cancelled_id = getattr(session, "_request_id", None)
                call = asyncio.ensure_future(
                    session.call_tool("workflow", {"script_source": SLOW_JS, "run_id": run_id})
                )
                await asyncio.sleep(0.1)  # it takes its request id first
                deadline = time.monotonic() + 30
                while True:
                    s = _envelope(await session.call_tool("workflow_status", {"run_id": run_id}))
                    if s["success"] and s["data"]["state"] == "running":
                        break
                    assert time.monotonic() < deadline, s
                    await asyncio.sleep(0.05)
                call.cancel()
                with pytest.raises(BaseException):
                    await call
                if hasattr(session, "_request_id") and not hasattr(mcp_module, "Client"):
                    # The 1.x SDK drops a cancelled call without telling the
                    # server (and over HTTP a closed stream is no cancel):
                    # say it as the protocol says.
                    from mcp import types

                    await session.send_notification(
                        types.ClientNotification(
                            types.CancelledNotification(
                                params=types.CancelledNotificationParams(requestId=cancelled_id, reason="test")
                            )
                        )
                    )
                deadline = time.monotonic() + 10
                while True:
                    s = _envelope(await session.call_tool("workflow_status", {"run_id": run_id}))["data"]
                    if s["state"] == "stopped":
                        break
                    assert time.monotonic() < deadline, s
                    await asyncio.sleep(0.05)
                stops = [c for c in s["controls"] if c["action"] == "stop"]
                assert stops and stops[0]["actor"] == "mcp-client", s
                assert s["counts"]["agent_calls"] < 5, s

    with HttpServer(env, "--agents", str(env["fixture"])) as server:
        asyncio.run(go(server.url))


# --- raw HTTP: what no SDK sends -------------------------------------------


def _post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict, str]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


def test_http_refuses_foreign_hosts_and_origins(env):
    with HttpServer(env) as server:
        port = server.url.split(":")[2].split("/")[0]
        status, _, body = _post(server.url, INIT, {"Host": f"evil.example:{port}"})
        assert status == 403, body
        for origin in ("http://evil.example", "null", f"http://evil.example:{port}"):
            status, _, body = _post(server.url, INIT, {"Origin": origin})
            assert status == 403, (origin, body)
        # Loopback origins (a local inspector) and the server's own pass.
        for origin in ("http://localhost:6274", f"http://127.0.0.1:{port}"):
            status, headers, body = _post(server.url, INIT, {"Origin": origin})
            assert status == 200, (origin, body)
            assert "hwf" in body
        # Mcp-Method / Mcp-Name headers are accepted (and checked by rmcp).
        status, _, body = _post(server.url, INIT, {"Mcp-Method": "initialize"})
        assert status == 200, body
        # Anything but /mcp is not found.
        status, _, _ = _post(server.url.replace("/mcp", "/other"), INIT)
        assert status == 404


def test_http_token_on_loopback_when_given_and_always_off_loopback(env):
    token = "t0ken-for-the-http-tests-0123456789"
    with HttpServer(env, token=token) as server:
        status, headers, body = _post(server.url, INIT)
        assert status == 401 and headers.get("www-authenticate", headers.get("WWW-Authenticate")) == "Bearer", body
        status, _, body = _post(server.url, INIT, {"Authorization": "Bearer wrong-token-wrong-token"})
        assert status == 401, body
        status, _, body = _post(server.url, INIT, {"Authorization": f"Bearer {token}"})
        assert status == 200 and "hwf" in body, body
    # Off loopback with no token given: the console's token, generated,
    # stored 0600 and printed once.
    with HttpServer(env, addr="0.0.0.0:0") as server:
        printed = server.token_printed()
        assert printed, server.lines
        stored = (pathlib.Path(env["state"]) / "console-token").read_text().strip()
        assert stored == printed
        assert oct(os.stat(pathlib.Path(env["state"]) / "console-token").st_mode & 0o777) == "0o600"
        status, _, body = _post(server.url, INIT)
        assert status == 401, body
        # Off loopback any Host is fine once the token is right.
        port = server.url.split(":")[2].split("/")[0]
        status, _, body = _post(
            server.url, INIT, {"Authorization": f"Bearer {printed}", "Host": f"hwf.example:{port}"}
        )
        assert status == 200, body

    async def with_sdk(url):
        from mcp import ClientSession

        async with _session_client(url, token) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                r = await session.call_tool("workflow_status", {})
                assert _envelope(r)["success"] is True

    require("mcp")
    with HttpServer(env, token=token) as server:
        asyncio.run(with_sdk(server.url))


# --- runs as durable tasks over HTTP (2026-07-28, stateless) ----------------

TASKS = "io.modelcontextprotocol/tasks"
CAPS = {"extensions": {TASKS: {}}, "elicitation": {"form": {}}}


def _rpc(url: str, method: str, params: dict, name: str | None = None) -> dict:
    """One stateless 2026-07-28 request: the revision and the client's
    capabilities in ``_meta`` and in the headers, as such a client sends."""
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": method,
        "params": {
            **params,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": CAPS},
        },
    }
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    # The name header: the tool's, or the task's id for tasks/*.
    name = name or params.get("taskId")
    if name:
        headers["Mcp-Name"] = name
    status, _, text = _post(url, body, headers)
    assert status == 200, (method, status, text)
    # A JSON body, or one SSE event carrying it.
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])
    return json.loads(text)


def _task(url: str, task_id: str, want: str) -> dict:
    deadline = time.monotonic() + 30
    while True:
        r = _rpc(url, "tasks/get", {"taskId": task_id})
        assert "result" in r, r
        task = r["result"].get("task", r["result"])
        if task["status"] == want:
            return task
        assert time.monotonic() < deadline, (want, task)
        time.sleep(0.05)


def test_http_a_question_is_a_durable_task_answered_by_a_form(env):
    with HttpServer(env) as server:
        d = _rpc(server.url, "server/discover", {})
        assert TASKS in d["result"]["capabilities"]["extensions"], d
        r = _rpc(server.url, "tools/call", {"name": "workflow", "arguments": {"script_source": ASK_JS}}, name="workflow")
        assert r["result"]["resultType"] == "task", r
        task_id = r["result"]["taskId"]
        task = _task(server.url, task_id, "input_required")
        [(call, request)] = task["inputRequests"].items()
        assert request["method"] == "elicitation/create"
        assert request["params"]["requestedSchema"]["properties"]["answer"]["enum"] == ["yes", "no"]
        # kill -9 of the server between the question and the answer.
        server.proc.kill()
        server.proc.wait()
    with HttpServer(env) as server:
        again = _task(server.url, task_id, "input_required")
        assert again["inputRequests"] == task["inputRequests"]
        ack = _rpc(server.url, "tasks/update", {"taskId": task_id, "inputResponses": {call: {"action": "accept", "content": {"answer": "yes"}}}})
        assert "result" in ack, ack
        done = _task(server.url, task_id, "completed")
        assert done["result"]["structuredContent"]["data"]["result"] == {"answer": "yes"}, done


def test_http_2026_client_answers_a_runs_question_through_its_form_callback(env):
    """A 2026-07-28 client that shows forms but takes no tasks: the run's
    question comes back as an InputRequiredResult (MRTR); the SDK asks its
    elicitation callback and calls again with the answer; the run goes on
    and the call ends with its report. The answer is the person's
    (channel mcp-elicitation)."""
    mcp = require("mcp")
    if not hasattr(mcp, "Client"):
        pytest.skip("the 1.x SDK has no 2026-07-28 client")
    from mcp import Client
    import mcp_types

    asked = []

    async def on_elicit(context, params):
        asked.append(params)
        return mcp_types.ElicitResult(action="accept", content={"answer": "yes"})

    async def go(url):
        async with Client(url, elicitation_callback=on_elicit) as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            r = await client.call_tool("workflow", {"script_source": ASK_JS})
            data = _envelope(r)["data"]
            assert data["state"] == "succeeded", data
            assert data["result"] == {"answer": "yes"}, data
            return data["run_id"]

    with HttpServer(env) as server:
        run = asyncio.run(go(server.url))
    assert len(asked) == 1, asked
    assert "Ship it?" in asked[0].message
    controls = (env["state"] / "runs" / run / "controls.jsonl").read_text().splitlines()
    decided = [json.loads(c) for c in controls if '"decision"' in c]
    assert [d.get("channel") for d in decided] == ["mcp-elicitation"], decided
