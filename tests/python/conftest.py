"""Shared fixtures for the Python client tests: the real hwf binary, a
fresh state dir per test, and the workflows the tests run.

``HWF_BIN`` names the binary (default: ``$CARGO_TARGET_DIR/debug/hwf``, else
``target/debug/hwf``; every path rule is in ``hwf_paths.py``). With
``HWF_REQUIRE_CLIENTS=1`` (CI) a missing client library fails the test
instead of skipping it.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from hwf_paths import ROOT, cache_dir, hwf_bin  # noqa: F401 (re-exported to the tests)

ASK_JS = """export const meta = { name: "ask", description: "asks, then answers", phases: [{ title: "ask" }] };
phase("ask");
const answer = await capability("human.ask", { prompt: "Ship it?", choices: ["yes", "no"] });
return { answer: answer.answer ?? answer };
"""

SLOW_JS = """export const meta = { name: "slow", description: "five slow steps", phases: [{ title: "one" }, { title: "two" }, { title: "three" }] };
phase("one");
await agent("step 1", { label: "s1" });
await agent("step 2", { label: "s2" });
phase("two");
await agent("step 3", { label: "s3" });
await agent("step 4", { label: "s4" });
phase("three");
await agent("step 5", { label: "s5" });
return { done: 5 };
"""

SLOW_FIXTURE = {
    "responses": [
        {"match": {"label": f"s{i}"}, "output": {"ok": i}, "delay_ms": 1000} for i in range(1, 6)
    ]
}


def require(module: str):
    """Import a client library, or skip (fail under HWF_REQUIRE_CLIENTS=1)."""
    try:
        return __import__(module)
    except ImportError as e:
        if os.environ.get("HWF_REQUIRE_CLIENTS") == "1":
            raise
        pytest.skip(f"{module} is not installed ({e})")


@pytest.fixture
def env(tmp_path):
    """A state dir, a fixture file and the shared compile cache."""
    state = tmp_path / "state"
    fixture = tmp_path / "slow.json"
    fixture.write_text(json.dumps(SLOW_FIXTURE))
    cache = cache_dir()
    # Compile the JS runtime once, outside the timed parts.
    script = tmp_path / "warm.js"
    script.write_text(ASK_JS)
    subprocess.run(
        [hwf_bin(), "--state-dir", str(state), "validate", str(script), "--json"],
        env={**os.environ, "HWF_CACHE_DIR": cache},
        check=True,
        capture_output=True,
        timeout=600,
    )
    return {"state": state, "fixture": fixture, "cache": cache, "tmp": tmp_path}


def processes_naming(needle: str) -> list[str]:
    """Command lines of live processes that contain ``needle``."""
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline:
            found.append(cmdline.strip())
    return found
