"""Load the plugin with a fake Hermes ctx and drive the real hwf binary."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "integrations" / "hermes" / "__init__.py"
# One rule for every Python test (HWF_BIN, CARGO_TARGET_DIR, HWF_HARNESS_DIR).
sys.path.insert(0, str(ROOT / "tests" / "python"))
from hwf_paths import harness_dir, hwf_bin  # noqa: E402

HWF = hwf_bin()


def built_harness(name: str) -> pathlib.Path:
    """A guest the build made (``hwf_paths.harness_dir``: ``HWF_HARNESS_DIR``,
    else ``<target>/harnesses`` of the binary under test)."""
    path = harness_dir() / f"{name}.wasm"
    if not path.is_file():
        pytest.fail(f"{path} is not built; build the workspace (or set HWF_HARNESS_DIR)")
    return path


class FakeCtx:
    def __init__(self) -> None:
        self.tools: dict[str, dict] = {}

    def register_tool(self, *, name, toolset, schema, handler, **extra):
        self.tools[name] = {"toolset": toolset, "schema": schema, "handler": handler, **extra}


@pytest.fixture()
def plugin(tmp_path, monkeypatch):
    if not pathlib.Path(HWF).is_file():
        pytest.fail(f"hwf binary not built at {HWF}; run cargo build first")
    monkeypatch.setenv("HWF_BIN", HWF)
    monkeypatch.setenv("HWF_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HWF_AGENTS", str(ROOT / "harnesses" / "hello" / "fixture.json"))
    spec = importlib.util.spec_from_file_location("hwf_hermes_plugin", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    sys.modules["hwf_hermes_plugin"] = module
    spec.loader.exec_module(module)
    ctx = FakeCtx()
    module.register(ctx)
    return ctx


def call(ctx, tool, args):
    return json.loads(ctx.tools[tool]["handler"](args))


def test_registers_both_tools_with_schemas(plugin):
    assert set(plugin.tools) == {"workflow", "workflow_control"}
    for name, tool in plugin.tools.items():
        assert tool["toolset"] == "dynamic_workflows"
        params = tool["schema"]["parameters"]
        assert params["type"] == "object"
        assert "action" in params["properties"], name
    props = plugin.tools["workflow"]["schema"]["parameters"]["properties"]
    # Canonical names only (aliases are accepted, not advertised).
    assert "script_path" in props and "scriptPath" not in props
    assert "wait_seconds" in props


def test_runs_hello_and_reads_status(plugin):
    hello = str(built_harness("hello"))
    saved = call(plugin, "workflow", {"action": "script_save", "name": "hello", "scriptPath": hello})
    assert saved["success"] is True, saved
    ran = call(plugin, "workflow", {"name": "hello", "args": {"name": "world"}})
    assert ran["success"] is True, ran
    assert ran["data"]["result"] == {"greeting": "hello, world", "result": "HELLO, WORLD"}
    status = call(plugin, "workflow_control", {"action": "status", "run_id": ran["data"]["run_id"]})
    assert status["data"]["state"] == "succeeded"
    assert [c["label"] for c in status["data"]["calls"]] == ["greet", "shout"]
    overview = call(plugin, "workflow_control", {"action": "overview"})
    assert overview["data"]["runs"][0]["run_id"] == ran["data"]["run_id"]


def test_bad_parameters_come_back_as_typed_errors(plugin):
    bad = call(plugin, "workflow", {"action": "run", "bogus": 1})
    assert bad["success"] is False
    assert bad["error"]["code"] == "invalid_params"
    assert "bogus" in bad["error"]["message"]


def test_missing_binary_is_a_clear_error(plugin, monkeypatch):
    monkeypatch.setenv("HWF_BIN", "/nonexistent/hwf")
    out = json.loads(plugin.tools["workflow"]["handler"]({"action": "catalog"}))
    assert out["error"]["code"] == "hwf_not_found"


def test_a_decision_takes_effect_without_a_runner(plugin, tmp_path):
    ask = tmp_path / "ask.js"
    ask.write_text(
        'export const meta = { name: "ask", description: "asks" };\n'
        'const a = await capability("human.ask", { prompt: "go?", choices: ["yes", "no"] });\n'
        "return { answer: a.answer };\n"
    )
    ran = call(plugin, "workflow", {"script_path": str(ask)})
    assert ran["data"]["state"] == "waiting", ran
    run_id, wait = ran["data"]["run_id"], ran["data"]["waits"][0]
    refused = call(
        plugin, "workflow_control", {"action": "decide", "run_id": run_id, "call": wait["call"], "decision": "approve"}
    )
    assert refused["success"] is False and "question" in refused["error"]["message"], refused
    decided = call(
        plugin,
        "workflow_control",
        {"action": "decide", "run_id": run_id, "call": wait["call"], "decision": "respond", "value": "yes"},
    )
    assert decided["success"] is True, decided
    import time

    deadline = time.monotonic() + 30
    while True:
        status = call(plugin, "workflow_control", {"action": "status", "run_id": run_id})
        if status["data"]["state"] == "succeeded":
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    assert status["data"]["result"] == {"answer": "yes"}


def test_wait_seconds_returns_the_run_id_of_a_long_run(plugin, tmp_path, monkeypatch):
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps({"responses": [{"match": {"label": "s"}, "output": {"ok": 1}, "delay_ms": 3000}]}))
    monkeypatch.setenv("HWF_AGENTS", str(slow))
    monkeypatch.setenv("HWF_WAIT_SECONDS", "1")
    script = tmp_path / "slow.js"
    script.write_text('export const meta = { name: "slow", description: "slow" };\nreturn await agent("x", { label: "s" });\n')
    ran = call(plugin, "workflow", {"script_path": str(script)})
    assert ran["success"] is True and ran["data"]["detached"] is True, ran
    import time

    deadline = time.monotonic() + 60
    while True:
        status = call(plugin, "workflow_control", {"action": "status", "run_id": ran["data"]["run_id"]})
        if status["data"]["state"] == "succeeded":
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.1)
