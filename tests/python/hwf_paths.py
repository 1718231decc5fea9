"""Where the Python tests find what the build made, one rule for all of them.

- The build's target directory: ``CARGO_TARGET_DIR`` (relative to the
  repository root when relative), else ``<root>/target``.
- The binary under test: ``HWF_BIN``, else ``<target>/debug/hwf``.
- The guests the build made (tests/build.rs): ``HWF_HARNESS_DIR``, else
  ``<target>/harnesses`` of the binary under test (the directory above its
  profile directory), so a binary and its guests come from one build.
- The compile cache: ``HWF_CACHE_DIR``, else ``<target>/test-cache``.
- Tools installed beside the build (``scripts/install-agent-clis.sh`` puts
  the agent CLIs in ``target/agent-clis``): the named environment variable,
  else the first of ``<target>/<path>`` and ``<root>/target/<path>`` that
  exists (the second when neither does, so the message names it).
"""

from __future__ import annotations

import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def target_dir() -> pathlib.Path:
    """The build's target directory (``CARGO_TARGET_DIR`` or ``<root>/target``)."""
    configured = os.environ.get("CARGO_TARGET_DIR")
    if not configured:
        return ROOT / "target"
    path = pathlib.Path(configured)
    return path if path.is_absolute() else ROOT / path


def hwf_bin() -> str:
    """The hwf binary under test."""
    return os.environ.get("HWF_BIN") or str(target_dir() / "debug" / "hwf")


def harness_dir() -> pathlib.Path:
    """The directory of the built guest components (``<name>.wasm``)."""
    configured = os.environ.get("HWF_HARNESS_DIR")
    if configured:
        return pathlib.Path(configured)
    return pathlib.Path(hwf_bin()).resolve().parent.parent / "harnesses"


def cache_dir() -> str:
    """The shared compile cache for the runs the tests start."""
    return os.environ.get("HWF_CACHE_DIR") or str(target_dir() / "test-cache")


def installed_tool(env_var: str, *relative: str) -> str:
    """A tool installed beside the build (see the module docs)."""
    configured = os.environ.get(env_var)
    if configured:
        return configured
    candidates = [target_dir().joinpath(*relative), (ROOT / "target").joinpath(*relative)]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    return str(candidates[-1])
