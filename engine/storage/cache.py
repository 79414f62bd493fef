"""What ranklens keeps between runs, under the user's cache folder (never in the corpus folder).

Every entry is a folder of plain ``.npy`` arrays (memory-mapped, loaded with
``allow_pickle=False``) and raw UTF-8 blobs, plus a JSON manifest written last.
Writes go to a staging folder renamed into place, so a killed process leaves
either the old entry or the new one, never half of one; the staging folder a
killed process leaves is removed by the next writer (``engine/storage/staging.py``), and
a write that fails (a full or read-only disk) removes its own and is reported,
the command going on without the entry. A folder that fails validation is
reported, deleted and rebuilt.

- **Term index** (``IndexCache``, folder ``KEY/``): the chunk x term counts as
  CSR (``indptr``, ``indices``, ``data``), ``doc_len``, ``doc_freq`` and the
  sorted vocabulary (``vocab_blob``, UTF-32, with ``vocab_offsets``). The key
  hashes the analysis settings and either the exact texts analysed
  (``index_key``) or, for a corpus' own chunks, the digest of the files it was
  read from (``corpus_index_key``): any change to either misses the cache.
- **Scorer weights** (``kept_weights``, folder ``KEY/NAME-PARAMS/`` inside the
  term index's): a scorer's per-term and per-posting arrays (BM25's and
  TF-IDF's term-major CSC weights, idf, upper bounds), keyed by the scorer's
  parameters; gone with their term index.
- **Corpus** (``engine/corpus/cache.py``, folder ``corpus-PATHKEY/``, one per
  source path): chunk texts, chunk ids, document ids and titles as UTF-8 blobs
  (``NAME.bin``) with int64 offsets (``NAME_offsets.npy``); ``doc_first`` (the
  first chunk of each document: chunks are stored grouped by document),
  ``spans`` (each chunk's start, end and first word in its document),
  ``doc_order`` (documents sorted by id, for lookups by binary search);
  ``questions.json`` (questions with their judgments); the manifest holds the
  settings, warnings, detected language, each file's size, and each source
  file's name, size, time and digest (SHA-1, of 64 MB parts hashed on a thread
  per core). An open re-digests the sources (about 0.12 s for 300 MB on two
  cores, beside the imports) and compares sizes of the cache's files: a changed, added,
  removed or swapped source, or a truncated cache file, means the corpus is
  read again, with a note.

Checked on open: manifests, file sizes, shapes and offsets that must fit
together. Not checked: every value inside a large array (that would read every
posting on each open), so a byte flipped inside an array of the cache itself,
size unchanged, goes unnoticed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from contextlib import suppress
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.storage.staging import reason, write_entry
from ranklens.engine.text.termindex import TermIndex

FORMAT = 1
_ARRAYS = ("indptr", "indices", "data", "doc_len", "doc_freq", "vocab_offsets", "vocab_blob")


def mapped(path: Path) -> np.ndarray:
    """The ``.npy`` file memory-mapped read-only, as a plain ndarray view: numpy's ``memmap``
    subclass costs microseconds on every slice, which a query takes hundreds of."""
    return np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))


def save_array(path: Path, array: np.ndarray) -> None:
    """``array`` written as ``np.save`` writes it (the same bytes), but a failed write raises the system's error
    (``No space left on device``): numpy's own says only how many bytes it wrote."""
    array = np.require(array, requirements="C")
    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(handle, np.lib.format.header_data_from_array_1_0(array))
        handle.write(array.reshape(-1).view(np.uint8).data)


