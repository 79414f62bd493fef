"""A search service in the test process: a real HTTP server on 127.0.0.1 answering from rankings the test knows.

``RankingServer(rankings)`` answers ``POST /search`` with body ``{"q": TEXT, "size": K}`` (or ``GET
/search?q=TEXT&size=K``) as nested JSON, ``{"data": {"results": [{"doc": {"id", "body"}, "relevance"}]}}``,
the first K of ``rankings[TEXT]`` (a list of (id, score, text or None)). ``latency`` seconds before each
answer; ``faults[TEXT]``: a list of what to answer in place of the ranking, one per request of that text
("500", "503", "429", "badjson", "nohits", "sleep", then the ranking once the list is used up); ``token``:
the bearer token the server asks for (401 otherwise). It counts requests and the most in flight at once.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Ranking = list[tuple[str, float, str | None]]


class RankingServer:
    def __init__(self, rankings: dict[str, Ranking], latency: float = 0.0,
                 faults: dict[str, list[str]] | None = None, token: str | None = None,
                 sleep: float = 2.0) -> None:
        self.rankings, self.latency, self.token, self.sleep = rankings, latency, token, sleep
        self.faults = {text: list(kinds) for text, kinds in (faults or {}).items()}
        self.requests: list[tuple[str, int]] = []  # (text, size) of every request, in arrival order
        self.in_flight = self.most_in_flight = 0
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", 0), _handler(self))
        # shutdown() waits for the loop to look at its flag, every poll_interval: 0.5 s by default, which was
        # most of an endpoint test's time
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/search"

    def answer(self, text: str, size: int, authorization: str | None) -> tuple[int, bytes]:
        with self.lock:
            self.requests.append((text, size))
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            faults = self.faults.get(text)
            fault = faults.pop(0) if faults else None
        try:
            time.sleep(self.latency)
            if self.token is not None and authorization != f"Bearer {self.token}":
                return 401, b'{"error": "unauthorized"}'
            if fault in ("500", "503", "429"):
                return int(fault), b'{"error": "the index is rebuilding"}'
            if fault == "badjson":
                return 200, b"<html>oops</html>"
            if fault == "nohits":
                return 200, b'{"data": {}}'
            if fault == "sleep":
                time.sleep(self.sleep)
            hits = [{"doc": {"id": ident, **({"body": body} if body is not None else {})}, "relevance": score}
                    for ident, score, body in self.rankings.get(text, [])[:size]]
            return 200, json.dumps({"data": {"results": hits}}).encode()
        finally:
            with self.lock:
                self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 drops connections a pool opens at once: a client waits a second
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client gone after its timeout: socketserver's traceback would land in a later test's stderr


def _handler(server: RankingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            self._send(*server.answer(body["q"], int(body["size"]), self.headers.get("Authorization")))

        def do_GET(self) -> None:  # noqa: N802
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            self._send(*server.answer(query["q"][0], int(query["size"][0]), self.headers.get("Authorization")))

        def _send(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if status in (429, 503):
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler


@contextmanager
def serving(rankings: dict[str, Ranking], **options: Any) -> Iterator[RankingServer]:
    """A ``RankingServer`` running for the block, shut down after it."""
    server = RankingServer(rankings, **options)
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


def mapping(url: str, method: str = "POST", **request: Any) -> str:
    """The TOML of an endpoint file for a ``RankingServer`` at ``url``: the issue's example, nested paths."""
    lines = ["[request]", f'url = "{url}"' if method == "POST" else f'url = "{url}?q={{query}}&size={{k}}"',
             f'method = "{method}"']
    if method == "POST":
        lines.append("body = '{\"q\": {query}, \"size\": {k}}'")
    lines += [f"{key} = {json.dumps(value) if not isinstance(value, str) or not value.startswith('{') else value}"
              for key, value in request.items()]
    lines += ["[response]", 'hits = "data.results"', 'id = "doc.id"', 'score = "relevance"', 'text = "doc.body"']
    return "\n".join(lines) + "\n"
