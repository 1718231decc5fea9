"""The real agent CLIs and an OpenAI-compatible endpoint, end to end
through the hwf binary (issue 26): Claude Code 2.1.332, Codex 0.171.0 and
Hermes Agent 0.19.0, unmodified, talk to loopback mocks of their APIs
(tests/mocks/agent_api_mock.py), configured as ``kind = "command"``
backends in an ``hwf.toml``; hwf's own ``kind = "openai"`` backend talks
to the same mock. A tiny JS workflow makes one agent call (and, for the
token budget, a second).

The CLIs come from scripts/install-agent-clis.sh (target/agent-clis) and
.ci/run's Hermes venv (target/py/hermes); ``HWF_CLAUDE``, ``HWF_CODEX`` and
``HWF_HERMES`` name others. A missing CLI skips its tests, or fails them
under HWF_REQUIRE_CLIENTS=1 (CI), as conftest's ``require`` does for
client libraries.

hwf runs with a made-up environment (no key of the developer's leaks into
a CLI, and "not logged in" really is): PATH, an empty HOME, the compile
cache, and what each case sets.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, hwf_bin
from hwf_paths import installed_tool

sys.path.insert(0, str(ROOT / "tests" / "mocks"))
from agent_api_mock import MockServer  # noqa: E402

REFUSAL = "I'm sorry, but I can't help with that."
TIRITH_WARNING = "⚠ tirith security scanner enabled but not available"

SCRIPT = """export const meta = { name: "real-agent", description: "one agent call, and a second when args.second is set" };
const schema = { type: "object", required: ["verdict"], properties: { verdict: { type: "string" } } };
const first = await agent(args.prompt, { label: "first", schema });
if (first === null) throw new Error("the agent call failed");
if (!args.second) return { first };
try {
  const second = await agent(args.second, { label: "second", schema });
  return { first, second };
} catch (e) {
  return { first, stopped: e.code ?? String(e) };
}
"""

PROMPT = 'Review the change and answer {"verdict": "ok"} or {"verdict": "bad"}. SCENARIO:'


# ---- the CLIs ------------------------------------------------------------------

def _cli(name: str, env_var: str, *relative: str) -> str:
    path = installed_tool(env_var, *relative)
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    msg = f"{name} is not installed ({path}; scripts/install-agent-clis.sh, .ci/run)"
    if os.environ.get("HWF_REQUIRE_CLIENTS") == "1":
        pytest.fail(msg)
    pytest.skip(msg)


def claude() -> str:
    return _cli("Claude Code", "HWF_CLAUDE", "agent-clis", "node_modules", ".bin", "claude")


def codex() -> str:
    return _cli("Codex", "HWF_CODEX", "agent-clis", "node_modules", ".bin", "codex")


def hermes() -> str:
    return _cli("Hermes Agent", "HWF_HERMES", "py", "hermes", "bin", "hermes")


# ---- fixtures and helpers --------------------------------------------------------

@pytest.fixture
def mock():
    with MockServer() as m:
        yield m


def toml_str(s: str) -> str:
    return json.dumps(s)


def command_backend(argv: list[str]) -> str:
    return (
        '[agents]\ndefault = "agent"\n\n'
        '[agents.backends.agent]\nkind = "command"\n'
        f"argv = [{', '.join(toml_str(a) for a in argv)}]\n"
        "timeout_ms = 120000\n"
    )


def openai_backend(mock: MockServer, api_key_env: str | None = "MOCK_OPENAI_KEY") -> str:
    key = f"api_key_env = {toml_str(api_key_env)}\n" if api_key_env else ""
    return (
        '[agents]\ndefault = "agent"\n\n'
        '[agents.backends.agent]\nkind = "openai"\n'
        f"base_url = {toml_str(mock.url + '/v1')}\n"
        'model = "mock-model"\n'
        f"{key}"
        "backoff_ms = 10\n"
        "timeout_ms = 30000\n"
    )


def base_env(env) -> dict[str, str]:
    home = env["tmp"] / "home"
    home.mkdir(exist_ok=True)
    node_bin = shutil.which("node")
    path = ["/usr/local/bin", "/usr/bin", "/bin"]
    if node_bin:
        path.insert(0, os.path.dirname(node_bin))
    return {
        "PATH": os.pathsep.join(path),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "HWF_CACHE_DIR": env["cache"],
    }


class Run:
    """One ``hwf run --json`` and the run's ``hwf status --json``."""

    def __init__(self, env, proc: subprocess.CompletedProcess):
        self.proc = proc
        try:
            self.envelope = json.loads(proc.stdout)
        except ValueError:
            raise AssertionError(f"hwf run printed no JSON (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr[-4000:]}")
        data = self.envelope.get("data") or {}
        self.run_id = data.get("run_id")
        self.status = None
        if self.run_id:
            st = subprocess.run(
                [hwf_bin(), "--state-dir", str(env["state"]), "status", self.run_id, "--json"],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, "HWF_CACHE_DIR": env["cache"]},
            )
            self.status = json.loads(st.stdout)

    def __repr__(self) -> str:
        return json.dumps({"exit": self.proc.returncode, "run": self.envelope, "status": self.status}, indent=1)[:8000] + (
            "\nstderr: " + self.proc.stderr[-2000:]
        )

    @property
    def data(self) -> dict:
        return self.envelope.get("data") or {}

    @property
    def calls(self) -> list[dict]:
        return (self.status or {}).get("data", {}).get("calls", [])

    def call(self, label: str) -> dict:
        found = [c for c in self.calls if c.get("label") == label]
        assert found, f"no call labelled {label}: {self!r}"
        return found[-1]


