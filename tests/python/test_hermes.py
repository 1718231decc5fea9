"""Hermes Agent's own code drives hwf: its plugin loader
(``hermes_cli.plugins.PluginManager``) loads ``integrations/hermes`` from a
profile's ``plugins/`` dir and registers both tools in Hermes' tool
registry, and a call through the registry works; its MCP client
(``tools.mcp_tool.register_mcp_servers``, the code behind ``mcp_servers:``
in config.yaml) starts ``hwf mcp`` with the documented entry — under the
environment stripping Hermes applies — and discovers both tools.

Each check runs in a fresh interpreter: Hermes reads ``HERMES_HOME`` and its
config at import time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from conftest import ASK_JS, ROOT, hwf_bin, require


def _hermes(env, code: str, extra_env: dict[str, str] | None = None) -> dict:
    """Run ``code`` in a fresh interpreter with ``HERMES_HOME`` set; it
    prints one JSON line, returned parsed."""
    require("hermes_cli")
    home = env["tmp"] / "hermes"
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={
            **os.environ,
            "HERMES_HOME": str(home),
            "HOME": str(env["tmp"]),
            "HWF_BIN": hwf_bin(),
            "HWF_CACHE_DIR": env["cache"],
            **(extra_env or {}),
        },
        capture_output=True,
        text=True,
        timeout=300,
        cwd=env["tmp"],
    )
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    assert proc.returncode == 0 and lines, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-4000:]}"
    return json.loads(lines[-1])


def _profile(env, config_yaml: str) -> None:
    home = env["tmp"] / "hermes"
    (home / "plugins").mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(config_yaml)


def test_hermes_plugin_loader_registers_both_tools_and_a_call_works(env):
    _profile(env, "plugins:\n  enabled:\n    - dynamic_workflows\n")
    link = env["tmp"] / "hermes" / "plugins" / "dynamic_workflows"
    link.symlink_to(ROOT / "integrations" / "hermes", target_is_directory=True)
    out = _hermes(
        env,
        f"""
        import json
        from hermes_cli.plugins import PluginManager
        from tools.registry import registry
        pm = PluginManager()
        pm.discover_and_load()
        plugins = {{p["name"]: p for p in pm.list_plugins()}}
        schemas = {{n: registry.get_schema(n) for n in ("workflow", "workflow_control")}}
        toolsets = {{n: registry.get_toolset_for_tool(n) for n in schemas}}
        ran = json.loads(registry.dispatch("workflow", {{"script_source": {ASK_JS!r}}}))
        wait = ran["data"]["waits"][0]
        decided = json.loads(registry.dispatch("workflow_control", {{
            "action": "decide", "run_id": ran["data"]["run_id"], "call": wait["call"],
            "decision": "respond", "value": "yes"}}))
        print(json.dumps({{"plugin": plugins.get("dynamic_workflows"), "schemas": schemas,
                          "toolsets": toolsets, "ran": ran, "decided": decided}}, default=str))
        """,
    )
    assert out["plugin"] and out["plugin"].get("enabled") is True, out["plugin"]
    for name, schema in out["schemas"].items():
        assert schema, f"{name} not registered"
        assert schema["name"] == name
        params = schema["parameters"]
        assert params["type"] == "object" and params["properties"], schema
        assert out["toolsets"][name] == "dynamic_workflows"
    assert out["ran"]["data"]["state"] == "waiting", out["ran"]
    assert out["decided"]["success"] is True, out["decided"]
    # The plugin used the profile's store: <HERMES_HOME>/workflows.
    runs = env["tmp"] / "hermes" / "workflows" / "runs"
    assert (runs / out["ran"]["data"]["run_id"]).is_dir()


def test_hermes_mcp_client_discovers_both_tools_with_the_documented_entry(env):
    state = env["tmp"] / "hermes" / "workflows"
    _profile(env, "")
    # The README's entry: the state dir in args (Hermes passes no HERMES_HOME),
    # HWF_CACHE_DIR in env: (everything else is stripped).
    entry = {
        "command": hwf_bin(),
        "args": ["--state-dir", str(state), "mcp"],
        "env": {"HWF_CACHE_DIR": env["cache"]},
        "timeout": 120,
    }
    out = _hermes(
        env,
        f"""
        import json
        from tools import mcp_tool
        from tools.registry import registry
        names = mcp_tool.register_mcp_servers({{"hwf": {entry!r}}})
        schemas = {{n: registry.get_schema(n) for n in names}}
        call = [n for n in names if n.endswith("workflow_control")]
        result = registry.dispatch(call[0], {{"action": "overview"}}) if call else None
        mcp_tool.shutdown_mcp_servers()
        print(json.dumps({{"names": names, "schemas": schemas, "result": result}}, default=str))
        """,
        extra_env={"SECRET_TOKEN": "must-not-reach-hwf"},
    )
    names = out["names"]
    workflow = [n for n in names if n.endswith("_workflow")]
    control = [n for n in names if n.endswith("_workflow_control")]
    assert workflow and control, names
    for n in workflow + control:
        params = out["schemas"][n]["parameters"]
        assert params["type"] == "object" and "action" in params["properties"], out["schemas"][n]
    result = json.loads(out["result"])
    body = result.get("structuredContent") or json.loads(result["result"])
    assert body["success"] is True, result
    assert state.is_dir(), "hwf mcp used the state dir named in args"


def test_hermes_mcp_client_over_http_and_fixable_mistakes_do_not_trip_its_breaker(env):
    """Hermes' MCP client reaches ``hwf mcp --http`` with a ``url:`` entry
    and a bearer token in ``headers:``; three (and more) parameter mistakes
    in a row do not open its circuit breaker (it counts every ``isError``
    and every protocol error), so the next good call goes through."""
    from test_mcp_http import HttpServer

    _profile(env, "")
    token = "hermes-http-token-0123456789abcdef"
    with HttpServer(env, token=token) as server:
        entry = {"url": server.url, "headers": {"Authorization": f"Bearer {token}"}, "timeout": 120}
        out = _hermes(
            env,
            f"""
            import json
            from tools import mcp_tool
            from tools.registry import registry
            names = mcp_tool.register_mcp_servers({{"hwf": {entry!r}}})
            status = [n for n in names if n.endswith("_workflow_status")][0]
            run = [n for n in names if n.endswith("_workflow")][0]
            bad = [registry.dispatch(status, {{"limit": 5000}}),
                   registry.dispatch(run, {{"bogus": 1}}),
                   registry.dispatch(status, {{"action": "status", "run_id": "r0000000000000000000000000000000"}}),
                   registry.dispatch(run, {{"action": "nonsense"}})]
            count = mcp_tool._server_error_counts.get("hwf", 0)
            good = registry.dispatch(run, {{"script_source": {ASK_JS!r}}})
            mcp_tool.shutdown_mcp_servers()
            print(json.dumps({{"names": names, "bad": bad, "count": count, "good": good}}, default=str))
            """,
        )
    assert any(n.endswith("_workflow_status") for n in out["names"]), out["names"]
    for b in out["bad"]:
        parsed = json.loads(b)
        assert "error" not in parsed, parsed  # Hermes' own failure shape
        body = parsed.get("structuredContent") or json.loads(parsed["result"])
        assert body["success"] is False, body
    assert out["count"] == 0, out
    good = json.loads(out["good"])
    body = good.get("structuredContent") or json.loads(good["result"])
    assert body["data"]["state"] == "waiting", good
