"""``--backend endpoint:FILE.toml``: the user's retriever as an HTTP service, asked as the file says.

```toml
[request]
url = "http://127.0.0.1:8080/search"   # {query} and {k} may appear, URL-encoded
method = "POST"                          # GET or POST
body = '{"q": {query}, "size": {k}}'    # POST: a JSON template; {query} becomes a JSON string
headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }   # ${VAR} from the environment only
timeout = 10                             # seconds per request
concurrency = 8                          # requests in flight during an evaluation
retries = 3                              # further tries of a 429 or 503, after backoff, 2·backoff, ...
backoff = 0.5                            # seconds (a Retry-After of the server, up to 30 s, wins)
[response]
hits = "data.results"                    # JMESPath to the list of hits
id = "doc.id"                            # JMESPath inside a hit
score = "relevance"
text = "doc.body"                        # optional
```

Requests go through the standard library's HTTP client, ``concurrency`` at a
time from a thread pool. A timeout, a status of 400 or more, a body that is
not JSON or a hits path that finds no list is that question's failure (the
status and a short excerpt of the body); a refused connection, a timeout or a
401/403/404/405 on the first request stops at once (the rest would wait as
long). The mapping's digest (everything but the header values) and the URL
name the endpoint in saved runs; header values and what ``${VAR}`` expands to
never leave this module.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.backends.own_retriever import (Failure, Hit, OwnRetriever, ShapeError, checked_hit,
                                                    excerpt)
from ranklens.engine.errors import RanklensError

SCHEME = "endpoint:"
RETRIED = (429, 503)
FATAL = (401, 403, 404, 405)  # the setup is wrong, not the question: on the first request, stop
MAX_WAIT = 30.0  # seconds a Retry-After may ask for
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_REQUEST_KEYS = {"url", "method", "body", "headers", "timeout", "concurrency", "retries", "backoff"}
_RESPONSE_KEYS = {"hits", "id", "score", "text"}


@dataclass(frozen=True)
class Mapping:
    """How to ask the endpoint and how to read its answers (the TOML file, checked)."""

    url: str
    method: str
    body: str | None
    headers: dict[str, str]  # templates: ${VAR} not yet expanded
    timeout: float
    concurrency: int
    retries: int
    backoff: float
    hits: Any  # compiled JMESPath expressions
    id: Any
    score: Any
    text: Any | None
    digest: str

    @classmethod
    def read(cls, path: Path) -> Mapping:
        import jmespath
        from jmespath.exceptions import JMESPathError

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise RanklensError(f"{path}: cannot read it ({error.strerror or error})") from None
        except UnicodeDecodeError:
            raise RanklensError(f"{path}: not UTF-8 text") from None
        except tomllib.TOMLDecodeError as error:
            raise RanklensError(f"{path}: not TOML: {error}") from None
        request, response = _table(data, "request", path), _table(data, "response", path)
        for name, table, known in (("request", request, _REQUEST_KEYS), ("response", response, _RESPONSE_KEYS)):
            unknown = sorted(set(table) - known)
            if unknown:
                raise RanklensError(f"{path}: [{name}] has no key {unknown[0]!r} (known: {', '.join(sorted(known))})")
        extra = sorted(set(data) - {"request", "response"})
        if extra:
            raise RanklensError(f"{path}: no table [{extra[0]}] (give [request] and [response])")
        url = _string(request, "url", path, required=True)
        if not url.startswith(("http://", "https://")):
            raise RanklensError(f"{path}: [request] url {url!r} is not an http:// or https:// URL")
        method = _string(request, "method", path, default="GET").upper()
        if method not in ("GET", "POST"):
            raise RanklensError(f"{path}: [request] method {method!r}: give GET or POST")
        body = request.get("body")
        if body is not None and (not isinstance(body, str) or method != "POST"):
            raise RanklensError(f"{path}: [request] body must be a string, and only with method = \"POST\"")
        if body is not None:
            try:
                json.loads(_filled_body(body, "a question", 10))
            except ValueError as error:
                raise RanklensError(f"{path}: [request] body is not JSON once {{query}} and {{k}} are filled "
                                    f"in: {error}") from None
        headers = request.get("headers", {})
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise RanklensError(f"{path}: [request] headers must be a table of strings")
        paths = {}
        for key in ("hits", "id", "score", "text"):
            expression = _string(response, key, path, required=key != "text")
            try:
                paths[key] = jmespath.compile(expression) if expression else None
            except JMESPathError as error:
                raise RanklensError(f"{path}: [response] {key} {expression!r} is not JMESPath: "
                                    f"{str(error).splitlines()[0]}") from None
        # what names the mapping: every key but the headers' values (a secret may be written there)
        named = {"request": {**request, "headers": sorted(headers)}, "response": response}
        digest = hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()[:16]
        return cls(url, method, body, dict(headers), _number(request, "timeout", path, 10.0, 0.0),
                   int(_number(request, "concurrency", path, 8, 1, whole=True)),
                   int(_number(request, "retries", path, 3, 0, whole=True, minimum_allowed=True)),
                   _number(request, "backoff", path, 0.5, 0.0, minimum_allowed=True),
                   paths["hits"], paths["id"], paths["score"], paths["text"], digest)

    def expanded_headers(self, path: Path) -> dict[str, str]:
        """The headers with each ${VAR} replaced by the environment's value; one line naming a missing one."""
        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise RanklensError(f"{path}: [request] headers: ${{{name}}} is not set in the environment")
            return os.environ[name]

        return {name: _VARIABLE.sub(value, template) for name, template in self.headers.items()}