def run_workflow(env, config: str, prompt: str, extra_env: dict[str, str | None] | None = None,
                 second: str | None = None, flags: tuple[str, ...] = ()) -> Run:
    cfg = env["tmp"] / "hwf.toml"
    cfg.write_text(config)
    script = env["tmp"] / "real-agent.js"
    script.write_text(SCRIPT)
    run_env = base_env(env)
    for k, v in (extra_env or {}).items():
        if v is None:
            run_env.pop(k, None)
        else:
            run_env[k] = v
    args = {"prompt": prompt}
    if second:
        args["second"] = second
    proc = subprocess.run(
        [hwf_bin(), "--state-dir", str(env["state"]), "run", str(script), "--json", "--config", str(cfg),
         "--args", json.dumps(args), *flags],
        capture_output=True,
        text=True,
        timeout=300,
        env=run_env,
        cwd=env["tmp"],
    )
    return Run(env, proc)


def call_code(call: dict) -> str | None:
    """A failed call's error code: ``error.code`` (the contract), else the
    code its message starts with (``agent_auth: …``)."""
    err = call.get("error") or {}
    if err.get("code"):
        return err["code"]
    head = (err.get("message") or "").split(":", 1)[0].strip()
    return head or None


def run_codes(run: Run) -> set[str]:
    """Every error code the run shows: the envelope's, status' data.error's."""
    codes = set()
    for err in (run.envelope.get("error"), run.data.get("error"), (run.status or {}).get("data", {}).get("error")):
        if isinstance(err, dict):
            if err.get("code"):
                codes.add(err["code"])
            codes.add((err.get("message") or "").split(":", 1)[0].strip())
    return codes


def usage_of(call: dict) -> dict[str, int]:
    u = call.get("usage") or {}
    return {k: u.get(k, 0) for k in ("input", "cache_creation", "cache_read", "output", "reasoning")}


def assert_fails_at_once(run: Run, code: str, text: str) -> dict:
    """The run failed; its call failed with ``code`` after one attempt and
    its message shows ``text``."""
    assert run.proc.returncode == 1 and run.envelope.get("success") is False, run
    call = run.call("first")
    assert call.get("state") == "failed", run
    assert call_code(call) == code, run
    assert text in (call.get("error") or {}).get("message", ""), run
    assert call.get("attempts") == 1, run
    assert code in run_codes(run) or "harness_error" in run_codes(run), run
    return call


