"""Loading a corpus: a bundled name, a BEIR folder, a folder of documents (text, Markdown, HTML, PDF, Word,
PowerPoint, CSV), or a .jsonl file.

Everything here reads and nothing writes: the user's corpus folder is left as
it was found. Bad input becomes a one-line ``RanklensError`` naming the file
(and the line, for JSONL and qrels); recoverable oddities (a binary or
unreadable file in a text folder, invalid UTF-8, qrels naming unknown ids)
become warnings. Only regular files are read: a FIFO or a device named like a
document would block or never end.

This module finds the corpus and puts it together; one module per format reads:
``toml_settings`` (ranklens.toml), ``jsonl`` (JSON Lines), ``beir`` (corpus.jsonl
records), ``questions`` (queries.jsonl and qrels, through ``engine/measuring/trec.py``'s
reader), ``text_folder`` (a folder of documents, through ``formats``: a reader per file format, and
``extraction_cache``: slow formats' text kept per file digest); ``reading`` holds what they share.

A large JSONL corpus is read once and kept in the cache (``engine/corpus/cache.py``):
later opens map it instead of parsing it, after checking that its source files are
still those it was built from; when they are not, the corpus is read again and the
returned corpus' warnings say why.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.corpora import bundled_corpora, bundled_path
from ranklens.engine.corpus import Corpus
from ranklens.engine.corpus.sources import MIN_BYTES, fingerprint, kept_size, stat_sources, with_digests
from ranklens.engine.errors import RanklensError
from ranklens.engine.work.gc_pause import gc_paused
from ranklens.engine.text.language import SAMPLE_CHARS, detect_language
from ranklens.engine.corpus.loaders.answer_check import answers_found_nowhere, nowhere_line
from ranklens.engine.corpus.loaders.extraction_cache import ExtractionCache
from ranklens.engine.corpus.loaders.beir import beir_settings, load_beir_blocks, load_beir_corpus
from ranklens.engine.corpus.loaders.questions import load_questions
from ranklens.engine.corpus.loaders.reading import valid_unicode
from ranklens.engine.corpus.loaders.text_folder import load_text_folder
from ranklens.engine.corpus.loaders.toml_settings import read_settings, settings_files
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:
    from ranklens.engine.corpus.cache import CorpusCache

__all__ = ["load_corpus", "valid_unicode"]


def load_corpus(spec: str | os.PathLike[str], progress: Progress = no_progress,
                cache: CorpusCache | None = None, use_cache: bool = True) -> Corpus:
    """Load the corpus that ``spec`` names; an existing path wins over a bundled name.

    A JSONL corpus the cache keeps (``cache``, by default the user's) is opened from it when its
    sources are unchanged; ``use_cache=False`` always parses and caches nothing.
    """
    try:
        path, name = _locate(spec)
        if not use_cache:
            return _load(path, name, progress, None)
        if not kept_size(path, cache.min_bytes if cache else MIN_BYTES):
            return _load(path, name, progress, _extraction_cache(cache))
        return _load_cached(path, name, cache, progress)
    except OSError as error:  # permissions on the folder, a disk error
        raise RanklensError(f"cannot read {error.filename or spec}: {error.strerror or error}") from None


def _load_cached(path: Path, name: str, cache: CorpusCache | None, progress: Progress) -> Corpus:
    progress(0, 1, "checking the corpus cache")
    stats = stat_sources(path)
    # the sources are digested on a thread of their own: while numpy and scipy load for the cache and,
    # on a first open, while the records are parsed (the digests are needed only to write the entry)
    abandoned = threading.Event()  # an error or a cancel: the open ends without waiting for the digests
    with ThreadPoolExecutor(1, thread_name_prefix="ranklens-digest") as pool, _setting(abandoned):
        digests = pool.submit(with_digests, path, stats, abandoned)
        from ranklens.engine.corpus.cache import CorpusCache  # numpy and scipy: only for a corpus it keeps

        cache = cache or CorpusCache()
        corpus, stale = cache.open(path, name, digests.result()) if cache.holds(path) else (None, "")
        if corpus is not None:
            return corpus
        saved = _streamed(path, name, cache, digests.result, progress)
        if saved is None:
            fresh = _load(path, name, progress, None)
            sources = digests.result()
            saved = cache.save(path, replace(fresh, fingerprint=fingerprint(sources)), sources, progress)
    if stale:
        saved = replace(saved, warnings=(*saved.warnings, stale))
    return saved


@contextmanager
def _setting(event: threading.Event) -> Iterator[None]:
    """Sets ``event`` when the block it guards raises."""
    try:
        yield
    except BaseException:
        event.set()
        raise


def _streamed(path: Path, name: str, cache: CorpusCache, sources: Callable[[], list[dict]],
              progress: Progress) -> Corpus | None:
    """The corpus read straight into the cache a block of records at a time, no object made per record;
    None when records group passages into documents (read whole by ``_load``) or the cache cannot be written."""
    records = path if path.is_file() else path / "corpus.jsonl"
    settings = {} if path.is_file() else read_settings(path)
    warnings: list[str] = []
    seen: set[str] = set()
    titled = False
    sample: list[str] = []  # the first texts, as many as the language guess reads
    try:
        with gc_paused(), cache.writer(path, sources) as writer:  # millions of parsed records, none in a cycle
            for block in load_beir_blocks(records, warnings, progress, seen):
                if block.grouped:
                    return None
                writer.add(block.ids, block.titles, block.texts)
                titled = titled or any(map(str.strip, block.titles))
                if sum(map(len, sample)) < SAMPLE_CHARS:
                    sample.extend(block.texts)
            if not writer.rows:
                raise RanklensError(f"no documents in {path}"
                                    + (f" ({warnings[0]})" if warnings and path.is_dir() else ""))
            settings, detected = _with_language(beir_settings(settings, titled), sample)
            questions = [] if path.is_file() else load_questions(path, seen, warnings, progress)
            return writer.finish(name, str(path), questions, settings, warnings, detected)
    except OSError:  # the cache cannot be written: read whole, and the save says why
        return None


def _extraction_cache(cache: CorpusCache | None) -> ExtractionCache:
    """Where a text folder's slow formats' extractions are kept: beside the corpus cache's entries."""
    if cache is not None:
        return ExtractionCache(cache.root)
    from ranklens.engine.storage.cache import cache_root  # numpy and scipy: not on the way to the TUI's first paint

    return ExtractionCache(cache_root())


def _load(path: Path, name: str, progress: Progress, extracted: ExtractionCache | None) -> Corpus:
    if path.is_file():
        return _load_jsonl_file(path, progress)
    settings = read_settings(path)
    warnings: list[str] = []
    if (path / "corpus.jsonl").exists():
        documents, chunks, titled = load_beir_corpus(path / "corpus.jsonl", warnings, progress)
        settings = beir_settings(settings, titled)
    else:
        documents, chunks = load_text_folder(path, settings_files(settings), warnings, progress, extracted), []
    if not documents:
        raise RanklensError(f"no documents in {path}" + (f" ({warnings[0]})" if warnings else ""))
    known = {*map(attrgetter("id"), documents), *map(attrgetter("id"), chunks)}
    questions = load_questions(path, known, warnings, progress)
    nowhere = answers_found_nowhere(documents, questions)
    if nowhere:
        warnings.append(nowhere_line(nowhere))
    settings, detected = _with_language(settings, map(attrgetter("text"), documents))
    return Corpus(
        name=name,
        documents=tuple(documents),
        chunks=tuple(chunks),
        questions=tuple(questions),
        settings=settings,
        source=str(path),
        warnings=tuple(warnings),
        language_detected=detected,
    )


def _load_jsonl_file(path: Path, progress: Progress) -> Corpus:
    warnings: list[str] = []
    documents, chunks, titled = load_beir_corpus(path, warnings, progress)
    if not documents:
        raise RanklensError(f"no documents in {path}")
    # The same records as a BEIR folder's corpus.jsonl, so the same default; no toml can say otherwise.
    settings, detected = _with_language(beir_settings({}, titled), map(attrgetter("text"), documents))
    return Corpus(path.stem, tuple(documents), tuple(chunks), settings=settings,
                  source=str(path), warnings=tuple(warnings), language_detected=detected)


def _with_language(settings: dict[str, Any], texts: Iterable[str]) -> tuple[dict[str, Any], bool]:
    """The settings with a ``language``: the toml's, else guessed from the text (and True: guessed), so
    the stop-word and stemming keys offer the corpus' language, not the first one ranklens knows."""
    if settings.get("language"):
        return settings, False
    language = detect_language(texts)
    if language is None:
        return settings, False
    return {**settings, "language": language}, True


def _locate(spec: str | os.PathLike[str]) -> tuple[Path, str]:
    path = Path(spec)
    if path.exists():
        # Root reads anything; for everyone else an unsearchable folder looks empty to exists().
        if path.is_dir() and not os.access(path, os.R_OK | os.X_OK):
            raise RanklensError(f"cannot read {path}: Permission denied")
        if not (path.is_dir() or path.suffix == ".jsonl"):
            raise RanklensError(f"{path}: not a corpus (expected a folder or a .jsonl file)")
        return path, valid_unicode(path.stem if path.is_file() else path.resolve().name)
    bundled = bundled_path(str(spec))
    if bundled is not None:
        return bundled, str(spec)
    names = ", ".join(name for name, _ in bundled_corpora())
    raise RanklensError(f"corpus not found: {spec} (not a bundled corpus: {names})")
