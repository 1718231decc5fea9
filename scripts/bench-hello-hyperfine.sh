#!/usr/bin/env bash
# The cached `hwf run hello.wasm` and `hwf --version` as whole processes,
# measured with hyperfine (issue 32's 10 ms goal), interleaved: ROUNDS
# rounds, each a short hyperfine series of every command in turn, so all
# commands see the same minutes of machine load; the medians are over
# every run of every round.
#
#   scripts/bench-hello-hyperfine.sh HWF [OTHER_HWF…]   (env: ROUNDS=8 RUNS=10 HELLO=… OUT=…)
#
# Each binary gets a warm state dir on disk and one on tmpfs (/dev/shm),
# and the compile cache warm (the first, untimed run fills it). Prints one
# line per command: median, mean, min, max in ms, and the run count.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 HWF [OTHER_HWF…]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
hello=${HELLO:-$root/target/harnesses/hello.wasm}
fixture=$root/harnesses/hello/fixture.json
rounds=${ROUNDS:-8}
runs=${RUNS:-10}
out=${OUT:-$(mktemp -d)}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install -y hyperfine)" >&2; exit 1; }
[ -f "$hello" ] || { echo "$hello is not built (HELLO=…)" >&2; exit 1; }

# One compile cache for every binary (entries are keyed by the engine).
export HWF_CACHE_DIR=$out/cache
cmds=()
i=0
for hwf in "$@"; do
  disk=$out/state-disk-$i
  shm=/dev/shm/hwf-bench-hello-$$-$i
  mkdir -p "$disk" "$shm"
  for state in "$disk" "$shm"; do
    "$hwf" run "$hello" --args '{"name":"world"}' --agents "$fixture" --state-dir "$state" >/dev/null 2>&1
  done
  cmds+=("$hwf run $hello --args '{\"name\":\"world\"}' --agents $fixture --state-dir $disk")
  cmds+=("$hwf run $hello --args '{\"name\":\"world\"}' --agents $fixture --state-dir $shm")
  cmds+=("$hwf --version")
  i=$((i + 1))
done
trap 'rm -rf /dev/shm/hwf-bench-hello-$$-*' EXIT

for r in $(seq 1 "$rounds"); do
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$out/round-$r.json" "${cmds[@]}" >/dev/null
done

python3 - "$out" "$rounds" <<'EOF'
import json, pathlib, statistics, sys
out, rounds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
times = {}
for r in range(1, rounds + 1):
    for res in json.loads((out / f"round-{r}.json").read_text())["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
for cmd, ts in times.items():
    ms = [t * 1000 for t in ts]
    binary = cmd.split()[0]
    what = "run hello, state on tmpfs" if "/dev/shm/" in cmd else "run hello, state on disk" if " run " in cmd else "--version"
    print(f"median {statistics.median(ms):6.2f} ms  mean {statistics.mean(ms):6.2f}  min {min(ms):6.2f}  max {max(ms):6.2f}  n={len(ms):3}  {binary}  {what}")
EOF
