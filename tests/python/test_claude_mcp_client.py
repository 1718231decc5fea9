"""Claude Code as hwf's MCP client (issue 27): the real ``claude`` binary
(pinned by scripts/install-agent-clis.sh), its model a loopback mock of the
Anthropic API (tests/mocks/agent_api_mock.py, scenario ``call_tools``) that
calls the hwf tools the prompt names. Claude Code 2.1.332 speaks the
2026-07-28 revision (``server/discover``, per-request ``_meta``) over stdio
and Streamable HTTP; what the tools answered comes back in Claude Code's
final output, and the state dir shows what hwf did.

- a workflow run from Claude Code over stdio and over ``--http``: named by
  its ``meta.name``, its result in the tool's answer;
- a question asked of a ``-p`` session (Claude Code declares form
  elicitation, so it gets the question as an ``input_required`` result, and
  answers ``cancel``: nobody can be asked): the call answers once with the
  waiting run, never loops on the same question, and the question stays
  open for a person;
- the model, through Claude Code, cannot approve an ``external_write``
  gate; a person at the CLI can.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, hwf_bin
from hwf_paths import installed_tool
from test_mcp_http import HttpServer

sys.path.insert(0, str(ROOT / "tests" / "mocks"))
from agent_api_mock import MockServer, call_tool_marker  # noqa: E402


def claude() -> str:
    path = installed_tool("HWF_CLAUDE", "agent-clis", "node_modules", ".bin", "claude")
    if not os.path.exists(path):
        msg = f"Claude Code is not installed at {path} (run scripts/install-agent-clis.sh)"
        if os.environ.get("HWF_REQUIRE_CLIENTS") == "1":
            raise AssertionError(msg)
        pytest.skip(msg)
    return path


GREET_JS = """export const meta = { name: "greet", description: "one agent call, then a greeting" };
const a = await agent("say hello to " + args.who, { label: "hello" });
return { greeting: a.text, who: args.who };
"""

ASK_JS = """export const meta = { name: "ship-question", description: "asks a person" };
const a = await capability("human.ask", { prompt: "Ship release 1.4?", choices: ["yes", "no"] });
return { answer: a.answer };
"""

DEPLOY_JS = """export const meta = { name: "deploy", description: "writes a marker after an approval" };
await capability("fs.write", { path: "deployed.txt", content: "release 1.4" });
return { deployed: true };
"""

FIXTURE = {"responses": [{"match": {"label": "hello"}, "output": {"text": "hello, ana"}, "tokens": 12}]}


@pytest.fixture
def mock():
    server = MockServer(scenario="ok_json")
    server.start()
    yield server
    server.stop()


def hwf(env, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [hwf_bin(), "--state-dir", str(env["state"]), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HWF_CACHE_DIR": env["cache"], "HWF_AGENTS": str(env["tmp"] / "agents.json"),
             "HWF_RUNNER_AUTOSTART": "0"},
        cwd=env["tmp"],
    )
    if check:
        assert proc.returncode in (0, 3), f"hwf {args} exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def status(env, run_id: str) -> dict:
    return json.loads(hwf(env, "status", run_id, "--json").stdout)["data"]


def ask_claude(env, mock: MockServer, server: dict, calls: list[tuple[str, dict]]) -> list:
    """Run ``claude -p`` with hwf as its MCP server ``hwf`` and a model that
    calls ``calls`` (tool, input) in order; the tools' answers, parsed."""
    (env["tmp"] / "agents.json").write_text(json.dumps(FIXTURE))
    config = env["tmp"] / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"hwf": server}}))
    home = env["tmp"] / "home"
    home.mkdir(exist_ok=True)
    prompt = "Use the hwf tools. SCENARIO:call_tools " + " ".join(
        call_tool_marker(f"mcp__hwf__{tool}", tool_input) for tool, tool_input in calls
    )
    allowed = ",".join(sorted({f"mcp__hwf__{tool}" for tool, _ in calls}))
    proc = subprocess.run(
        [claude(), "-p", prompt, "--output-format", "json", "--mcp-config", str(config), "--strict-mcp-config",
         "--allowedTools", allowed],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=env["tmp"],
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-ant-mock-0000",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
    )
    assert proc.returncode == 0, f"claude exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    result = json.loads(proc.stdout)["result"]
    assert result.startswith("TOOL_RESULTS:"), f"the model never saw every tool answer: {result[:2000]}"
    answers = json.loads(result[len("TOOL_RESULTS:"):])
    assert len(answers) == len(calls), answers
    parsed = []
    for text in answers:
        try:
            parsed.append(json.loads(text))
        except ValueError:
            parsed.append(text)
    return parsed


