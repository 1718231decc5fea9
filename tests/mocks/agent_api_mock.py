#!/usr/bin/env python3
"""Loopback mocks of the model APIs the real agent CLIs speak, faithful
enough that the unmodified CLIs run a one-shot prompt to completion:

- Anthropic Messages (``POST /v1/messages``, streaming SSE or not, as
  Claude Code 2.1.197 and 2.1.332 send it: ``/v1/messages?beta=true``), its
  ``/v1/messages/count_tokens``, and the ``HEAD /`` reachability probe
  Claude Code makes first;
- OpenAI Responses (``POST /v1/responses``, SSE) for ``codex exec``;
- OpenAI Chat Completions (``POST /v1/chat/completions``, streaming or not)
  for Hermes Agent and hwf's own ``openai`` backend, and ``GET /v1/models``
  (Hermes asks it for the context length). Hermes' other probes
  (``/api/tags``, ``/v1/props``, ``/version`` …) get a 404, as from a plain
  OpenAI-compatible server.

Scenarios, chosen per request by the marker ``SCENARIO:<name>`` anywhere in
the request body (the last one wins: the prompt), else by the server's
default (``--scenario``, ``MockServer(scenario=…)`` or
``POST /_mock/scenario {"scenario": …}``):

``ok_json``          answers ``{"verdict":"ok"}``
``prose_then_json``  a chatty preamble, then the answer in a fenced block
``cache_usage``      Anthropic usage input 4, cache creation 5123, cache read
                     14200, output 45; Responses input 19327 of which 14200
                     cached and 5123 cache writes, output 61 of which 16
                     reasoning; chat completions the same without cache
                     writes
``refuse``           a prose refusal (``I'm sorry, but I can't help with that.``)
``refuse_field``     the refusal in the API's own refusal slot (chat
                     completions ``message.refusal``, Responses ``refusal``
                     content part, Anthropic ``stop_reason: "refusal"``)
``tool_calls``       only a tool call (chat completions ``tool_calls``,
                     Responses ``function_call``, Anthropic ``tool_use``);
                     once the conversation carries the tool's result the
                     answer is ``{"verdict":"ok"}`` (agents that run tools
                     themselves finish)
``length``           truncated JSON with ``finish_reason: "length"`` /
                     ``stop_reason: "max_tokens"`` / ``response.incomplete``
``reasoning_only``   only reasoning (``reasoning_content``; Anthropic a
                     thinking block; Responses a reasoning item)
``auth``             401 with the provider's real error body
``flaky``            the first request of a (api, scenario) pair fails
                     mid-stream (streaming) or with a 500 (not streaming);
                     the next one answers ``{"verdict":"ok"}``
``flaky500``         the first request gets a 500, the next one answers
``fail``             every request gets a 500 (a CLI gives up)
``call_tools``       Anthropic only: the model calls the tools the prompt
                     names, in order, one per turn — each as a marker
                     ``CALL_TOOL:<base64url of {"name": …, "input": …}>``
                     (the agent's full tool name, ``mcp__hwf__workflow``
                     for an MCP tool); ``"$RUN_ID"`` anywhere in an input
                     is replaced by the last ``run_id`` a tool result
                     carried. Once every tool has answered, the answer is
                     ``TOOL_RESULTS:`` and the JSON list of the tool
                     results' texts, so the agent's final output shows
                     what the tools said. Drives an agent CLI as an MCP
                     client.

Requests are recorded (method, path, headers with lower-case names, parsed
body, api, scenario):
``MockServer.requests`` in-process, ``GET /_mock/requests`` over HTTP,
``--log FILE`` as JSON lines. ``POST /_mock/reset`` forgets them and the
flaky counters.

Standalone: ``python3 agent_api_mock.py [--port 0] [--scenario ok_json]
[--log FILE]`` prints ``{"port": N, "url": "http://127.0.0.1:N"}`` on one
line and serves until killed. Stdlib only.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import re
import sys
import threading
import time
import uuid
import zlib

SCENARIOS = (
    "ok_json",
    "prose_then_json",
    "cache_usage",
    "refuse",
    "refuse_field",
    "tool_calls",
    "length",
    "reasoning_only",
    "auth",
    "flaky",
    "flaky500",
    "fail",
    "call_tools",
)

ANSWER = '{"verdict":"ok"}'
PROSE_THEN_JSON = (
    "Sure! I looked at the request carefully and here is my verdict. "
    "Let me know if you need anything else.\n\n```json\n{\"verdict\": \"ok\"}\n```"
)
REFUSAL = "I'm sorry, but I can't help with that."
TRUNCATED = '{"verdict": "o'
REASONING = "The user wants a verdict. I should think about whether it is ok before answering."
MARKER = re.compile(rb"SCENARIO:([a-z_0-9]+)")
CALL_TOOL = re.compile(r"CALL_TOOL:([A-Za-z0-9_=-]+)")
RUN_ID = re.compile(r'"run_id"\s*:\s*"([^"]+)"')

# Usage per scenario, as each API reports it.
ANTHROPIC_USAGE = {"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 8}
ANTHROPIC_CACHE_USAGE = {
    "input_tokens": 4,
    "cache_creation_input_tokens": 5123,
    "cache_read_input_tokens": 14200,
    "output_tokens": 45,
}
OPENAI_USAGE = {"input": 120, "cached": 0, "cache_write": 0, "output": 8, "reasoning": 0}
# input and output include their details (cached, cache_write; reasoning),
# as OpenAI counts them: uncached 4, written 5123, read 14200, output 45
# plus 16 reasoning — the Anthropic case's numbers. Chat completions report
# no cache writes (input 5127 uncached there).
OPENAI_CACHE_USAGE = {"input": 19327, "cached": 14200, "cache_write": 5123, "output": 61, "reasoning": 16}


def call_tool_marker(name: str, tool_input: dict) -> str:
    """The prompt marker that makes the ``call_tools`` scenario call
    ``name`` with ``tool_input``."""
    import base64

    raw = json.dumps({"name": name, "input": tool_input}).encode()
    return "CALL_TOOL:" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _now() -> int:
    return int(time.time())


def _id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


class MockServer:
    """The mock, in a thread. ``start()`` returns the port."""

    def __init__(self, scenario: str = "ok_json", host: str = "127.0.0.1", port: int = 0, log: str | None = None):
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}")
        self.scenario = scenario
        self.requests: list[dict] = []
        self.log = log
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], int] = {}
        handler = type("Handler", (_Handler,), {"mock": self})
        self.httpd = http.server.ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> int:
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self.port

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "MockServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._seen.clear()

    def api_requests(self, api: str | None = None) -> list[dict]:
        """Recorded requests to the model endpoints (not probes), of one API
        (``anthropic``, ``responses``, ``chat``) or all."""
        with self._lock:
            return [r for r in self.requests if r["api"] and (api is None or r["api"] == api)]

    def _record(self, entry: dict) -> int:
        """Record a request; returns how many model requests of the same
        (api, scenario) came before it."""
        with self._lock:
            self.requests.append(entry)
            if self.log:
                with open(self.log, "a") as f:
                    f.write(json.dumps(entry) + "\n")
            key = (entry["api"] or "", entry["scenario"])
            n = self._seen.get(key, 0)
            if entry["api"]:
                self._seen[key] = n + 1
            return n


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mock: MockServer

    def log_message(self, *args) -> None:  # quiet
        pass

    # --- plumbing -------------------------------------------------------

    def _body(self) -> bytes:
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        enc = (self.headers.get("content-encoding") or "").lower()
        if enc == "gzip":
            raw = gzip.decompress(raw)
        elif enc == "deflate":
            raw = zlib.decompress(raw)
        return raw

    def _json(self, status: int, obj, headers: dict | None = None) -> None:
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data, event: str | None = None) -> None:
        chunk = b""
        if event:
            chunk += f"event: {event}\n".encode()
        payload = data if isinstance(data, str) else json.dumps(data)
        chunk += f"data: {payload}\n\n".encode()
        self.wfile.write(chunk)
        self.wfile.flush()

    def _drop(self) -> None:
        """End the connection mid-stream."""
        self.wfile.flush()
        self.close_connection = True

    def _handle(self) -> None:
        raw = self._body() if self.command in ("POST", "PUT") else b""
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.startswith("/_mock/"):
            return self._control(path, raw)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        api = None
        if self.command == "POST":
            if path.endswith("/v1/messages"):
                api = "anthropic"
            elif path.endswith("/v1/messages/count_tokens"):
                api = None
            elif path.endswith("/responses"):
                api = "responses"
            elif path.endswith("/chat/completions"):
                api = "chat"
        found = MARKER.findall(raw)
        scenario = found[-1].decode() if found else self.mock.scenario
        if scenario not in SCENARIOS:
            scenario = self.mock.scenario
        entry = {
            "time": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
            "api": api,
            "scenario": scenario,
        }
        n = self.mock._record(entry)
        if self.command == "HEAD":
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if self.command == "GET" and path.endswith("/v1/models"):
            return self._json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "mock", "context_length": 200000}
                        for m in ("mock-model", "gpt-5.5", "claude-opus-4-8")
                    ],
                },
            )
        if self.command == "POST" and path.endswith("/v1/messages/count_tokens"):
            return self._json(200, {"input_tokens": 42})
        if api == "anthropic":
            return self._anthropic(body or {}, scenario, n)
        if api == "responses":
            return self._responses(body or {}, scenario, n)
        if api == "chat":
            return self._chat(body or {}, scenario, n)
        self._json(404, {"error": {"message": f"no route for {self.command} {path}", "type": "not_found"}})

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _handle

    def _control(self, path: str, raw: bytes) -> None:
        if path == "/_mock/requests":
            with self.mock._lock:
                return self._json(200, self.mock.requests)
        if path == "/_mock/reset":
            self.mock.reset()
            return self._json(200, {"ok": True})
        if path == "/_mock/scenario":
            want = json.loads(raw or b"{}").get("scenario")
            if want not in SCENARIOS:
                return self._json(400, {"error": f"unknown scenario {want!r}", "scenarios": SCENARIOS})
            self.mock.scenario = want
            return self._json(200, {"scenario": want})
        self._json(404, {"error": "unknown control"})

    # --- shared scenario logic -------------------------------------------

    @staticmethod
    def _has_tool_result(body: dict) -> bool:
        for m in body.get("messages") or []:
            if m.get("role") == "tool":
                return True
            content = m.get("content")
            if isinstance(content, list) and any(
                isinstance(c, dict) and c.get("type") == "tool_result" for c in content
            ):
                return True
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                return True
        return False

    @staticmethod
    def _user_text(body: dict) -> str:
        """The text of the conversation's user turns (not tool results)."""
        out = []
        for m in body.get("messages") or []:
            if m.get("role") != "user":
                continue
            content = m.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
        return "\n".join(out)

    @staticmethod
    def _tool_results(body: dict) -> list[str]:
        """The texts of the Anthropic tool results so far, in order."""
        out = []
        for m in body.get("messages") or []:
            content = m.get("content")
            if not isinstance(content, list):
                continue
            for c in content:
                if not (isinstance(c, dict) and c.get("type") == "tool_result"):
                    continue
                inner = c.get("content")
                if isinstance(inner, list):
                    inner = "".join(x.get("text", "") for x in inner if isinstance(x, dict))
                out.append(inner if isinstance(inner, str) else json.dumps(inner))
        return out

    def _next_tool_call(self, body: dict) -> dict | None:
        """The ``call_tools`` scenario's next tool_use block, or None when
        every named tool has answered."""
        import base64

        wanted = [
            json.loads(base64.urlsafe_b64decode(m.encode() + b"=" * (-len(m) % 4)))
            for m in CALL_TOOL.findall(self._user_text(body))
        ]
        results = self._tool_results(body)
        if len(results) >= len(wanted):
            return None
        call = wanted[len(results)]
        run_ids = [r for text in results for r in RUN_ID.findall(text)]
        raw = json.dumps(call.get("input") or {})
        if run_ids:
            raw = raw.replace("$RUN_ID", run_ids[-1])
        return {"type": "tool_use", "id": _id("toolu_01"), "name": call["name"], "input": json.loads(raw)}

    def _effective(self, body: dict, scenario: str, n: int) -> str:
        """The scenario this request plays: flaky ones answer after their
        first request, tool calls answer once the tool's result is back."""
        if scenario in ("flaky", "flaky500") and n > 0:
            return "ok_json"
        if scenario == "tool_calls" and self._has_tool_result(body):
            return "ok_json"
        return scenario

    @staticmethod
    def _text(scenario: str) -> str:
        return {
            "prose_then_json": PROSE_THEN_JSON,
            "refuse": REFUSAL,
            "length": TRUNCATED,
        }.get(scenario, ANSWER)

    # --- Anthropic Messages ---------------------------------------------

    def _anthropic_error(self, status: int, kind: str, message: str) -> None:
        self._json(
            status,
            {"type": "error", "error": {"type": kind, "message": message}, "request_id": _id("req_011")},
            {"request-id": _id("req_011")},
        )

    def _anthropic(self, body: dict, scenario: str, n: int) -> None:
        scenario = self._effective(body, scenario, n)
        stream = bool(body.get("stream"))
        if scenario == "auth":
            return self._anthropic_error(401, "authentication_error", "invalid x-api-key")
        if scenario in ("fail", "flaky500") or (scenario == "flaky" and not stream):
            return self._anthropic_error(500, "api_error", "Internal server error")
        model = body.get("model") or "claude-opus-4-8"
        usage = dict(ANTHROPIC_CACHE_USAGE if scenario == "cache_usage" else ANTHROPIC_USAGE)
        stop = "end_turn"
        if scenario == "call_tools":
            call = self._next_tool_call(body)
            if call is not None:
                blocks = [call]
                stop = "tool_use"
            else:
                blocks = [{"type": "text", "text": "TOOL_RESULTS:" + json.dumps(self._tool_results(body))}]
        elif scenario == "tool_calls":
            blocks = [
                {
                    "type": "tool_use",
                    "id": _id("toolu_01"),
                    "name": "lookup_verdict",
                    "input": {"subject": "the request"},
                }
            ]
            stop = "tool_use"
        elif scenario == "reasoning_only":
            blocks = [{"type": "thinking", "thinking": REASONING, "signature": "c2lnbmF0dXJl"}]
        elif scenario == "refuse_field":
            blocks = [{"type": "text", "text": ""}]
            stop = "refusal"
        else:
            blocks = [{"type": "text", "text": self._text(scenario)}]
            if scenario == "length":
                stop = "max_tokens"
        msg_id = _id("msg_01")
        if not stream:
            return self._json(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
        self._sse_start()
        start_usage = dict(usage, output_tokens=1)
        self._sse(
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
            "message_start",
        )
        if scenario == "flaky":  # first request: the stream breaks
            self._sse({"type": "ping"}, "ping")
            return self._drop()
        self._sse({"type": "ping"}, "ping")
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                self._sse({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}, "content_block_start")
                text = block["text"]
                for part in [text[j : j + 24] for j in range(0, len(text), 24)]:
                    self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": part}}, "content_block_delta")
            elif block["type"] == "thinking":
                self._sse({"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}, "content_block_start")
                self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}}, "content_block_delta")
                self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": block["signature"]}}, "content_block_delta")
            elif block["type"] == "tool_use":
                self._sse(
                    {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}},
                    "content_block_start",
                )
                self._sse(
                    {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                    "content_block_delta",
                )
            self._sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        self._sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {
                    "input_tokens": usage["input_tokens"],
                    "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
                    "cache_read_input_tokens": usage["cache_read_input_tokens"],
                    "output_tokens": usage["output_tokens"],
                },
            },
            "message_delta",
        )
        self._sse({"type": "message_stop"}, "message_stop")

    # --- OpenAI shared ---------------------------------------------------

    def _openai_error(self, status: int, message: str, kind: str, code) -> None:
        self._json(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})

    def _openai_auth(self) -> None:
        self._openai_error(
            401,
            "Incorrect API key provided: sk-mock-***0000. You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        )

    @staticmethod
    def _openai_usage(scenario: str) -> dict:
        return OPENAI_CACHE_USAGE if scenario == "cache_usage" else OPENAI_USAGE

    # --- OpenAI Responses (codex) ----------------------------------------

    def _responses(self, body: dict, scenario: str, n: int) -> None:
        scenario = self._effective(body, scenario, n)
        if scenario == "auth":
            return self._openai_auth()
        if scenario in ("fail", "flaky500"):
            return self._openai_error(500, "The server had an error while processing your request. Sorry about that!", "server_error", None)
        model = body.get("model") or "gpt-5.5"
        u = self._openai_usage(scenario)
        resp_id = _id("resp_")
        seq = iter(range(1, 1000))
        base = {
            "id": resp_id,
            "object": "response",
            "created_at": _now(),
            "model": model,
            "output": [],
            "usage": None,
            "error": None,
            "incomplete_details": None,
        }
        self._sse_start()
        self._sse({"type": "response.created", "sequence_number": 0, "response": dict(base, status="in_progress")}, "response.created")
        if scenario == "flaky":
            return self._drop()
        self._sse({"type": "response.in_progress", "sequence_number": next(seq), "response": dict(base, status="in_progress")}, "response.in_progress")
        items = []
        if scenario == "reasoning_only" or scenario == "cache_usage":
            items.append(
                {
                    "id": _id("rs_"),
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": REASONING}],
                    "encrypted_content": "ZW5jcnlwdGVk",
                }
            )
        if scenario == "tool_calls":
            items.append(
                {
                    "id": _id("fc_"),
                    "type": "function_call",
                    "status": "completed",
                    "call_id": _id("call_"),
                    "name": "lookup_verdict",
                    "arguments": json.dumps({"subject": "the request"}),
                }
            )
        elif scenario == "refuse_field":
            items.append(
                {
                    "id": _id("msg_"),
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": REFUSAL}],
                }
            )
        elif scenario != "reasoning_only":
            items.append(
                {
                    "id": _id("msg_"),
                    "type": "message",
                    "status": "incomplete" if scenario == "length" else "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": self._text(scenario), "annotations": []}],
                }
            )
        for i, item in enumerate(items):
            added = dict(item)
            if item["type"] == "message":
                added = dict(item, status="in_progress", content=[])
            self._sse({"type": "response.output_item.added", "sequence_number": next(seq), "output_index": i, "item": added}, "response.output_item.added")
            if item["type"] == "message" and item["content"][0]["type"] == "output_text":
                text = item["content"][0]["text"]
                part = {"type": "output_text", "text": "", "annotations": []}
                self._sse({"type": "response.content_part.added", "sequence_number": next(seq), "item_id": item["id"], "output_index": i, "content_index": 0, "part": part}, "response.content_part.added")
                for piece in [text[j : j + 24] for j in range(0, len(text), 24)]:
                    self._sse({"type": "response.output_text.delta", "sequence_number": next(seq), "item_id": item["id"], "output_index": i, "content_index": 0, "delta": piece}, "response.output_text.delta")
                self._sse({"type": "response.output_text.done", "sequence_number": next(seq), "item_id": item["id"], "output_index": i, "content_index": 0, "text": text}, "response.output_text.done")
                self._sse({"type": "response.content_part.done", "sequence_number": next(seq), "item_id": item["id"], "output_index": i, "content_index": 0, "part": dict(part, text=text)}, "response.content_part.done")
            self._sse({"type": "response.output_item.done", "sequence_number": next(seq), "output_index": i, "item": item}, "response.output_item.done")
        usage = {
            "input_tokens": u["input"],
            "input_tokens_details": {"cached_tokens": u["cached"], "cache_write_tokens": u["cache_write"]},
            "output_tokens": u["output"],
            "output_tokens_details": {"reasoning_tokens": u["reasoning"]},
            "total_tokens": u["input"] + u["output"],
        }
        if scenario == "length":
            final = dict(base, status="incomplete", output=items, usage=usage, incomplete_details={"reason": "max_output_tokens"})
            return self._sse({"type": "response.incomplete", "sequence_number": next(seq), "response": final}, "response.incomplete")
        final = dict(base, status="completed", output=items, usage=usage)
        self._sse({"type": "response.completed", "sequence_number": next(seq), "response": final}, "response.completed")

    # --- OpenAI Chat Completions -----------------------------------------

    def _chat(self, body: dict, scenario: str, n: int) -> None:
        scenario = self._effective(body, scenario, n)
        stream = bool(body.get("stream"))
        if scenario == "auth":
            return self._openai_auth()
        if scenario in ("fail", "flaky500") or (scenario == "flaky" and not stream):
            return self._openai_error(500, "The server had an error while processing your request. Sorry about that!", "server_error", None)
        model = body.get("model") or "mock-model"
        u = self._openai_usage(scenario)
        usage = {
            "prompt_tokens": u["input"],
            "completion_tokens": u["output"],
            "total_tokens": u["input"] + u["output"],
            "prompt_tokens_details": {"cached_tokens": u["cached"]},
            "completion_tokens_details": {"reasoning_tokens": u["reasoning"]},
        }
        message: dict = {"role": "assistant", "content": None}
        finish = "stop"
        if scenario == "tool_calls":
            message["tool_calls"] = [
                {
                    "id": _id("call_"),
                    "type": "function",
                    "function": {"name": "lookup_verdict", "arguments": json.dumps({"subject": "the request"})},
                }
            ]
            finish = "tool_calls"
        elif scenario == "refuse_field":
            message["refusal"] = REFUSAL
        elif scenario == "reasoning_only":
            message["content"] = ""
            message["reasoning_content"] = REASONING
        else:
            message["content"] = self._text(scenario)
            if scenario == "length":
                finish = "length"
        cid = _id("chatcmpl-")
        created = _now()
        if not stream:
            return self._json(
                200,
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                    "usage": usage,
                },
            )
        self._sse_start()

        def chunk(delta: dict, finish_reason=None) -> None:
            self._sse(
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
                }
            )

        chunk({"role": "assistant", "content": ""})
        if scenario == "flaky":  # first request: the stream breaks
            return self._drop()
        if message.get("reasoning_content"):
            chunk({"reasoning_content": message["reasoning_content"]})
        if message.get("refusal"):
            chunk({"refusal": message["refusal"]})
        if message.get("content"):
            text = message["content"]
            for piece in [text[j : j + 24] for j in range(0, len(text), 24)]:
                chunk({"content": piece})
        for i, call in enumerate(message.get("tool_calls") or []):
            chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}]})
            chunk({"tool_calls": [{"index": i, "function": {"arguments": call["function"]["arguments"]}}]})
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            self._sse({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [], "usage": usage})
        self._sse("[DONE]")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--scenario", default="ok_json", choices=SCENARIOS)
    p.add_argument("--log", help="append every request as a JSON line")
    a = p.parse_args(argv)
    mock = MockServer(scenario=a.scenario, port=a.port, log=a.log)
    print(json.dumps({"port": mock.port, "url": mock.url}), flush=True)
    try:
        mock.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
