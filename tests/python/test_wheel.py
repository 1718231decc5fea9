"""The wheel (scripts/build-wheel.sh): it installs into a fresh venv with
``--no-index``, its ``hwf`` runs a JS workflow from an empty directory with
an empty HOME (the runtimes are embedded), and it ships the Hermes plugin as
a ``hermes_agent.plugins`` entry point that finds that ``hwf``.

The wheel packages the binary the other tests use (``HWF_BIN``, else
``target/debug/hwf``): rebuilding in release here would cost CI minutes.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from conftest import ROOT, hwf_bin, require


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of the binary under test, built once for this module."""
    binary = pathlib.Path(hwf_bin())
    assert binary.is_file(), f"hwf is not built at {binary}; run cargo build first"
    wheels = tmp_path_factory.mktemp("wheels")
    built = subprocess.run(
        [str(ROOT / "scripts" / "build-wheel.sh"), "--bin", str(binary), "--out", str(wheels)],
        capture_output=True,
        text=True,
        timeout=600,
        # Fast to zip: the debug binary is large, and this wheel is thrown away.
        env={**os.environ, "HWF_WHEEL_LEVEL": "1"},
    )
    assert built.returncode == 0, built.stderr
    [whl] = list(wheels.glob("hwf-*.whl"))
    assert whl.name.startswith("hwf-0.") and "-py3-none-" in whl.name, whl.name
    return whl


def test_the_wheel_installs_offline_and_its_hwf_runs_a_js_workflow(tmp_path, wheel):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    hwf = venv / "bin" / "hwf"
    assert hwf.is_file() and os.access(hwf, os.X_OK)

    # An empty directory, an empty HOME (so an empty per-user cache), no
    # runtime dir: only what the wheel installed.
    work = tmp_path / "empty"
    home = tmp_path / "home"
    work.mkdir()
    home.mkdir()
    (work / "hi.js").write_text(
        'export const meta = { name: "hi", description: "greets" };\nreturn { hi: "from the wheel" };\n'
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HWF_", "XDG_", "HERMES_")) and k != "VIRTUAL_ENV"
    }
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}:/usr/bin:/bin", HWF_RUNNER_AUTOSTART="0")
    run = subprocess.run(
        ["hwf", "run", "hi.js", "--json"], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["data"]["result"] == {"hi": "from the wheel"}
    # The runtime was precompiled into the binary: nothing to compile.
    assert "compiling the javascript runtime" not in run.stderr, run.stderr

    # The plugin: an entry point Hermes discovers, whose register() works and
    # which runs the wheel's hwf even when that is not on PATH.
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, json\n"
            "[ep] = [e for e in m.entry_points(group='hermes_agent.plugins') if e.name == 'dynamic_workflows']\n"
            "mod = ep.load()\n"
            "class Ctx:\n"
            "    tools = {}\n"
            "    def register_tool(self, *, name, toolset, schema, handler, **extra):\n"
            "        self.tools[name] = toolset\n"
            "ctx = Ctx()\n"
            "mod.register(ctx)\n"
            "print(json.dumps({'binary': mod._binary(), 'tools': ctx.tools}))\n",
        ],
        env={**env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout)
    assert report["binary"] == str(hwf), report
    assert report["tools"] == {"workflow": "dynamic_workflows", "workflow_control": "dynamic_workflows"}, report


def test_hermes_enables_the_wheels_plugin_by_its_entry_point(tmp_path, wheel):
    """The second of the two commands, with the real Hermes Agent: the
    wheel's plugin (installed here with ``--target`` beside Hermes'
    environment, which other tests share) is listed and enabled by name."""
    require("hermes_cli")
    hermes = pathlib.Path(sys.executable).parent / "hermes"
    assert hermes.is_file(), f"no hermes beside {sys.executable}"
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
        check=True,
        timeout=600,
    )
    home = tmp_path / "hermes-home"
    home.mkdir()
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(site)}
    enable = subprocess.run(
        [str(hermes), "plugins", "enable", "dynamic_workflows"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert enable.returncode == 0, enable.stdout + enable.stderr
    listed = subprocess.run(
        [str(hermes), "plugins", "list", "--plain", "--no-bundled"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    line = next((l for l in listed.stdout.splitlines() if "dynamic_workflows" in l), "")
    assert line.split()[:2] == ["enabled", "entrypoint"], listed.stdout
