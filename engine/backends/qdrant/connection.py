"""Where a Qdrant collection lives, a client on it, and Qdrant's and the network's errors as one line.

The API key comes from the ``QDRANT_API_KEY`` environment variable, never from
the command line.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ranklens.engine.backends.registry import backend_spec, not_a_location
from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

API_KEY_ENV = "QDRANT_API_KEY"
SPARSE = "bm25"  # the vectors' names in the collection: the scorers they stand for
DENSE = "dense"
FUSION = "fusion"  # RRF of the two, by Qdrant (prefetch both, then its RRF with ranklens' rrf_k)
TIMEOUT_S = 5  # a server that does not answer fails within this, not after the client's default minute


@dataclass(frozen=True)
class Target:
    """Where a collection lives: a local folder (``qdrant:PATH``) or a server's URL."""

    text: str  # as the user wrote it
    path: str | None = None
    url: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target:
        if text.startswith("qdrant:") and len(text) > len("qdrant:"):
            return cls(text, path=text[len("qdrant:"):])
        if text.startswith(("http://", "https://")) and len(text.split("://", 1)[1]) > 0:
            return cls(text, url=text)
        raise not_a_location(text)


def client_module() -> Any:
    """qdrant_client, or RanklensError naming the pip command without the qdrant extra."""
    backend_spec("qdrant").require()
    import qdrant_client

    return qdrant_client


@contextmanager
def speaking(target: Target) -> Iterator[None]:
    """Qdrant's and the network's exceptions as one line naming the target."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    try:
        yield
    except UnexpectedResponse as error:
        if error.status_code in (401, 403):
            raise RanklensError(f"{target.text}: the server refused the API key (status {error.status_code}; "
                                f"set {API_KEY_ENV})") from None
        reason = error.reason_phrase or "error"
        raise RanklensError(f"{target.text}: Qdrant answered {error.status_code} {reason}") from None
    except ResponseHandlingException as error:
        cause = error.source if getattr(error, "source", None) is not None else error
        raise RanklensError(f"{target.text}: cannot reach Qdrant ({type(cause).__name__}: "
                            f"{str(cause) or 'no answer'})") from None
    except (OSError, RuntimeError) as error:
        # local mode: a folder another process holds, or one that cannot be created
        raise RanklensError(f"{target.text}: {error}") from None


def connect(target: Target, timeout: int = TIMEOUT_S) -> QdrantClient:
    """A client on the target, checked to answer (a server that does not fails within ``timeout`` seconds)."""
    qdrant_client = client_module()
    with speaking(target):
        if target.path is not None:
            with warnings.catch_warnings():  # its advice to use a server above 20,000 points: docs/qdrant.md
                warnings.filterwarnings("ignore", message="Local mode is not recommended", category=UserWarning)
                # The TUI opens the collection in one worker thread and queries it from others (local mode
                # answers from memory; its sqlite file is written by a push, from one thread): sqlite's
                # same-thread check, on where it is built for one thread per connection (macOS), would refuse
                client = qdrant_client.QdrantClient(path=target.path, force_disable_check_same_thread=True)
        else:
            # the version check would make a request of its own, with the client's default timeout
            with warnings.catch_warnings():  # a key over plain http: said as a note (insecure_key), not a warning
                warnings.filterwarnings("ignore", message="Api key is used with an insecure connection")
                client = qdrant_client.QdrantClient(url=target.url, api_key=os.environ.get(API_KEY_ENV) or None,
                                                    timeout=timeout, check_compatibility=False)
        try:
            client.get_collections()
        except BaseException:
            client.close()
            raise
    return client


def insecure_key(target: Target) -> list[str]:
    """A note when the API key would cross the network in clear."""
    if target.url is not None and target.url.startswith("http://") and os.environ.get(API_KEY_ENV):
        return [f"{API_KEY_ENV} is sent to {target.url} over plain http: use https beyond this machine"]
    return []


def alias_target(client: QdrantClient, name: str) -> str | None:
    """The collection the alias ``name`` points at, None when there is no such alias."""
    for alias in client.get_aliases().aliases:
        if alias.alias_name == name:
            return alias.collection_name
    return None
