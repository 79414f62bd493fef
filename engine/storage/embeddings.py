"""Chunk embeddings kept on disk, so a corpus is encoded once per model.

Like the term index cache (``engine/storage/cache.py``): one folder per entry under
``<cache root>/embeddings/``, holding ``vectors.npy`` (float32, chunks x dims, unit
rows, loaded memory-mapped with ``allow_pickle=False``) and ``manifest.json``. The key
hashes the model's identity (its resolved folder and files, or its hub revision), the
passage prefix and the exact chunk texts, so a changed model, prefix or chunking
misses the cache. An entry that fails validation (unreadable, wrong shape or dtype,
non-finite values, a manifest that does not match its key) is reported, deleted and
rebuilt. Writes go to a staging folder renamed into place (``engine/storage/staging.py``): a
killed process leaves the old entry or the new one, never half of one, and a write
that fails (a full disk) leaves nothing and is reported.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from ranklens.engine.storage.cache import save_array, texts_key
from ranklens.engine.storage.staging import reason, write_entry

FORMAT = 1
FOLDER = "embeddings"


def embeddings_key(identity: str, prefix: str, texts: Sequence[str]) -> str:
    """The cache key of ``texts`` encoded by the model ``identity`` with passage ``prefix``."""
    return texts_key([FORMAT, identity, prefix], texts)


class EmbeddingCache:
    def __init__(self, root: Path) -> None:
        self.root = Path(root) / FOLDER
        self.problems: list[str] = []  # corrupt or unwritable entries met, for the user to see

    def load(self, key: str, rows: int) -> np.ndarray | None:
        """The cached (rows x dims) float32 vectors, memory-mapped; None when absent or rebuilt."""
        folder = self.root / key
        if not folder.is_dir():
            return None
        try:
            return _read(folder, key, rows)
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as error:
            self.problems.append(f"embeddings cache {key[:12]}… was unreadable ({error}); rebuilt")
            shutil.rmtree(folder, ignore_errors=True)
            return None

    def save(self, key: str, vectors: np.ndarray, model: str) -> None:
        def write(staging: Path) -> None:
            save_array(staging / "vectors.npy", vectors.astype(np.float32, copy=False))
            manifest = {"format": FORMAT, "key": key, "model": model, "shape": list(vectors.shape),
                        "dtype": "float32"}
            (staging / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")

        try:
            write_entry(self.root / key, write)
        except OSError as error:
            self.problems.append(f"could not save the embeddings cache in {self.root}: {reason(error)}")


def _read(folder: Path, key: str, rows: int) -> np.ndarray:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT or manifest.get("key") != key:
        raise ValueError("written by another version or for other texts")
    vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
    if vectors.dtype != np.float32 or vectors.ndim != 2 or list(vectors.shape) != manifest.get("shape"):
        raise ValueError(f"vectors are {vectors.dtype} {vectors.shape}, the manifest says {manifest.get('shape')}")
    if vectors.shape[0] != rows:
        raise ValueError(f"{vectors.shape[0]} vectors for {rows} chunks")
    if not np.isfinite(vectors).all():
        raise ValueError("vectors hold NaN or infinity")
    return vectors