def _table(data: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    table = data.get(name)
    if not isinstance(table, dict):
        raise RanklensError(f"{path}: no [{name}] table")
    return table


def _string(table: dict[str, Any], key: str, path: Path, required: bool = False, default: str = "") -> str:
    value = table.get(key, None if required else default)
    if not isinstance(value, str) or (required and not value):
        raise RanklensError(f"{path}: {key} must be a non-empty string")
    return value


def _number(table: dict[str, Any], key: str, path: Path, default: float, minimum: float, whole: bool = False,
            minimum_allowed: bool = False) -> float:
    value = table.get(key, default)
    kinds = (int,) if whole else (int, float)
    low_ok = value >= minimum if minimum_allowed or whole else value > minimum
    if isinstance(value, bool) or not isinstance(value, kinds) or not low_ok:
        sign = ">=" if minimum_allowed or whole else ">"
        raise RanklensError(f"{path}: [request] {key} must be {'a whole number' if whole else 'a number'} "
                            f"{sign} {minimum:g} (got {value!r})")
    return float(value)


def _filled_body(template: str, query: str, k: int) -> str:
    return template.replace("{query}", json.dumps(query, ensure_ascii=False)).replace("{k}", str(k))


class Endpoint(OwnRetriever):
    def __init__(self, name: str, path: Path, mapping: Mapping) -> None:
        super().__init__(name)
        self.path, self.mapping = path, mapping
        self._headers = {"Accept": "application/json", **mapping.expanded_headers(path)}
        if mapping.body is not None:
            self._headers.setdefault("Content-Type", "application/json")
        self._pool = ThreadPoolExecutor(mapping.concurrency, thread_name_prefix="ranklens-endpoint")

    @property
    def source(self) -> str:
        return f"{self.mapping.url}, mapping {self.mapping.digest}"

    def fingerprint(self) -> dict[str, Any]:
        return {"retriever": self.name, "url": self.mapping.url, "mapping": self.mapping.digest}

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def ask(self, texts: Sequence[str], k: int) -> list[list[Hit] | Failure]:
        if len(texts) == 1:
            return [self._answer(texts[0], k)]
        return list(self._pool.map(lambda text: self._answer(text, k), texts))

    def _answer(self, text: str, k: int) -> list[Hit] | Failure:
        """One question's hits, retrying a 429 or 503 with backoff, or why there are none."""
        mapping = self.mapping
        url = mapping.url.replace("{query}", urllib.parse.quote(text, safe="")).replace("{k}", str(k))
        body = _filled_body(mapping.body, text, k).encode("utf-8") if mapping.body is not None else None
        for attempt in range(mapping.retries + 1):
            request = urllib.request.Request(url, data=body, headers=self._headers, method=mapping.method)
            try:
                with urllib.request.urlopen(request, timeout=mapping.timeout) as response:
                    raw = response.read()
                break
            except urllib.error.HTTPError as error:
                detail = excerpt(_text(error.read()))
                if error.code in RETRIED and attempt < mapping.retries:
                    time.sleep(_wait(error.headers.get("Retry-After"), mapping.backoff * 2 ** attempt))
                    continue
                return Failure(f"HTTP {error.code}", detail, fatal=error.code in FATAL)
            except TimeoutError:
                return Failure(f"timeout after {mapping.timeout:g} s", fatal=True)
            except urllib.error.URLError as error:
                reason = error.reason
                if isinstance(reason, TimeoutError):
                    return Failure(f"timeout after {mapping.timeout:g} s", fatal=True)
                return Failure("no connection", excerpt(str(reason)), fatal=True)
            except OSError as error:  # a connection reset while reading
                return Failure("connection lost", excerpt(str(error)))
        return self._read(raw, text)

    def _read(self, raw: bytes, text: str) -> list[Hit] | Failure:
        mapping = self.mapping
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return Failure("not JSON", excerpt(_text(raw)))
        hits = mapping.hits.search(data)
        if not isinstance(hits, list):
            return Failure(f"hits {mapping.hits.expression!r} found {_found(hits)}", excerpt(_text(raw)))
        read = []
        for number, hit in enumerate(hits, 1):
            try:
                read.append(checked_hit(mapping.id.search(hit), mapping.score.search(hit),
                                        mapping.text.search(hit) if mapping.text is not None else None,
                                        f"hit {number}"))
            except ShapeError as error:
                return Failure(f"{error} (id {mapping.id.expression!r}, score {mapping.score.expression!r})",
                               excerpt(json.dumps(hit, ensure_ascii=False, default=str)))
        return read


def _found(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__}, not a list"


def _text(raw: bytes) -> str:
    return raw[:4 * 1024].decode("utf-8", "replace")


def _wait(retry_after: str | None, backoff: float) -> float:
    """Seconds before the next try: the server's Retry-After (in seconds, up to ``MAX_WAIT``), else ``backoff``."""
    try:
        return min(max(float(retry_after), 0.0), MAX_WAIT) if retry_after is not None else backoff
    except ValueError:
        return backoff


def open_endpoint(target: str, collection: str | None = None) -> Endpoint:
    """The endpoint ``endpoint:FILE.toml`` describes; one line naming the file's problem otherwise."""
    if collection is not None:
        raise RanklensError(f"{target}: --collection is for a collection; an endpoint has none")
    path = Path(target.removeprefix(SCHEME))
    return Endpoint(f"{SCHEME}{path.name}", path, Mapping.read(path))
