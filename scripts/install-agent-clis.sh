#!/usr/bin/env bash
# The real agent CLIs the real-agent tests drive (tests/python/test_real_agents.py),
# pinned, into target/agent-clis (node_modules/.bin/claude and codex):
#   Claude Code 2.1.332 (@anthropic-ai/claude-code: a wrapper whose postinstall
#     hard-links the native binary of @anthropic-ai/claude-code-linux-x64 over
#     bin/claude.exe) and Codex 0.171.0 (@openai/codex: a node launcher that
#     execs the musl binary of the optional dependency @openai/codex-linux-x64,
#     an alias of @openai/codex@0.171.0-linux-x64).
# Hermes Agent 0.19 comes from .ci/run's venv (target/py/hermes/bin/hermes).
#
# Idempotent: when both report the pinned versions it returns at once (~0.3 s);
# a fresh install takes ~14 s with an empty npm cache (660 MB: Claude Code's
# native binary ~235 MB, Codex's platform package ~424 MB). Prints no
# environment and reads no credentials.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE_VERSION=2.1.332
CODEX_VERSION=0.171.0
prefix=target/agent-clis
bin="$prefix/node_modules/.bin"

ok() {
  [ "$("$bin/claude" --version 2>/dev/null)" = "$CLAUDE_VERSION (Claude Code)" ] &&
    [ "$("$bin/codex" --version 2>/dev/null)" = "codex-cli $CODEX_VERSION" ]
}

if ok; then
  echo "agent CLIs present: claude $CLAUDE_VERSION, codex $CODEX_VERSION ($bin)"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-agent-clis: only linux x86_64 is pinned here ($(uname -sm))" >&2; exit 1 ;;
esac
command -v npm >/dev/null || { echo "install-agent-clis: npm is not installed" >&2; exit 1; }
mkdir -p "$prefix"
# --include=optional: the native binaries are optional dependencies, and an
# npm configured with omit=optional would leave only the launchers.
npm install --prefix "$prefix" --no-audit --no-fund --no-update-notifier \
  --include=optional --loglevel=error \
  "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" >/dev/null

# Claude Code's postinstall puts the native binary in place; an npm that
# does not run install scripts leaves a small stub. Run it ourselves then.
claude_pkg="$prefix/node_modules/@anthropic-ai/claude-code"
if [ "$(stat -c %s "$claude_pkg/bin/claude.exe")" -lt 1000000 ]; then
  (cd "$claude_pkg" && node install.cjs)
fi
codex_native="$prefix/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
[ -x "$codex_native" ] || { echo "install-agent-clis: codex's native binary is missing ($codex_native)" >&2; exit 1; }
if ! ok; then
  echo "install-agent-clis: installed, but the versions do not match:" >&2
  "$bin/claude" --version >&2 || true
  "$bin/codex" --version >&2 || true
  exit 1
fi
echo "agent CLIs installed: claude $CLAUDE_VERSION, codex $CODEX_VERSION ($bin)"