# ---- env for each CLI --------------------------------------------------------------

def claude_env(mock: MockServer, key: bool = True) -> dict[str, str | None]:
    e = {
        "ANTHROPIC_BASE_URL": mock.url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_API_KEY": "sk-ant-mock-0000" if key else None,
    }
    return e


def codex_env(env, mock: MockServer) -> dict[str, str]:
    home = env["tmp"] / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n'
        f'base_url = "{mock.url}/v1"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n'
    )
    return {"CODEX_HOME": str(home), "MOCK_API_KEY": "sk-mock-0000"}


def hermes_env(env, mock: MockServer) -> dict[str, str]:
    home = env["tmp"] / "hermes-home"
    home.mkdir(exist_ok=True)
    # An explicit tirith path that does not exist: Hermes prints its
    # "tirith … not available" warning on stdout (as on any machine
    # without tirith) and never tries to download it.
    (home / "config.yaml").write_text(
        "model:\n  default: mock-model\n  provider: custom\n"
        f"  base_url: {mock.url}/v1\n  api_key: sk-mock-0000\n"
        "security:\n  tirith_path: /nonexistent/tirith\n"
    )
    return {"HERMES_HOME": str(home)}


CLAUDE_ARGV = ["-p", "--output-format", "json"]


# ---- the CLIs ------------------------------------------------------------------------

def test_hermes_warning_line_before_the_json_answer_succeeds(env, mock):
    run = run_workflow(env, command_backend([hermes(), "chat", "-Q", "-q", "{prompt}"]), PROMPT + "ok_json",
                       hermes_env(env, mock))
    assert run.proc.returncode == 0 and run.data.get("result") == {"first": {"verdict": "ok"}}, run
    assert len(mock.api_requests("chat")) == 1, "one API request, no schema retries"
    assert run.call("first").get("attempts", 1) == 1, run


def test_hermes_prose_then_fenced_json_succeeds(env, mock):
    run = run_workflow(env, command_backend([hermes(), "chat", "-Q", "-q", "{prompt}"]), PROMPT + "prose_then_json",
                       hermes_env(env, mock))
    assert run.proc.returncode == 0 and run.data.get("result") == {"first": {"verdict": "ok"}}, run
    assert len(mock.api_requests("chat")) == 1


def test_codex_reconnect_error_then_answer_succeeds_with_its_tokens(env, mock):
    run = run_workflow(env, command_backend([codex(), "exec", "--json", "--skip-git-repo-check", "{prompt}"]),
                       PROMPT + "flaky", codex_env(env, mock))
    assert run.proc.returncode == 0 and run.data.get("result") == {"first": {"verdict": "ok"}}, run
    assert len(mock.api_requests("responses")) == 2, "the broken stream and the reconnect"
    # turn.completed: input_tokens 120 (cached included), output_tokens 8.
    assert run.data["counts"]["tokens"] == 128, run
    assert run.call("first").get("attempts", 1) == 1, run


def test_codex_cache_usage_split(env, mock):
    run = run_workflow(env, command_backend([codex(), "exec", "--json", "--skip-git-repo-check", "{prompt}"]),
                       PROMPT + "cache_usage", codex_env(env, mock))
    assert run.proc.returncode == 0 and run.data.get("result") == {"first": {"verdict": "ok"}}, run
    # input_tokens 19327 counts cached (14200) and written (5123) input;
    # output_tokens 61 counts its 16 reasoning tokens: 19388 processed.
    assert run.data["counts"]["tokens"] == 19388, run
    assert usage_of(run.call("first")) == {
        "input": 4, "cache_creation": 5123, "cache_read": 14200, "output": 61, "reasoning": 16,
    }, run


