"""host/tests/agent-corpus is consistent: every case's files exist, every
text an expectation says the error must show is in what the CLI printed,
every expected answer and token count is there to be found, and nothing in
it looks like a real credential (the mock's keys only). No CLI runs here:
tests/mocks/record_corpus.py records the corpus."""

from __future__ import annotations

import json
import re

from conftest import ROOT

CORPUS = ROOT / "host" / "tests" / "agent-corpus"
CODES = {"agent_auth", "agent_refused", "agent_truncated", "agent_tool_call", "agent_timeout", "agent_failed"}
USAGE_KEYS = ["input", "cache_creation", "cache_read", "output", "reasoning"]


def cases() -> list[dict]:
    return json.loads((CORPUS / "manifest.json").read_text())["cases"]


def printed(case: dict) -> str:
    if case["cli"] == "openai":
        return (CORPUS / f"{case['file']}.json").read_text()
    return (CORPUS / f"{case['file']}.stdout").read_text() + (CORPUS / f"{case['file']}.stderr").read_text()


def test_every_case_is_well_formed_and_its_files_exist():
    seen = set()
    for case in cases():
        assert case["file"] not in seen, case["file"]
        seen.add(case["file"])
        assert case["cli"] in ("claude", "codex", "hermes", "openai"), case
        if case["cli"] == "openai":
            assert (CORPUS / f"{case['file']}.json").is_file(), case
            assert case["recorded"] is False and case.get("why"), case
        else:
            assert (CORPUS / f"{case['file']}.stdout").is_file() and (CORPUS / f"{case['file']}.stderr").is_file(), case
            assert case["recorded"] is True and isinstance(case["exit_code"], int) and case["argv"][0] == case["cli"], case
        expect = case["expect"]
        if "error" in expect:
            assert expect["error"] in CODES, case
            assert set(expect) <= {"error", "contains", "usage"}, case
        else:
            assert set(expect) == {"answer", "usage"}, case
        if expect.get("usage") is not None:
            assert list(expect["usage"]) == USAGE_KEYS, case
            assert expect["usage"]["reasoning"] <= expect["usage"]["output"], case
    files = {p.name.rsplit(".", 1)[0] for p in CORPUS.iterdir() if p.name != "manifest.json"}
    assert files == seen, f"files without a case: {files - seen}; cases without files: {seen - files}"


def test_the_texts_answers_and_tokens_expected_are_in_the_output():
    for case in cases():
        out = printed(case)
        expect = case["expect"]
        if expect.get("contains"):
            assert expect["contains"] in out or json.dumps(expect["contains"])[1:-1] in out, case
        if "answer" in expect:
            answer = expect["answer"]
            if isinstance(answer, str):
                assert answer in out, case
            else:
                unescaped = out.replace('\\"', '"')
                assert '"verdict"' in unescaped and '"ok"' in unescaped, case
        usage = expect.get("usage")
        if usage:
            numbers = {int(n) for n in re.findall(r"\d+", out)}
            for key in ("cache_creation", "cache_read"):
                if usage[key]:
                    assert usage[key] in numbers, (key, case)
            if case["cli"] == "claude":
                assert usage["input"] in numbers and usage["output"] in numbers, case


def test_the_corpus_holds_no_credential_but_the_mocks():
    for p in CORPUS.iterdir():
        text = p.read_text()
        for key in re.findall(r"\bsk-[A-Za-z0-9_*-]{6,}", text):
            assert key in ("sk-mock-0000", "sk-ant-mock-0000", "sk-mock-***0000"), (p.name, key)
        assert "/root/" not in text and "/home/" not in text, p.name
