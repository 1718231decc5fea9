#!/usr/bin/env python3
"""Record host/tests/agent-corpus: run the real agent CLIs (Claude Code,
Codex, Hermes Agent) against the loopback mock (agent_api_mock.py), one
case per CLI x scenario, and save exactly what each printed
(``<cli>-<case>.stdout`` / ``.stderr``) plus ``manifest.json`` with the argv,
the environment (no real secret: the keys are the mock's), the exit code,
the API requests the mock saw and what a correct answer extractor must get
from the output (``expect``).

Scrubbed, so a re-recording differs only where the CLIs are random (session
ids, uuids, timings): the mock's port becomes 127.0.0.1:47615 and the
temporary directory /tmp/agent-corpus.

    python3 tests/mocks/record_corpus.py            # every case
    python3 tests/mocks/record_corpus.py claude-ok_json codex-flaky

Needs scripts/install-agent-clis.sh (claude, codex) and .ci/run's Hermes
venv (target/py/hermes); a CLI that is missing is skipped with a note.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from agent_api_mock import MockServer  # noqa: E402

OUT = ROOT / "host" / "tests" / "agent-corpus"
STABLE_PORT = 47615
STABLE_TMP = "/tmp/agent-corpus"
CLAUDE = ROOT / "target" / "agent-clis" / "node_modules" / ".bin" / "claude"
CODEX = ROOT / "target" / "agent-clis" / "node_modules" / ".bin" / "codex"
HERMES = ROOT / "target" / "py" / "hermes" / "bin" / "hermes"
# The versions the committed corpus was recorded with (Claude Code 2.1.197;
# scripts/install-agent-clis.sh now pins 2.1.332 — re-recording updates these).
VERSIONS = {"claude": "2.1.197", "codex": "0.171.0", "hermes": "0.19.0"}

PROMPT = 'Review the change and answer with JSON {"verdict": "ok" | "bad"}. SCENARIO:'
OK = {"verdict": "ok"}
REFUSAL = "I'm sorry, but I can't help with that."


def usage(input=0, cache_creation=0, cache_read=0, output=0, reasoning=0):
    return {"input": input, "cache_creation": cache_creation, "cache_read": cache_read, "output": output, "reasoning": reasoning}


def err(code, contains=None, **extra):
    e = {"error": code}
    if contains is not None:
        e["contains"] = contains
    e.update(extra)
    return e


# (case, scenario, extra argv, extra env, expect, note)
CLAUDE_CASES = [
    ("ok_json", "ok_json", [], {}, {"answer": OK, "usage": usage(12, 0, 0, 8)}, None),
    ("prose_then_json", "prose_then_json", [], {}, {"answer": OK, "usage": usage(12, 0, 0, 8)},
     "result is the preamble and a ```json fence"),
    ("cache_usage", "cache_usage", [], {}, {"answer": OK, "usage": usage(4, 5123, 14200, 45)},
     "19372 tokens processed; total_cost_usd 0.04026375"),
    ("refuse", "refuse", [], {}, err("agent_refused", REFUSAL, usage=usage(12, 0, 0, 8)),
     "a prose refusal: exit 0, is_error false, subtype success"),
    ("refuse_stop", "refuse_field", [], {},
     err("agent_refused", "appears to violate our Usage Policy", usage=usage(12, 0, 0, 8)),
     "the API's stop_reason \"refusal\": Claude Code exits 1 with is_error true and its own text"),
    ("tool_calls", "tool_calls", [], {}, {"answer": OK, "usage": usage(24, 0, 0, 16)},
     "Claude Code runs the (unknown) tool itself and asks again: 2 requests, usage summed over both"),
    ("max_turns", "tool_calls", ["--max-turns", "1"], {},
     err("agent_failed", "Reached maximum number of turns (1)", usage=usage(12, 0, 0, 8)),
     "subtype error_max_turns has no result field; the text is in errors[]"),
    ("length", "length", [], {},
     err("agent_truncated", "exceeded the 64000 output token maximum", usage=usage(48, 0, 0, 32)),
     "stop_reason max_tokens: Claude Code asks 3 more times (4 requests), then is_error with its own text, exit 1"),
    ("reasoning_only", "reasoning_only", [], {}, err("agent_failed", usage=usage(24, 0, 0, 16)),
     "only a thinking block: Claude Code asks once more, then result \"\" with exit 0 (an empty answer)"),
    ("auth", "auth", [], {"CLAUDE_CODE_MAX_RETRIES": "2"}, err("agent_auth", "Invalid API key"),
     "401: with the default CLAUDE_CODE_MAX_RETRIES (10) Claude Code retries for minutes (7 requests in the first 60 s) before printing this; 2 retries here"),
    ("not_logged_in", None, [], {"ANTHROPIC_API_KEY": None}, err("agent_auth", "Not logged in"),
     "no ANTHROPIC_API_KEY, empty HOME: no request is made; exit 1, subtype success, is_error true"),
    ("flaky", "flaky", [], {}, {"answer": OK, "usage": usage(12, 0, 0, 8)},
     "the stream breaks after message_start; Claude Code retries without streaming and answers, but its top-level usage is all 0 — only modelUsage has the tokens (inputTokens 12, outputTokens 8)"),
    ("flaky500", "flaky500", [], {}, {"answer": OK, "usage": usage(12, 0, 0, 8)}, "a 500, retried after ~0.5 s"),
]

CODEX_CASES = [
    ("ok_json", "ok_json", [], {}, {"answer": OK, "usage": usage(120, 0, 0, 8)}, None),
    ("prose_then_json", "prose_then_json", [], {}, {"answer": OK, "usage": usage(120, 0, 0, 8)}, None),
    ("cache_usage", "cache_usage", [], {}, {"answer": OK, "usage": usage(4, 5123, 14200, 61, 16)},
     "turn.completed usage: input_tokens 19327 includes cached_input_tokens 14200 and cache_write_input_tokens 5123 (uncached 4); output_tokens 61 includes reasoning_output_tokens 16; 19388 processed"),
    ("refuse", "refuse", [], {}, err("agent_refused", REFUSAL, usage=usage(120, 0, 0, 8)), "a prose refusal as the agent_message; exit 0"),
    ("refuse_field", "refuse_field", [], {}, err("agent_failed", usage=usage(120, 0, 0, 8)),
     "a Responses `refusal` content part: codex prints no agent_message at all (the refusal text is lost), turn.completed, exit 0"),
    ("tool_calls", "tool_calls", [], {}, {"answer": OK, "usage": usage(240, 0, 0, 16)},
     "codex answers the unknown function call itself (stderr: ERROR codex_core::tools::router: error=unsupported call) and asks again"),
    ("length", "length", [], {}, err("agent_truncated", "max_output_tokens"),
     "response.incomplete: the truncated agent_message is printed, then an error event and turn.failed; exit 1"),
    ("reasoning_only", "reasoning_only", [], {}, err("agent_failed", usage=usage(120, 0, 0, 8)),
     "only a reasoning item: no agent_message, turn.completed, exit 0"),
    ("auth", "auth", [], {}, err("agent_auth", "401 Unauthorized"),
     "codex retries a 401 five times (Reconnecting... n/5 error events), then turn.failed; ~6 s"),
    ("flaky", "flaky", [], {}, {"answer": OK, "usage": usage(120, 0, 0, 8)},
     "the stream breaks after response.created: {\"type\":\"error\",\"message\":\"Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)\"}, then the answer"),
    ("flaky500", "flaky500", [], {}, {"answer": OK, "usage": usage(120, 0, 0, 8)},
     "a 500 first: codex retries the request itself (request_max_retries) and prints no error event at all"),
    ("fail", "fail", [], {}, err("agent_failed", "experiencing high demand"),
     "every request 500: codex shows its own text for a 5xx, not the server's (\"We’re currently experiencing high demand, which may cause temporary errors.\"), five Reconnecting error events, turn.failed; 30 requests (5 stream retries x 5 request attempts), ~24 s"),
    ("no_key", "ok_json", [], {"MOCK_API_KEY": None}, err("agent_auth", "Missing environment variable: `MOCK_API_KEY`"),
     "the provider's env_key is unset: error event and turn.failed, no request"),
    ("not_git", "ok_json", ["--no-skip-git-repo-check"], {}, err("agent_failed", "Not inside a trusted directory"),
     "without --skip-git-repo-check outside a git repo: nothing on stdout, the reason on stderr, exit 1"),
]

HERMES_CASES = [
    ("ok_json", "ok_json", [], {}, {"answer": OK, "usage": None},
     "stdout: the tirith warning line (ends in \\r\\n), then the answer; session_id on stderr; -Q prints no usage"),
    ("ok_json_no_warning", "ok_json", [], {"HWF_CORPUS_TIRITH": "off"}, {"answer": OK, "usage": None},
     "security.tirith_enabled: false — the answer alone"),
    ("prose_then_json", "prose_then_json", [], {}, {"answer": OK, "usage": None}, "warning, prose, then a ```json fence"),
    ("refuse", "refuse", [], {}, err("agent_refused", REFUSAL), "exit 0"),
    ("refuse_field", "refuse_field", [], {}, err("agent_failed", "No reply: the model returned empty content"),
     "chat completions message.refusal: Hermes asks 4 times, then prints its own \"⚠️ No reply\" line on stdout and exits 0 (the refusal text is lost)"),
    ("tool_calls", "tool_calls", [], {}, {"answer": OK, "usage": None},
     "Hermes answers the unknown tool call itself and asks again (2 requests)"),
    ("length", "length", [], {}, {"answer": '{"verdict": "o{"verdict": "o{"verdict": "o{"verdict": "o', "usage": None},
     "finish_reason length: Hermes asks for a continuation 3 times and prints the 4 pieces glued together, exit 0 — nothing says it was truncated; only the schema check can reject it"),
    ("reasoning_only", "reasoning_only", [], {}, err("agent_failed", "No reply: the model returned empty content"),
     "only reasoning_content: Hermes asks 6 times, prints a Reasoning box with the reasoning repeated, then \"⚠️ No reply …\", exit 0"),
    ("auth", "auth", [], {}, err("agent_auth", "HTTP 401"),
     "401: one request, \"HTTP 401: <the provider's message>\" on stdout, exit 1"),
    ("flaky", "flaky", [], {}, {"answer": OK, "usage": None}, "the stream breaks after the first chunk; Hermes retries once"),
]


# hwf's own `openai` backend reads the endpoint's body itself (no CLI): the
# mock's non-streaming chat completion bodies, written by hand in the mock.
OPENAI_CASES = [
    ("ok_json", {"answer": OK, "usage": usage(120, 0, 0, 8)}, None),
    ("prose_then_json", {"answer": OK, "usage": usage(120, 0, 0, 8)}, None),
    ("cache_usage", {"answer": OK, "usage": usage(5127, 0, 14200, 61, 16)},
     "prompt_tokens 19327 includes prompt_tokens_details.cached_tokens 14200; completion_tokens 61 includes completion_tokens_details.reasoning_tokens 16"),
    ("refuse", err("agent_refused", REFUSAL, usage=usage(120, 0, 0, 8)), "a prose refusal in content"),
    ("refuse_field", err("agent_refused", REFUSAL, usage=usage(120, 0, 0, 8)), "content null, message.refusal set"),
    ("tool_calls", err("agent_tool_call", "lookup_verdict", usage=usage(120, 0, 0, 8)), "content null, only tool_calls, finish_reason tool_calls"),
    ("length", err("agent_truncated", usage=usage(120, 0, 0, 8)), "finish_reason length, content truncated JSON"),
    ("reasoning_only", err("agent_failed", usage=usage(120, 0, 0, 8)), "content \"\", only reasoning_content"),
    ("auth", err("agent_auth", "Incorrect API key provided"), "HTTP 401 with OpenAI's error body"),
]


def record_openai(mock: MockServer) -> list[dict]:
    import urllib.error
    import urllib.request

    entries = []
    for name, expect, note in OPENAI_CASES:
        req = urllib.request.Request(
            mock.url + "/v1/chat/completions",
            data=json.dumps({"model": "mock-model", "messages": [{"role": "user", "content": PROMPT + name}]}).encode(),
            headers={"content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        body = json.loads(body)
        for k in ("id", "created"):
            body.pop(k, None)
        (OUT / f"openai-{name}.json").write_text(json.dumps(body, indent=2) + "\n")
        entry = {
            "file": f"openai-{name}",
            "cli": "openai",
            "scenario": name,
            "http_status": status,
            "recorded": False,
            "why": "no CLI: hwf's openai backend reads this chat completion body itself; written by hand in agent_api_mock.py (the CLIs run tool calls themselves, so agent_tool_call comes only from here)",
            "expect": expect,
        }
        if note:
            entry["note"] = note
        entries.append(entry)
    return entries


def scrub(text: str, port: int, tmp: str) -> str:
    return text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{STABLE_PORT}").replace(tmp, STABLE_TMP)


def codex_config(home: pathlib.Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model = "gpt-5.5"\n'
        'model_provider = "mock"\n\n'
        "[model_providers.mock]\n"
        'name = "mock"\n'
        f'base_url = "{url}/v1"\n'
        'env_key = "MOCK_API_KEY"\n'
        'wire_api = "responses"\n'
    )


def hermes_config(home: pathlib.Path, url: str, tirith: bool = True) -> None:
    home.mkdir(parents=True, exist_ok=True)
    security = (
        "security:\n  tirith_path: /nonexistent/tirith\n" if tirith else "security:\n  tirith_enabled: false\n"
    )
    (home / "config.yaml").write_text(
        "model:\n"
        "  default: mock-model\n"
        "  provider: custom\n"
        f"  base_url: {url}/v1\n"
        "  api_key: sk-mock-0000\n" + security
    )


def run_case(cli: str, case: tuple, mock: MockServer, tmp: pathlib.Path) -> dict | None:
    name, scenario, extra_argv, extra_env, expect, note = case
    work = tmp / f"{cli}-{name}"
    home = work / "home"
    home.mkdir(parents=True)
    cwd = work / "cwd"
    cwd.mkdir()
    prompt = PROMPT + (scenario or "ok_json")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    stdin = None
    if cli == "claude":
        exe = CLAUDE
        env.update(
            ANTHROPIC_BASE_URL=mock.url,
            ANTHROPIC_API_KEY="sk-ant-mock-0000",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        argv = [str(exe), "-p", "--output-format", "json", *extra_argv]
        stdin = prompt  # as hwf's recipe sends it
    elif cli == "codex":
        exe = CODEX
        codex_config(work / "codex-home", mock.url)
        env.update(CODEX_HOME=str(work / "codex-home"), MOCK_API_KEY="sk-mock-0000")
        flags = ["--skip-git-repo-check"]
        if "--no-skip-git-repo-check" in extra_argv:
            flags = []
        argv = [str(exe), "exec", "--json", *flags, prompt]
    else:
        exe = HERMES
        hermes_config(work / "hermes-home", mock.url, tirith=extra_env.get("HWF_CORPUS_TIRITH") != "off")
        extra_env = {k: v for k, v in extra_env.items() if k != "HWF_CORPUS_TIRITH"}
        env.update(HERMES_HOME=str(work / "hermes-home"))
        argv = [str(exe), "chat", "-Q", "-q", prompt]
    if not exe.exists():
        print(f"skip {cli}-{name}: {exe} is not installed", file=sys.stderr)
        return None
    for k, v in extra_env.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    mock.reset()
    started = time.monotonic()
    proc = subprocess.run(
        argv,
        input=(stdin or "").encode(),
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=300,
    )
    took = time.monotonic() - started
    tmp_s = str(tmp)
    base = f"{cli}-{name}"
    (OUT / f"{base}.stdout").write_bytes(scrub(proc.stdout.decode(), mock.port, tmp_s).encode())
    (OUT / f"{base}.stderr").write_bytes(scrub(proc.stderr.decode(), mock.port, tmp_s).encode())
    reqs = mock.api_requests()
    shown_argv = [cli] + [scrub(a, mock.port, tmp_s) for a in argv[1:]]
    shown_env = {k: scrub(v, mock.port, tmp_s) for k, v in env.items() if k not in ("PATH", "LANG")}
    entry = {
        "file": base,
        "cli": cli,
        "version": VERSIONS[cli],
        "scenario": scenario,
        "argv": shown_argv,
        "stdin": "prompt" if stdin else None,
        "env": shown_env,
        "exit_code": proc.returncode,
        "requests": len(reqs),
        "seconds": round(took, 1),
        "recorded": True,
        "expect": expect,
    }
    if note:
        entry["note"] = note
    print(f"{base}: exit {proc.returncode}, {len(reqs)} requests, {took:.1f} s", file=sys.stderr)
    return entry


def main(only: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"cases": []}
    kept = {c["file"]: c for c in old.get("cases", [])}
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="agent-corpus-"))
    try:
        with MockServer() as mock:
            for cli, cases in (("claude", CLAUDE_CASES), ("codex", CODEX_CASES), ("hermes", HERMES_CASES)):
                for case in cases:
                    base = f"{cli}-{case[0]}"
                    if only and base not in only:
                        continue
                    entry = run_case(cli, case, mock, tmp)
                    if entry:
                        kept[base] = entry
            if not only or any(o.startswith("openai") for o in only):
                for entry in record_openai(mock):
                    kept[entry["file"]] = entry
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    order = [f"{cli}-{c[0]}" for cli, cases in (("claude", CLAUDE_CASES), ("codex", CODEX_CASES), ("hermes", HERMES_CASES)) for c in cases]
    order += [f"openai-{c[0]}" for c in OPENAI_CASES]
    cases = [kept[b] for b in order if b in kept] + [c for b, c in kept.items() if b not in order]
    manifest = {
        "about": (
            "Real outputs of Claude Code 2.1.197 (claude -p --output-format json, prompt on stdin), "
            "Codex 0.171.0 (codex exec --json) and Hermes Agent 0.19.0 (hermes chat -Q -q) run against "
            "tests/mocks/agent_api_mock.py by tests/mocks/record_corpus.py. <file>.stdout / <file>.stderr are "
            "what the CLI printed (scrubbed: the mock's port is 127.0.0.1:47615, the temp dir /tmp/agent-corpus). "
            "expect is what a correct extractor gets from stdout/stderr/exit_code: the answer (a JSON value, "
            "or a string for a text answer) and usage in disjoint categories (input = uncached input; OpenAI-style "
            "input counts that include cached and cache-write input are split: input = input_tokens - cached - "
            "cache_write; output counts every output token and reasoning is the part of it spent reasoning "
            "(OpenAI's output_tokens includes reasoning_tokens, Anthropic's output_tokens includes thinking and "
            "reports no split), so tokens processed = input + cache_creation + cache_read + output; usage null = "
            "the output reports none), or "
            "an error code and a text the message must show (no contains: the output has no text to show). "
            "recorded false = written by hand, with why. cli openai: <file>.json is the HTTP body an "
            "OpenAI-compatible endpoint answered (http_status) to hwf's own openai backend."
        ),
        "cases": cases,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
