"""A small OpenAI-compatible chat-completions server for the tests: real HTTP on 127.0.0.1, no internet.

Answers are deterministic. The pair is recognised by the first ``T<t>-D<d>`` in the prompt (the
fixtures' document titles); its label is ``model_labels[model][key]``, else ``labels[key]``, else
``label_for(key)`` (``default_label`` unless a test sets another). A script
per key injects trouble on successive requests: ``429`` and ``500`` (status codes), ``"timeout"``
(answer after ``slow_seconds``, longer than the client waits), ``"garbage"`` (a 200 whose text
has no score), ``"malformed"`` (a 200 that is not a chat completion), ``("text", "...")`` (any
answer text). With ``logprobs`` in the request the answer carries log-probabilities from
``probabilities[key]`` (default 0.9 on the label). ``required_key`` makes a missing or wrong
bearer token a 401; ``models`` makes an unknown model a 404. Every request is recorded.
"""
from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKER = re.compile(r"T\d+-D\d+")


def default_label(key: str) -> int:
    """T<t>-D<d> → (t + d) mod 4: every grade of a 0–3 scale appears."""
    t, d = (int(x) for x in re.findall(r"\d+", key))
    return (t + d) % 4


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.labels: dict[str, int] = {}
        self.model_labels: dict[str, dict[str, int]] = {}  # model name → {key: label}, for a second model
        self.label_for = default_label
        self.scripts: dict[str, list] = defaultdict(list)
        self.probabilities: dict[str, dict[int, float]] = {}
        self.required_key: str | None = None
        self.models: set[str] | None = None
        self.slow_seconds = 1.5
        # Every answer waits this long (seconds, or a function returning them): a worker can be stopped
        # in the middle of a run, and the benchmark draws heavy-tailed latencies.
        self.delay_seconds = 0.0
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def calls_for(self, key: str) -> int:
        with self.lock:
            return sum(1 for r in self.requests if r["key"] == key)

    def answer(self, key: str, want_logprobs: bool, model: str = "") -> dict:
        label = self.labels.get(key, self.label_for(key) if key else 0)
        label = self.model_labels.get(model, {}).get(key, label)
        body = {"id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": f"##final score: {label}"}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}}
        if want_logprobs:
            probs = self.probabilities.get(key) or {label: 0.9, (label + 1) % 4: 0.1}
            top = [{"token": str(g), "logprob": math.log(p)} for g, p in sorted(probs.items(), key=lambda x: -x[1])]
            body["choices"][0]["logprobs"] = {"content": [
                {"token": "##final score: ", "logprob": 0.0, "top_logprobs": []},
                {"token": str(label), "logprob": math.log(probs.get(label, 1e-9)), "top_logprobs": top},
            ]}
        return body


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _send(self, status: int, payload) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def do_POST(self) -> None:
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        found = MARKER.search(text)
        key = found.group(0) if found else ""
        with server.lock:
            server.requests.append({"key": key, "body": body, "auth": self.headers.get("Authorization")})
            action = server.scripts[key].pop(0) if server.scripts.get(key) else None
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._send(404, {"error": {"message": "no such route"}})
        if server.required_key and self.headers.get("Authorization") != f"Bearer {server.required_key}":
            return self._send(401, {"error": {"message": "Incorrect API key provided"}})
        if server.models is not None and body.get("model") not in server.models:
            return self._send(404, {"error": {"message": f"model {body.get('model')} does not exist"}})
        delay = server.delay_seconds() if callable(server.delay_seconds) else server.delay_seconds
        if delay:
            time.sleep(delay)
        if isinstance(action, int):
            return self._send(action, {"error": {"message": f"injected {action}"}})
        if action == "timeout":
            time.sleep(server.slow_seconds)
        elif action == "garbage":
            return self._send(200, {"choices": [{"message": {"content": "The passage is about turbines, hard to say."}}],
                                    "usage": {"prompt_tokens": 100, "completion_tokens": 9}})
        elif action == "malformed":
            return self._send(200, b"<html>bad gateway</html>")
        elif isinstance(action, tuple) and action[0] == "text":
            return self._send(200, {"choices": [{"message": {"content": action[1]}}],
                                    "usage": {"prompt_tokens": 100, "completion_tokens": 3}})
        self._send(200, server.answer(key, bool(body.get("logprobs")), str(body.get("model", ""))))