def stdio_server(env) -> dict:
    return {
        "command": hwf_bin(),
        "args": ["--state-dir", str(env["state"]), "mcp"],
        "env": {"HWF_CACHE_DIR": env["cache"], "HWF_AGENTS": str(env["tmp"] / "agents.json")},
    }


def mcp_requests(mock: MockServer) -> list[dict]:
    return [r for r in mock.requests if r.get("scenario") == "call_tools"]


def test_claude_code_runs_a_workflow_through_hwf_over_stdio(env, mock):
    [answer] = ask_claude(env, mock, stdio_server(env),
                          [("workflow", {"script_source": GREET_JS, "script_args": {"who": "ana"}})])
    assert answer["success"] is True, answer
    data = answer["data"]
    assert data["state"] == "succeeded", answer
    assert data["result"] == {"greeting": "hello, ana", "who": "ana"}, answer
    st = status(env, data["run_id"])
    assert st["workflow"] == "greet", st
    assert st["counts"]["agent_calls"] == 1, st
    # Claude Code told the model of hwf's three tools by their MCP names
    # (as tools, or as deferred tools it can load).
    first = json.dumps(mcp_requests(mock)[0]["body"])
    for name in ("mcp__hwf__workflow", "mcp__hwf__workflow_control", "mcp__hwf__workflow_status"):
        assert f'"{name}' in first or f"{name}\\n" in first or name in first, name


def test_claude_code_runs_a_workflow_through_hwf_over_http(env, mock):
    (env["tmp"] / "agents.json").write_text(json.dumps(FIXTURE))
    with HttpServer(env, "--agents", str(env["tmp"] / "agents.json")) as http:
        [answer, read] = ask_claude(
            env, mock, {"type": "http", "url": http.url},
            [("workflow", {"script_source": GREET_JS, "script_args": {"who": "ana"}}),
             ("workflow_status", {"action": "status", "run_id": "$RUN_ID"})],
        )
    assert answer["data"]["result"] == {"greeting": "hello, ana", "who": "ana"}, answer
    # The second call read the run the first one started, by its id.
    assert read["success"] is True and read["data"]["run_id"] == answer["data"]["run_id"], read
    assert read["data"]["workflow"] == "greet" and read["data"]["state"] == "succeeded", read


def test_a_question_claude_code_cannot_put_to_anyone_stays_open_for_a_person(env, mock):
    [answer] = ask_claude(env, mock, stdio_server(env), [("workflow", {"script_source": ASK_JS, "wait_seconds": 20})])
    # Claude Code -p answers the form with `cancel`; hwf answers the call
    # with the waiting run rather than asking again until the client's
    # round limit ("still required input after 10 rounds").
    assert isinstance(answer, dict), f"the call did not end with the run's report: {answer}"
    data = answer["data"]
    assert data["state"] == "waiting", answer
    [wait] = data["waits"]
    assert wait["kind"] == "human", answer
    run_id = data["run_id"]
    # Nothing was recorded for the question; a person answers it later.
    st = status(env, run_id)
    assert st["state"] == "waiting" and len(st["waits"]) == 1, st
    hwf(env, "control", "decide", run_id, wait["call"], "respond", "--value", '"yes"')
    hwf(env, "runner", "--once")
    st = status(env, run_id)
    assert st["state"] == "succeeded" and st["result"] == {"answer": "yes"}, st


def test_the_model_through_claude_code_cannot_approve_a_write_gate(env, mock):
    ws = env["tmp"] / "ws"
    ws.mkdir()
    (env["tmp"] / "agents.json").write_text(json.dumps(FIXTURE))
    (env["tmp"] / "deploy.js").write_text(DEPLOY_JS)
    parked = hwf(env, "run", "deploy.js", "--json", "--allow-class", "external_write", "--workspace", str(ws))
    assert parked.returncode == 3, parked.stdout
    data = json.loads(parked.stdout)["data"]
    run_id, call = data["run_id"], data["waits"][0]["call"]
    [answer] = ask_claude(env, mock, stdio_server(env), [
        ("workflow_control", {"action": "decide", "run_id": run_id, "call": call, "decision": "approve"}),
    ])
    assert answer["success"] is False and answer["error"]["code"] == "decision_not_allowed", answer
    assert status(env, run_id)["state"] == "waiting"
    assert not (ws / "deployed.txt").exists()
    # A person at the CLI approves it.
    hwf(env, "control", "decide", run_id, call, "approve")
    hwf(env, "runner", "--once")
    assert status(env, run_id)["state"] == "succeeded"
    assert (ws / "deployed.txt").read_text() == "release 1.4"
