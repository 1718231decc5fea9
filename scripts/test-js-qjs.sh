#!/bin/bash
# Check the QuickJS JavaScript runtime (target/js-qjs/js-runtime.wasm, from
# scripts/build-js-qjs.sh) with an hwf and its e2e test binary that are
# already built (the host is not rebuilt):
#
#   scripts/test-js-qjs.sh HWF E2E_BINARY [E2E_FILTER...]
#
# 1. harnesses/js-runtime-qjs/tests/recursion.js: every recursion shape
#    must end in a RangeError the script catches (no trap);
# 2. the e2e tests matching the filters (default: the JavaScript modules)
#    with HWF_RUNTIME_DIR pointing at the QuickJS runtime.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hwf=${1:?usage: $0 HWF E2E_BINARY [E2E_FILTER...]}
e2e=${2:?usage: $0 HWF E2E_BINARY [E2E_FILTER...]}
shift 2
runtime=$root/target/js-qjs
[ -f "$runtime/js-runtime.wasm" ] || { echo "no $runtime/js-runtime.wasm: run scripts/build-js-qjs.sh" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "recursion shapes:" >&2
HWF_RUNTIME_DIR=$runtime HWF_STATE_DIR=$tmp/state HWF_CACHE_DIR=$tmp/cache \
  "$hwf" run "$root/harnesses/js-runtime-qjs/tests/recursion.js" --json >"$tmp/out.json" || true
python3 - "$tmp/out.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
result = (doc.get("data") or {}).get("result")
if not isinstance(result, dict):
    sys.exit(f"the recursion probe failed: {json.dumps(doc.get('error') or doc)}")
bad = {k: v for k, v in result.items() if not v.startswith("RangeError")}
for k, v in sorted(result.items()):
    print(f"  {k:14} {v}", file=sys.stderr)
if len(result) < 17 or bad:
    sys.exit(f"not a RangeError: {bad}" if bad else "shapes missing")
PY

[ $# -gt 0 ] || set -- js:: js_semantics:: js_compute:: scripts:: conformance:: runtime_limits:: authoring:: idioms::
HWF_RUNTIME_DIR=$runtime "$e2e" --test-threads 2 "$@"
