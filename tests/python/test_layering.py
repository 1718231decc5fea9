"""The layering of the Rust code, checked from its own imports and its
dependency tree (issue 14's acceptance): no circle among the rooms of
host/src, host/src/broker and host/src/app; the sandbox imports neither the
broker nor the store; hwf-core has no wasmtime; the hwf-host library has no
CLI, MCP or progress-bar dependency."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRAPH = ROOT / "scripts" / "import-graph.py"


def graph(*args):
    return subprocess.run(
        [sys.executable, str(GRAPH), *args], cwd=ROOT, capture_output=True, text=True
    )


def test_host_src_has_no_circle_and_the_sandbox_knows_no_broker_or_store():
    r = graph("host/src", "--forbid", "vm:broker", "--forbid", "vm:store")
    assert r.returncode == 0, r.stdout + r.stderr
    vm = [l for l in r.stdout.splitlines() if l.startswith("vm ")]
    assert vm and vm[0].split("->")[1].strip() == "-", r.stdout


def test_broker_and_app_have_no_circle_inside():
    for folder, base in [("host/src/broker", "broker"), ("host/src/app", "app")]:
        r = graph(folder, "--base", base, "--quiet")
        assert r.returncode == 0, r.stdout + r.stderr


def test_the_checker_sees_a_circle(tmp_path):
    # The checker itself must be able to fail.
    (tmp_path / "a.rs").write_text("use crate::b::X;\n")
    (tmp_path / "b.rs").write_text("use crate::a::Y;\n")
    r = graph(str(tmp_path), "--quiet")
    assert r.returncode == 1 and "circle: a <-> b" in r.stdout, r.stdout


def tree(package):
    r = subprocess.run(
        ["cargo", "tree", "--offline", "-p", package, "--edges", "normal", "--prefix", "none"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    return {line.split(" ")[0] for line in r.stdout.splitlines() if line}


def test_core_has_no_wasmtime_and_the_library_no_binary_dependencies():
    core = tree("hwf-core")
    assert not {c for c in core if c.startswith("wasmtime")}, sorted(core)
    host = tree("hwf-host")
    assert "wasmtime" in host  # the tree is real
    assert not host & {"clap", "rmcp", "indicatif", "tracing-subscriber"}, sorted(host)