def cache_root() -> Path:
    configured = os.environ.get("RANKLENS_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ranklens"


def index_key(texts: Sequence[str], analyzer: Analyzer) -> str:
    return texts_key([FORMAT, list(analyzer.key)], texts)


def corpus_index_key(fingerprint: str, with_title: bool, analyzer: Analyzer) -> str:
    """The key of the term index of a corpus' own chunks, from its sources' digest (``Corpus.fingerprint``)."""
    return texts_key([FORMAT, list(analyzer.key), "corpus", fingerprint, with_title], ())


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
        self.unsaved: list[str] = []  # keys of the term indexes that could not be written

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
        """``index`` kept under ``key``; when it cannot be, ``key`` is among ``unsaved`` and the reason among
        ``problems``."""
        try:
            write_entry(self.root / key, lambda staging: _write(staging, index))
        except OSError as error:
            self.unsaved.append(key)
            self.problems.append(f"could not save the index cache in {self.root}: {reason(error)}")


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
        save_array(folder / f"{name}.npy", array)
    manifest = {"format": FORMAT, "shape": list(index.counts.shape), "terms": len(terms),
                "analyzer": list(map(_jsonable, index.analyzer.key))}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


def _read(folder: Path, analyzer: Analyzer) -> TermIndex:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT or manifest.get("analyzer") != list(map(_jsonable, analyzer.key)):
        raise ValueError("written by another version or for another analysis")
    arrays = {name: mapped(folder / f"{name}.npy") for name in _ARRAYS}
    rows, cols = manifest["shape"]
    indptr, indices = arrays["indptr"], arrays["indices"]
    if indptr.shape != (rows + 1,) or indices.shape != arrays["data"].shape or int(indptr[-1]) != indices.size:
        raise ValueError("arrays do not fit together")
    # Term ids inside are not scanned: that would read every posting on each open (the module docstring).
    blob = np.asarray(arrays["vocab_blob"]).tobytes().decode("utf-32-le")
    offsets = np.asarray(arrays["vocab_offsets"])
    if offsets.shape != (cols + 1,) or int(offsets[-1]) != len(blob):
        raise ValueError("vocabulary does not fit the matrix")
    terms = [blob[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
    counts = sp.csr_matrix((np.asarray(arrays["data"]), np.asarray(indices), np.asarray(indptr)), shape=(rows, cols))
    return TermIndex(
        analyzer=analyzer,
        counts=counts,
        vocabulary=np.array(terms, dtype=object),
        term_ids=dict(zip(terms, range(len(terms)))),  # from the list: an object array's items come slowly
        doc_freq=np.asarray(arrays["doc_freq"]),
        doc_len=np.asarray(arrays["doc_len"]),
    )


def kept_weights(root: Path | None, index_key: str | None, name: str, params: Sequence,
                 make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays ``make`` computes for the scorer ``name`` with ``params`` on the term index kept under
    ``index_key``: read (memory-mapped) from beside that index when kept there, else made and kept.

    Without a cache (``root`` or ``index_key`` None) they are made every time.
    """
    if root is None or index_key is None or not (root / index_key).is_dir():
        return make()
    tag = hashlib.blake2b(json.dumps([FORMAT, name, list(params)]).encode("utf-8"), digest_size=10).hexdigest()
    folder = root / index_key / f"{name}-{tag}"
    try:
        return _read_arrays(folder)
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        shutil.rmtree(folder, ignore_errors=True)  # missing or damaged: made again below
    arrays = make()

    def write(staging: Path) -> None:
        for key, array in arrays.items():
            save_array(staging / f"{key}.npy", array)
        sizes = {p.name: p.stat().st_size for p in staging.iterdir()}
        (staging / "manifest.json").write_text(json.dumps({"format": FORMAT, "files": sizes}), encoding="utf-8")

    with suppress(OSError):  # a full or read-only cache: the weights are made again next time
        write_entry(folder, write)
    return arrays


def _read_arrays(folder: Path) -> dict[str, np.ndarray]:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError("written by another version")
    arrays = {}
    for file, size in manifest["files"].items():
        if (folder / file).stat().st_size != size:
            raise ValueError(f"{file} has another size than written")
        arrays[file.removesuffix(".npy")] = mapped(folder / file)
    return arrays
