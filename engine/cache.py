"""A persisted term index, so reopening a large corpus skips analysis.

Stored as a folder of plain ``.npy`` arrays (memory-mappable, loaded with
``allow_pickle=False``) plus a JSON manifest, under the user's cache folder —
never in the corpus folder. The key hashes the exact texts that were analysed
and the analysis settings, so any change to either misses the cache. A folder
that fails validation is reported, deleted and rebuilt. Writes go to a
temporary folder renamed into place, so a killed process leaves either the old
entry or the new one, never half of one.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ranklens.engine.analysis import Analyzer
from ranklens.engine.termindex import TermIndex

FORMAT = 1
_ARRAYS = ("indptr", "indices", "data", "doc_len", "doc_freq", "vocab_offsets", "vocab_blob")


def cache_root() -> Path:
    configured = os.environ.get("RANKLENS_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ranklens"


def index_key(texts: Sequence[str], analyzer: Analyzer) -> str:
    return texts_key([FORMAT, list(analyzer.key)], texts)


def texts_key(head: list, texts: Sequence[str]) -> str:
    """A cache key of ``texts`` made under ``head`` (format, settings): each text length-prefixed,
    so no two lists of texts share one."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(json.dumps(head, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    for text in texts:
        encoded = text.encode("utf-8", errors="surrogatepass")
        digest.update(len(encoded).to_bytes(8, "little"))
        digest.update(encoded)
    return digest.hexdigest()


class IndexCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_root()
        self.problems: list[str] = []  # corrupt or unwritable entries met, for the user to see

    def load(self, key: str, analyzer: Analyzer) -> TermIndex | None:
        folder = self.root / key
        if not folder.is_dir():
            return None
        try:
            return _read(folder, analyzer)
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as error:
            self.problems.append(f"index cache {key[:12]}… was unreadable ({error}); rebuilt")
            shutil.rmtree(folder, ignore_errors=True)
            return None

    def save(self, key: str, index: TermIndex) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=self.root))
            _write(staging, index)
            final = self.root / key
            if final.exists():
                shutil.rmtree(staging, ignore_errors=True)
                return
            os.replace(staging, final)
        except OSError as error:
            self.problems.append(f"could not save the index cache in {self.root}: {error.strerror}")


def _write(folder: Path, index: TermIndex) -> None:
    terms = [str(t) for t in index.vocabulary]
    blob = "".join(terms)
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in terms], out=offsets[1:])
    arrays = {
        "indptr": index.counts.indptr, "indices": index.counts.indices, "data": index.counts.data,
        "doc_len": index.doc_len, "doc_freq": index.doc_freq, "vocab_offsets": offsets,
        "vocab_blob": np.frombuffer(blob.encode("utf-32-le"), dtype=np.uint32),
    }
    for name, array in arrays.items():
        np.save(folder / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
    manifest = {"format": FORMAT, "shape": list(index.counts.shape), "terms": len(terms),
                "analyzer": list(map(_jsonable, index.analyzer.key))}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


def _read(folder: Path, analyzer: Analyzer) -> TermIndex:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT or manifest.get("analyzer") != list(map(_jsonable, analyzer.key)):
        raise ValueError("written by another version or for another analysis")
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in _ARRAYS}
    rows, cols = manifest["shape"]
    indptr, indices = arrays["indptr"], arrays["indices"]
    if indptr.shape != (rows + 1,) or indices.shape != arrays["data"].shape or int(indptr[-1]) != indices.size:
        raise ValueError("arrays do not fit together")
    if indices.size and (int(indices.max()) >= cols or int(indices.min()) < 0):
        raise ValueError("term ids out of range")
    blob = np.asarray(arrays["vocab_blob"]).tobytes().decode("utf-32-le")
    offsets = np.asarray(arrays["vocab_offsets"])
    if offsets.shape != (cols + 1,) or int(offsets[-1]) != len(blob):
        raise ValueError("vocabulary does not fit the matrix")
    vocabulary = np.array([blob[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())], dtype=object)
    counts = sp.csr_matrix((np.asarray(arrays["data"]), np.asarray(indices), np.asarray(indptr)), shape=(rows, cols))
    return TermIndex(
        analyzer=analyzer,
        counts=counts,
        vocabulary=vocabulary,
        term_ids={t: i for i, t in enumerate(vocabulary)},
        doc_freq=np.asarray(arrays["doc_freq"]),
        doc_len=np.asarray(arrays["doc_len"]),
    )
