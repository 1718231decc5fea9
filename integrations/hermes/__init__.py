"""Hermes Agent plugin shim for hwf.

Registers the tools ``workflow`` and ``workflow_control`` (toolset
``dynamic_workflows``). Each call runs ``hwf facade <tool>`` with the
arguments as JSON on stdin and returns hwf's JSON response unchanged, so the
plugin, the CLI (``--json``) and ``hwf mcp`` share one implementation.

Configuration (environment):

- ``HWF_BIN``: the hwf binary (default: the ``hwf`` installed beside this
  plugin by the ``hwf`` wheel, in the environment's scripts directory, else
  ``hwf`` on PATH);
- ``HWF_STATE_DIR``: the state directory (default: ``<Hermes home>/workflows``
  of the active profile, passed to hwf as ``--state-dir`` so the plugin and
  an ``hwf mcp`` server configured with the same directory share one store);
- ``HWF_CONFIG``: an ``hwf.toml`` (passed as ``--config``);
- ``HWF_AGENTS``: a fixture file for agent calls (tests, demos);
- ``HWF_WAIT_SECONDS``: how long a ``workflow`` run call waits for its run
  before answering ``{run_id, state, detached: true}`` while the run goes on
  (default 240, below the 300 s Hermes gives a tool call);
- ``HWF_TIMEOUT``: seconds one tool call may take (default 3600).

Decisions, resumes and stops recorded through ``workflow_control`` take
effect at once: ``hwf facade`` hands the parked run to the state dir's
background runner (started on demand; or a long-lived ``hwf runner`` already
serving the state dir), so nobody has to start ``hwf runner`` (unless
``[runner] autostart = false`` / ``HWF_RUNNER_AUTOSTART=0``: then a runner
the operator manages continues it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
from typing import Any, Callable

TOOLSET = "dynamic_workflows"
TOOLS = ("workflow", "workflow_control")

# Used when the binary cannot describe its tools (not installed yet): enough
# for the model to call them; hwf itself checks every parameter.
_FALLBACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"action": {"type": "string"}},
    "additionalProperties": True,
}


def _binary() -> str:
    if os.environ.get("HWF_BIN"):
        return os.environ["HWF_BIN"]
    # Installed from the wheel: the binary is in this environment's scripts
    # directory, which is not on PATH when Hermes was started by its path.
    beside = os.path.join(sysconfig.get_path("scripts"), "hwf")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which("hwf") or "hwf"


def _wait_seconds() -> int:
    try:
        return max(0, int(os.environ.get("HWF_WAIT_SECONDS", "240")))
    except ValueError:
        return 240


def _state_dir() -> str | None:
    """``HWF_STATE_DIR``, else the active Hermes profile's ``workflows``."""
    explicit = os.environ.get("HWF_STATE_DIR")
    if explicit:
        return explicit
    try:
        from hermes_constants import get_hermes_home  # type: ignore[import-not-found]
    except ImportError:
        return None  # outside Hermes: hwf's own default
    return str(get_hermes_home() / "workflows")


def _command(*args: str) -> list[str]:
    cmd = [_binary()]
    state = _state_dir()
    if state:
        cmd += ["--state-dir", state]
    config = os.environ.get("HWF_CONFIG")
    if config:
        cmd += ["--config", config]
    return cmd + list(args)


def _timeout() -> float:
    try:
        return float(os.environ.get("HWF_TIMEOUT", "3600"))
    except ValueError:
        return 3600.0


def _error(code: str, message: str) -> str:
    return json.dumps({"success": False, "error": {"code": code, "message": message}})


def call_hwf(tool: str, args: dict[str, Any] | None) -> str:
    """Run one facade call and return hwf's JSON response text."""
    request = dict(args or {})
    if tool == "workflow" and "wait_seconds" not in request and not request.get("background"):
        request["wait_seconds"] = _wait_seconds()
    try:
        proc = subprocess.run(
            _command("facade", tool),
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=_timeout(),
            check=False,
        )
    except FileNotFoundError:
        return _error("hwf_not_found", f"the hwf binary was not found ({_binary()}); set HWF_BIN")
    except subprocess.TimeoutExpired:
        return _error("timeout", f"hwf facade {tool} took longer than {_timeout()} s")
    out = proc.stdout.strip()
    if not out:
        line = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return _error("hwf_failed", f"hwf exited with {proc.returncode}: {line}")
    return out


def tool_definitions() -> list[dict[str, Any]]:
    """The tools' names, descriptions and JSON Schemas, from the binary."""
    try:
        proc = subprocess.run(
            _command("facade", "--list-tools"),
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        tools = json.loads(proc.stdout)["data"]["tools"]
        return [t for t in tools if t.get("name") in TOOLS]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return [
            {"name": "workflow", "description": "Run and manage hwf workflows.", "parameters": _FALLBACK_SCHEMA},
            {"name": "workflow_control", "description": "Steer hwf runs.", "parameters": _FALLBACK_SCHEMA},
        ]


def _handler(tool: str) -> Callable[..., str]:
    def handle(args: dict[str, Any] | None = None, **_kwargs: Any) -> str:
        return call_hwf(tool, args)

    handle.__name__ = f"hwf_{tool}"
    return handle


def register(ctx: Any) -> None:
    """Hermes plugin entry point: register ``workflow`` and ``workflow_control``."""
    for tool in tool_definitions():
        schema = {"name": tool["name"], "description": tool["description"], "parameters": tool["parameters"]}
        ctx.register_tool(
            name=tool["name"],
            toolset=TOOLSET,
            schema=schema,
            handler=_handler(tool["name"]),
            description=tool["description"],
        )