def test_claude_not_logged_in_fails_at_once_with_its_text(env, mock):
    run = run_workflow(env, command_backend([claude(), *CLAUDE_ARGV]), PROMPT + "ok_json", claude_env(mock, key=False))
    assert_fails_at_once(run, "agent_auth", "Not logged in")
    assert mock.api_requests() == [], "Claude Code makes no request without a key"


def test_claude_cache_usage_counts_every_token_and_stops_the_next_call(env, mock):
    run = run_workflow(env, command_backend([claude(), *CLAUDE_ARGV]), PROMPT + "cache_usage", claude_env(mock),
                       second=PROMPT + "ok_json", flags=("--max-tokens", "1000"))
    # A spent budget is an error a JavaScript script may catch (Claude Code's
    # rule): this one returns what it has, with the budget's code.
    assert run.proc.returncode == 0, run
    assert run.data["result"]["stopped"] == "token_budget", run
    assert run.data["result"]["first"], run
    assert len(mock.api_requests("anthropic")) == 1, "the second call never reached Claude Code"
    assert run.data["counts"]["tokens"] == 4 + 5123 + 14200 + 45, run
    first = run.call("first")
    assert usage_of(first) == {"input": 4, "cache_creation": 5123, "cache_read": 14200, "output": 45, "reasoning": 0}, run
    assert first.get("tokens", 19372) == 19372, run


def test_claude_prose_refusal_fails_at_once_and_status_shows_the_answer(env, mock):
    run = run_workflow(env, command_backend([claude(), *CLAUDE_ARGV]), PROMPT + "refuse", claude_env(mock))
    call = assert_fails_at_once(run, "agent_refused", REFUSAL)
    assert len(mock.api_requests("anthropic")) == 1, "no schema retries"
    rejected = call.get("rejected") or []
    assert rejected and REFUSAL in json.dumps(rejected[0].get("answer"), ensure_ascii=False), run


# ---- hwf's own OpenAI-compatible backend --------------------------------------------------------

@pytest.mark.parametrize(
    "scenario, code, text",
    [
        ("refuse_field", "agent_refused", REFUSAL),
        ("refuse", "agent_refused", REFUSAL),
        ("tool_calls", "agent_tool_call", "lookup_verdict"),
        ("length", "agent_truncated", ""),
        ("auth", "agent_auth", "Incorrect API key provided"),
    ],
)
def test_openai_endpoint_failures_end_after_one_request(env, mock, scenario, code, text):
    run = run_workflow(env, openai_backend(mock), PROMPT + scenario, {"MOCK_OPENAI_KEY": "sk-mock-0000"})
    assert_fails_at_once(run, code, text)
    assert len(mock.api_requests("chat")) == 1, f"{scenario}: no retries: {[r['scenario'] for r in mock.requests]}"


def test_openai_endpoint_answer_after_prose_succeeds(env, mock):
    run = run_workflow(env, openai_backend(mock), PROMPT + "prose_then_json", {"MOCK_OPENAI_KEY": "sk-mock-0000"})
    assert run.proc.returncode == 0 and run.data.get("result") == {"first": {"verdict": "ok"}}, run
    req = mock.api_requests("chat")
    assert len(req) == 1 and req[0]["headers"].get("authorization") == "Bearer sk-mock-0000"


def test_openai_unset_api_key_env_fails_before_any_request(env, mock):
    run = run_workflow(env, openai_backend(mock, api_key_env="MOCK_OPENAI_KEY_UNSET"), PROMPT + "ok_json",
                       {"MOCK_OPENAI_KEY_UNSET": None})
    assert run.proc.returncode != 0 and run.envelope.get("success") is False, run
    assert mock.requests == [], "no request reached the endpoint"
    text = json.dumps(run.envelope) + json.dumps(run.status)
    assert "MOCK_OPENAI_KEY_UNSET" in text, run
    codes = run_codes(run) | {call_code(c) for c in run.calls}
    assert "agent_auth" in codes, run
