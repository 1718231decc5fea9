#!/usr/bin/env bash
# Build a Python wheel of hwf, "bin" style like ruff's and uv's: `pip
# install hwf-*.whl` puts the hwf binary (with its JS, Python and JSON
# runtimes embedded) on the environment's PATH, and installs the Hermes
# plugin (integrations/hermes, as the package `hwf_hermes`) with a
# `hermes_agent.plugins` entry point, so a Hermes user needs two commands:
#
#   pip install hwf-*.whl                  # into Hermes' environment
#   hermes plugins enable dynamic_workflows
#
#   scripts/build-wheel.sh                    # cargo build --release -p hwf, then the wheel
#   scripts/build-wheel.sh --bin PATH [--out DIR]   # package a binary already built (tests: the debug one)
#
# The wheel goes to ${CARGO_TARGET_DIR:-target}/wheels (or --out). Its
# platform tag is manylinux_2_<N>_<arch> for the newest glibc symbol the
# binary needs. No network, no build backend: the wheel is written by hand
# per the wheel spec (PEP 427, 491).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=""
out="${CARGO_TARGET_DIR:-target}/wheels"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: scripts/build-wheel.sh [--bin PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  cargo build --release -j"${JOBS:-2}" -p hwf
  bin="${CARGO_TARGET_DIR:-target}/release/hwf"
fi
[ -x "$bin" ] || { echo "build-wheel: no executable hwf at $bin" >&2; exit 1; }
mkdir -p "$out"
python3 - "$bin" "$out" <<'PY'
import base64, hashlib, os, pathlib, platform, re, subprocess, sys, zipfile

binary, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
version = subprocess.run([str(binary), "--version"], check=True, capture_output=True, text=True).stdout.split()[-1]
data = binary.read_bytes()
minors = [int(m.group(1)) for m in re.finditer(rb"GLIBC_2\.(\d+)", data)]
arch = platform.machine()
tag = f"manylinux_2_{max(minors)}_{arch}" if minors else f"linux_{arch}"
name = f"hwf-{version}-py3-none-{tag}.whl"
dist = f"hwf-{version}.dist-info"
root = pathlib.Path.cwd()
plugin = root / "integrations" / "hermes"
readme = "Durable, sandboxed AI-agent workflows as WebAssembly components: the hwf command line and its Hermes Agent plugin."
files = {
    f"hwf-{version}.data/scripts/hwf": (data, 0o755),
    "hwf_hermes/__init__.py": ((plugin / "__init__.py").read_bytes(), 0o644),
    "hwf_hermes/plugin.yaml": ((plugin / "plugin.yaml").read_bytes(), 0o644),
    f"{dist}/METADATA": (
        "Metadata-Version: 2.1\nName: hwf\n"
        f"Version: {version}\nSummary: {readme}\nLicense: Apache-2.0\n"
        "Requires-Python: >=3.9\n".encode(), 0o644),
    f"{dist}/WHEEL": (
        f"Wheel-Version: 1.0\nGenerator: hwf scripts/build-wheel.sh\nRoot-Is-Purelib: false\nTag: py3-none-{tag}\n".encode(), 0o644),
    f"{dist}/entry_points.txt": (b"[hermes_agent.plugins]\ndynamic_workflows = hwf_hermes\n", 0o644),
}
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join(f"{path},{digest(b)},{len(b)}\n" for path, (b, _) in files.items()) + f"{dist}/RECORD,,\n"
files[f"{dist}/RECORD"] = (record.encode(), 0o644)
target = out / name
tmp = out / (name + ".tmp")
with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=int(os.environ.get("HWF_WHEEL_LEVEL", "6"))) as z:
    for path, (b, mode) in files.items():
        info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, b)
tmp.replace(target)
print(target)
PY
