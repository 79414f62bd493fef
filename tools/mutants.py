"""Curated one-line mutations of the engine, each run against the tests that should notice it.

    python tools/mutants.py                  # every mutant, on a copy of the working tree
    python tools/mutants.py --ref HEAD       # on a copy of a commit instead
    python tools/mutants.py --only rrf-k,recall-denominator --list

Each mutant is one exact text replacement in one engine file. The repository is copied to a
temporary folder first and only the copy is ever mutated, so the working tree is never touched
(Ctrl-C included); the copy is imported through a folder of links named like the installed
``ranklens.*`` packages, put first on PYTHONPATH. The tests a mutant should fail run in the copy
with ``-x``: a failure kills the mutant, a pass means it survived. A mutant whose line is no longer
in the file is reported as stale, so the list is kept in step with the code.

Exit status: 0 when every mutant was killed, 1 when some survived or went stale, 2 when the
unmutated tests already fail (nothing could be concluded). Not part of ``make test``: run it
before a release (``make mutants``); it takes a few minutes.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCORING = ("tests/test_parity.py", "tests/test_bm25_defaults.py", "tests/test_fusion.py",
           "tests/test_reference_numbers.py", "tests/test_query_edge_cases.py")
METRICS = ("tests/test_metrics.py", "tests/test_reference_numbers.py")
CHUNKING = ("tests/test_chunking.py", "tests/test_reference_numbers.py")
PROMPT = ("tests/test_prompt.py", "tests/test_reference_numbers.py")
LOADERS = ("tests/test_loaders.py", "tests/test_corpus_errors.py", "tests/test_nonrelevant_judgments.py")
CLI = ("tests/test_bm25_defaults.py", "tests/test_fusion.py", "tests/test_reference_numbers.py")
ANALYSIS = ("tests/test_analysis.py", "tests/test_parity.py")
COMPARE = ("tests/test_compare_runs.py", "tests/test_compare_sides.py", "tests/test_significance.py")
JUDGMENTS = ("tests/test_judgments.py", "tests/test_metrics.py", "tests/test_nonrelevant_judgments.py")
TREC = ("tests/test_trec.py", "tests/test_loaders.py")
CACHE = ("tests/test_cache.py",)
SCORER_KEYS = ("tests/test_scorer_cache_keys.py",)
RELEVANCE_CLI = ("tests/test_cli_relevance.py", "tests/test_significance.py")
RULE = ("tests/test_ranking_rule.py",)
EVAL = ("tests/test_eval_means.py", "tests/test_ndcg_ideal_cut.py", *METRICS, "tests/test_properties_random_input.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository
    find: str  # must occur exactly once in the file
    replace: str
    tests: tuple[str, ...]
    why: str  # the mistake it stands for


MUTANTS = [
    # -- the five of issue 14, and BM25's default k1 -----------------------------------------------
    Mutant("tfidf-query-sublinear", "engine/scoring/tfidf.py",
           "weights = tf_weight(query.counts, self.sublinear_tf)", "weights = tf_weight(query.counts, False)",
           SCORING, "TF-IDF ignores sublinear_tf on the query side"),
    Mutant("qrels-lowest-grade", "engine/measuring/trec.py",
           "grades[doc] = max(grade, grades[doc]) if doc in grades else grade",
           "grades[doc] = min(grade, grades[doc]) if doc in grades else grade",
           (*LOADERS, "tests/test_trec.py"), "duplicate qrels rows keep the lowest grade"),
    Mutant("recall-denominator", "engine/measuring/metric_table.py",
           "return int((q.gains[:RECALL_K] > 0).sum()) / q.grades.size",
           "return int((q.gains[:RECALL_K] > 0).sum()) / min(q.grades.size, RECALL_K)",
           METRICS, "recall@10 divides by min(|relevant|, 10)"),
    Mutant("rrf-k", "engine/setup.py", 'rrf_k: int = setting(60,', 'rrf_k: int = setting(10,',
           SCORING, "RRF's default k is 10 instead of 60"),
    Mutant("rrf-function-k", "engine/scoring/fusion.py", "rrf_k: int = 60, depth", "rrf_k: int = 10, depth",
           SCORING, "rrf()'s own default k is 10"),
    Mutant("prompt-combining-marks", "engine/prompt.py", 'in ("Cf", "Mn"):', 'in ("Cf",):',
           PROMPT, "a combining mark inside a context tag hides it"),
    Mutant("bm25-default-k1", "engine/setup.py", "k1: float = setting(1.2,", "k1: float = setting(1.5,",
           CLI, "BM25's default k1 moves from 1.2"),
    # -- scoring -------------------------------------------------------------------------------------
    Mutant("tfidf-smooth-idf", "engine/scoring/tfidf.py",
           "idf = np.log((1.0 + n) / (1.0 + index.doc_freq)) + 1.0", "idf = np.log((1.0 + n) / (1.0 + index.doc_freq))",
           SCORING, "TF-IDF idf loses scikit-learn's +1"),
    Mutant("tfidf-sublinear-log", "engine/scoring/tfidf.py",
           "return 1.0 + np.log(counts) if sublinear else counts", "return np.log1p(counts) if sublinear else counts",
           SCORING, "sublinear tf is ln(1 + tf) instead of 1 + ln(tf)"),
    Mutant("bm25-lucene-idf", "engine/scoring/bm25.py",
           "return np.log1p((n - df + 0.5) / (df + 0.5))", "return np.log1p((n - df + 0.5) / (df + 1.0))",
           SCORING, "lucene idf with df + 1 in the denominator"),
    Mutant("bm25-lucene-tf", "engine/scoring/bm25.py",
           "return _ratio(tf, tf + k1 * norm)", "return _ratio(tf * (k1 + 1), tf + k1 * norm)",
           SCORING, "lucene tf saturation gains Robertson's (k1 + 1) factor"),
    Mutant("bm25-default-b", "engine/setup.py", "b: float = setting(0.75,", "b: float = setting(0.7,",
           CLI, "BM25's default b moves from 0.75"),
    # -- fusion --------------------------------------------------------------------------------------
    Mutant("rrf-zeros-ranked", "engine/scoring/fusion.py", "top = top[scores[top] > floor]", "top = top",
           SCORING, "RRF counts chunks a scorer does not retrieve (no shared term)"),
    Mutant("rrf-rank-from-zero", "engine/scoring/fusion.py",
           "fused[top] += 1.0 / (rrf_k + np.arange(1, top.size + 1))",
           "fused[top] += 1.0 / (rrf_k + np.arange(top.size))",
           SCORING, "RRF ranks start at 0"),
    # -- metrics -------------------------------------------------------------------------------------
    Mutant("ndcg-discount", "engine/measuring/measures/ndcg.py", "weights = 1.0 / np.log2(np.arange(2, k + 2))",
           "weights = 1.0 / np.log2(np.arange(2, k + 2) + 1)", METRICS, "nDCG discount log2(rank + 2)"),
    Mutant("hit-at-3", "engine/measuring/metric_table.py",
           "_hit(3), k=3", "_hit(2), k=3", METRICS, "hit@3 counts ranks 1-2"),
    Mutant("gold-rank-ties", "engine/topk.py",
           "return int(np.count_nonzero(s > best) + np.count_nonzero(s[:g] == best) + 1)",
           "return int(np.count_nonzero(s > best) + 1)", METRICS, "ties no longer go to the lower index"),
    Mutant("threshold-side", "engine/measuring/metrics.py",
           'rejected = np.searchsorted(u, candidates, side="left")',
           'rejected = np.searchsorted(u, candidates, side="right")',
           METRICS, "an unanswerable question scoring exactly t counts as rejected"),
    # -- chunking ------------------------------------------------------------------------------------
    Mutant("chunk-step", "engine/chunking/cutting.py",
           "starts = range(0, max(words.count - overlap, 1), size - overlap)",
           "starts = range(0, max(words.count - overlap, 1), max(size - overlap - 1, 1))",
           CHUNKING, "windows advance one word too few"),
    Mutant("chunk-last-window", "engine/chunking/cutting.py",
           "starts = range(0, max(words.count - overlap, 1), size - overlap)",
           "starts = range(0, max(words.count, 1), size - overlap)",
           CHUNKING, "a last window lying wholly inside the previous one"),
    Mutant("answer-white-space", "engine/chunking/cutting.py",
           "return bool(wanted) and wanted in normalise_space(text)", "return bool(wanted) and wanted in text",
           CHUNKING, "an answer split across a line break is not found"),
    # -- prompt --------------------------------------------------------------------------------------
    Mutant("prompt-closing-bracket", "engine/prompt.py",
           "replace[source[m.end() - 1]] = _CLOSE", "pass",
           PROMPT, "only the opening bracket of a smuggled tag is neutralised"),
    Mutant("prompt-slash-lookahead", "engine/prompt.py",
           r'context(?=[\s/>]|$)', r'context(?=[\s>]|$)', PROMPT, "<context/> is no longer read as a tag"),
    # -- added while reading the first run's results: the less obvious corners ------------------------
    Mutant("fusion-sum-minmax", "engine/scoring/fusion.py",
           "return (scores - lo) / (hi - lo) if hi > lo else np.zeros_like(scores)",
           "return scores / hi if hi > lo else np.zeros_like(scores)",
           SCORING, "the weighted sum scales by the maximum only, not min-max"),
    Mutant("fusion-sum-weights", "engine/scoring/fusion.py",
           "weights = weights or [1.0 / len(score_lists)] * len(score_lists)",
           "weights = weights or [1.0] * len(score_lists)", SCORING, "the weighted sum adds instead of averaging"),
    Mutant("bm25-default-delta", "engine/setup.py", "delta: float = setting(0.5,", "delta: float = setting(0.4,",
           CLI, "BM25L/BM25+ default delta moves from 0.5"),
    Mutant("lsa-seed", "engine/scoring/lsa.py", "TruncatedSVD(n_components=used, random_state=0)",
           "TruncatedSVD(n_components=used, random_state=1)", SCORING, "LSA's SVD seed is not the lesson's"),
    Mutant("stopwords-case", "engine/text/analysis.py", "stop = frozenset(w.lower() for w in stop)", "stop = stop",
           ANALYSIS, "a capitalised stop word in a list no longer stops its lowercased token"),
    Mutant("stopwords-accents", "engine/text/analysis.py", "stop = frozenset(fold_accents(w) for w in stop)",
           "stop = stop", ANALYSIS, "an accented stop word no longer stops its folded token"),
    Mutant("topk-tie-order", "engine/topk.py", 'return chosen[(-scores[chosen]).argsort(kind="stable")[:k]]',
           'return chosen[(-scores[chosen]).argsort(kind="quicksort")[:k]]',
           ("tests/test_topk.py", *METRICS, *SCORING), "chunks tied at or above the cut-off come in any index order"),
    Mutant("topk-sampled-bound", "engine/topk.py", "if n >= _SAMPLED_ABOVE and k * _SAMPLE_STEP < n:",
           "if n >= _SAMPLED_ABOVE and k < n:", ("tests/test_topk.py",),
           "the sampled bound is used when the sample holds fewer than k scores"),
    Mutant("eval-rank-cut", "engine/measuring/metrics.py",
           '"rank": r.rank if r.rank is not None and (self.k is None or r.rank <= self.k) else None,',
           '"rank": r.rank if r.rank is not None and (self.k is None or r.rank < self.k) else None,',
           METRICS, "eval's per-question rank drops the k-th place"),
    Mutant("ndcg-ideal-order", "engine/measuring/measures/ndcg.py",
           "return sorted(map(gain, grades), reverse=True)[:k]",
           "return sorted(map(gain, grades))[:k]", ("tests/test_ndcg_ideal_cut.py", "tests/test_measures.py", *METRICS),
           "the measures' ideal DCG takes the lowest grades first"),
    Mutant("answer-empty", "engine/chunking/cutting.py", "return bool(wanted) and wanted in normalise_space(text)",
           "return wanted in normalise_space(text)", CHUNKING, "an empty answer is found in every chunk"),
    Mutant("sentence-overlap", "engine/chunking/cutting.py", "start = max(end - overlap, first + 1)",
           "start = max(end - overlap + 1, first + 1)", CHUNKING, "sentence windows repeat one sentence too few"),
    Mutant("qrels-zero-grade", "engine/corpus/loaders/questions.py", "items() if g <= 0))", "items() if g < 0))",
           LOADERS, "a qrels row graded 0 is no longer a judgment of non-relevance"),
    # -- issue 24: what the suite let through ---------------------------------------------------------
    Mutant("compare-judged-on-both", "engine/comparing/two_runs.py",
           "if not rel_a and not rel_b:", "if not rel_a or not rel_b:",
           COMPARE, "a question judged on one side only is left out of the comparison"),
    Mutant("wins-losses-swapped", "engine/comparing/significance.py", "return wins, d.size - wins - losses, losses",
           "return losses, d.size - wins - losses, wins", COMPARE, "wins and losses are counted A against B"),
    Mutant("wins-tolerance", "engine/comparing/significance.py", "tolerance: float = 1e-12) -> tuple[int, int, int]:",
           "tolerance: float = 0.0) -> tuple[int, int, int]:", COMPARE, "values equal but for float noise are no tie"),
    Mutant("judge-id-overwrites", "engine/judging/positions.py", "found[at] = max(found.get(at, 0), grade)",
           "found[at] = grade", JUDGMENTS, "a chunk's own judgment overwrites its document's higher grade"),
    Mutant("judge-doc-overwrites", "engine/judging/positions.py", "found[i] = max(found.get(i, 0), grade)",
           "found[i] = grade", JUDGMENTS, "a document's judgment overwrites its chunk's higher grade"),
    Mutant("judge-span-over-zero", "engine/judging/positions.py",
           "for i in self._holding(question.answer) if i not in judged_out}",
           "for i in self._holding(question.answer)}", JUDGMENTS,
           "the answer span makes a chunk of a document judged 0 relevant again"),
    Mutant("judge-zero-kept-relevant", "engine/judging/positions.py", "found.pop(at, None)",
           "pass", (*JUDGMENTS, "tests/test_chunk_rows.py"),
           "a chunk judged 0 by its id stays relevant through its document or the span"),
    Mutant("trec-percent-kept", "engine/measuring/trec.py",
           'if ch == "%" or ch.isspace() else ch', "if ch.isspace() else ch",
           TREC, "an id's % is written as it is, so report%20final reads back as report final"),
    Mutant("trec-percent-not-read", "engine/measuring/trec.py", "|25|20|", "|20|", TREC, "%25 is not read back as %"),
    Mutant("cache-key-no-lengths", "engine/storage/cache.py",
           'digest.update(len(encoded).to_bytes(8, "little"))', "pass",
           CACHE, '["ab", "c"] and ["a", "bc"] share a cache key'),
    Mutant("cache-key-order", "engine/storage/cache.py", "for text in texts:", "for text in sorted(texts):",
           CACHE, "the same texts in another order share a cache key (chunk rows swapped)"),
    Mutant("scorer-key-delta", "engine/scoring/registry.py", 'settings=("bm25_variant", "k1", "b", "delta")',
           'settings=("bm25_variant", "k1", "b")', SCORER_KEYS, "BM25+'s delta is not in its scorer's cache key"),
    Mutant("scorer-key-weight", "engine/scoring/registry.py", '"rrf_k", "fusion_weight"),', '"rrf_k"),',
           SCORER_KEYS, "the fusion weight is not in fusion's cache key"),
    Mutant("scorer-key-parts", "engine/scoring/registry.py",
           "parts = tuple(spec(p).key(setup) for p in self.parts(setup)) if self.parts else ()", "parts = ()",
           SCORER_KEYS, "fusion's key leaves out its parts' settings (BM25's k1 inside fusion)"),
    Mutant("scorer-key-declared", "engine/scoring/registry.py",
           "own = tuple(setup.value_of(name) for name in self.reads())",
           "own = tuple(setup.value_of(name) for name in self.settings)",
           ("tests/test_plugins.py",), "a scorer's own settings (a plug-in's boost) are not in its cache key"),
    Mutant("prompt-lookalike-open", "engine/prompt.py", "⟨˂ᐸ", "⟨ᐸ", PROMPT,
           "the modifier letter left arrowhead no longer reads as <"),
    Mutant("prompt-lookalike-close", "engine/prompt.py", "ᐳ❯⧽", "ᐳ⧽", PROMPT,
           "the heavy right-pointing angle ornament no longer reads as >"),
    Mutant("prompt-lookalike-slash", "engine/prompt.py", "∕⁄⧸", "∕⧸", PROMPT,
           "the fraction slash no longer reads as /"),
    Mutant("eval-ndcg-mean-ranked", "engine/measuring/metrics.py",
           "metrics = {m.key: float(np.mean([r.values[m.key] for r in results])) for m in eval_metrics()}",
           "metrics = {m.key: float(np.mean([r.values[m.key] for r in results if r.rank or m.key != 'ndcg@10'] "
           "or [0.0])) for m in eval_metrics()}", EVAL,
           "eval's nDCG@10 leaves out the questions with nothing relevant to rank (and says 0, not nan, for none)"),
    Mutant("ndcg-rows-ideal-uncut", "engine/measuring/measures/ndcg.py",
           "ideal = np.sort(np.asarray(grades, dtype=np.float64))[::-1][:k]",
           "ideal = np.sort(np.asarray(grades, dtype=np.float64))[::-1]", EVAL,
           "eval's ideal DCG sums every relevant chunk, not the top 10"),
    Mutant("ndcg-ideal-uncut", "engine/measuring/measures/ndcg.py",
           "return sorted(map(gain, grades), reverse=True)[:k]",
           "return sorted(map(gain, grades), reverse=True)", EVAL,
           "the measures' ideal DCG sums every relevant chunk, not the top k"),
    Mutant("eval-duplicate-lowest", "engine/measuring/metrics.py", "order = np.lexsort((-grades, rel))",
           "order = np.lexsort((grades, rel))", EVAL, "a chunk listed twice keeps its lowest grade in eval"),
    Mutant("eval-zero-grade-relevant", "engine/measuring/metrics.py", "keep = grades > 0", "keep = grades >= 0", EVAL,
           "a chunk judged 0 counts in eval's recall denominator"),
    Mutant("bootstrap-tail", "engine/comparing/significance.py", "tail = (1.0 - level) / 2.0 * 100.0",
           "tail = (1.0 - level) * 100.0", RELEVANCE_CLI, "the 95 % interval is a 90 % one"),
    Mutant("randomization-strict", "engine/comparing/significance.py", "means >= observed - _TOLERANCE",
           "means > observed + _TOLERANCE", RELEVANCE_CLI, "permutations as extreme as the observed one do not count"),
    # -- issue 23: judging at scale -------------------------------------------------------------------------
    Mutant("holm-no-running-max", "engine/comparing/significance.py",
           "running = max(running, min(1.0, (m - rank) * p_values[i]))",
           "running = min(1.0, (m - rank) * p_values[i])", ("tests/test_significance.py",),
           "Holm's adjusted p-values lose the step-down's running maximum"),
    Mutant("bpref-denominator", "engine/measuring/measures/bpref.py",
           "denominator = min(relevant, len(grades) - relevant)",
           "denominator = relevant", ("tests/test_measures_incomplete.py",),
           "bpref divides by R instead of min(R, N)"),
    Mutant("kappa-linear-squared", "engine/judging/agreement.py", "return abs(x - y) if linear else int(x != y)",
           "return (x - y) ** 2 if linear else int(x != y)", ("tests/test_agreement.py",),
           "the linearly weighted kappa weighs disagreements by their square"),
    Mutant("coverage-at-threshold", "engine/comparing/coverage.py",
           "if share < self.threshold]", "if share <= self.threshold]",
           ("tests/test_coverage.py", "tests/test_compare_runs.py"),
           "a side exactly at 80 % judged is warned about"),
    # -- issues 21 and 22: the cached corpus read by columns, an engine's ranks from its top 10 ---------------
    Mutant("rows-of-last-row", "engine/corpus/tables.py", "found.setdefault(self.at(row), row)",
           "found[self.at(row)] = row", ("tests/test_chunk_rows.py",),
           "an id held twice is found at its last row, not its first"),
    Mutant("payload-doc-off-by-one", "engine/corpus/tables.py", 'np.arange(start, stop), side="right")',
           'np.arange(start, stop), side="left")',
           ("tests/test_chunk_rows.py",), "a pushed chunk that starts a document is given the previous document"),
    Mutant("stored-chunk-index", "engine/corpus/stored_chunk.py",
           "return self._row - int(self._table.doc_first[self._document])", "return self._row",
           ("tests/test_stored_chunk.py",), "a lazy chunk's index within its document is its corpus row"),
    Mutant("rank-in-top-tied-last", "engine/topk.py", "(values > values[-1])", "(values >= values[-1])",
           ("tests/test_topk.py",), "a relevant chunk tied with the top's last score is ranked off the top"),
    # -- issue 21, the cold index: term counts cut with numpy, the corpus streamed into the cache -------------
    Mutant("ascii-key-mask-short", "engine/text/batch_terms.py", "_KEY_MASKS[lengths[short]]",
           "_KEY_MASKS[lengths[short] - 1]", ("tests/test_batch_terms.py",),
           "a short ASCII word is read one byte short, so 'ab' and 'ac' are one term"),
    Mutant("ascii-one-byte-words-kept", "engine/text/batch_terms.py", "if len(word) > 1]", "if len(word) > 0]",
           ("tests/test_batch_terms.py",), "the ASCII cut counts one-letter words the pattern never matches"),
    Mutant("ascii-not-lowercased", "engine/text/batch_terms.py", "data = data.lower()", "data = data",
           ("tests/test_batch_terms.py",), "an ASCII batch keeps its capitals: 'Running' and 'running' two terms"),
    Mutant("id-order-nul-sorted-by-numpy", "engine/corpus/cache.py", ' or ids.blob.find(b"\\x00") >= 0:', ":",
           ("tests/test_corpus_cache.py",), "ids holding a NUL are sorted by numpy, which ignores a trailing NUL"),
    Mutant("streamed-id-repeated-across-blocks", "engine/corpus/loaders/beir.py",
           "if len(fresh) != len(ids) or not seen.isdisjoint(fresh):", "if len(fresh) != len(ids):",
           ("tests/test_loaders.py", "tests/test_corpus_cache.py"), "an id repeated in a later block is not told"),
    Mutant("titled-text-previous-title", "engine/corpus/tables.py", 'np.asarray(rows), side="right")',
           'np.asarray(rows), side="left")', ("tests/test_corpus_cache.py",),
           "a chunk that starts a document is indexed with the previous document's title"),
    # -- issue 21, fifth pass: orjson's blocks, digests by parts, weights on threads, runs of texts ------------
    Mutant("orjson-big-int-kept", "engine/corpus/loaders/jsonl.py",
           "return records if _EXACT.issuperset(map(type, values)) else None", "return records",
           ("tests/test_loaders.py",), "an integer beyond 64 bits is read as orjson's float, not json's int"),
    Mutant("digest-last-part-dropped", "engine/corpus/sources.py",
           "for start in range(0, size, _PART)] or [(0, 0)]", "for start in range(0, size - 1, _PART)] or [(0, 0)]",
           ("tests/test_corpus_cache.py",), "a file's last byte alone in its part is never digested"),
    Mutant("in-parts-overlap", "engine/work/cores.py", "bounds = [(start, min(start + size, total))",
           "bounds = [(max(0, start - step), min(start + size, total))", ("tests/test_posting_slices.py",),
           "each part but the first starts a step early, so postings are weighted twice"),
    Mutant("text-run-not-rebased", "engine/corpus/tables.py", "return [text[a - lo:b - lo] for a, b",
           "return [text[a:b] for a, b", ("tests/test_chunk_rows.py",),
           "a run of strings not starting at the column's first is cut at the wrong places"),
    Mutant("document-items-next-range", "engine/corpus/tables.py", "start, stop = first[row:row + 2].tolist()",
           "start, stop = first[row + 1:row + 3].tolist()", ("tests/test_corpus_cache.py",),
           "the documents tree lists each document with the next one's chunks"),
    Mutant("counts-always-a-byte", "engine/text/termindex.py",
           "narrow = np.min_scalar_type(int(counts.max())) if counts.size else np.dtype(np.uint8)",
           "narrow = np.dtype(np.uint8)", ("tests/test_posting_slices.py",),
           "a term counted 300 times in a chunk is stored as 44"),
    Mutant("rare-top-untouched-tie", "engine/scoring/sparse.py", "if scores[-1] > base:  # every untouched",
           "if scores[-1] >= base:  # every untouched", ("tests/test_touched_scoring.py",),
           "a touched chunk scoring 0 ranks above the untouched chunks of lower index it ties with"),
    Mutant("rare-weights-taken-as-one", "engine/scoring/sparse.py", "if w.count(1.0) == len(w):",
           "if w.count(1.0) >= 1:", ("tests/test_touched_scoring.py",),
           "a repeated query term counts once when another term occurs once"),
    Mutant("answer-across-chunks", "engine/judging/positions.py", 'return "\\n".join(texts)', 'return " ".join(texts)',
           ("tests/test_judgments.py",), "an answer span running from one chunk into the next judges the first"),
    Mutant("lsa-fold-in-reversed", "engine/scoring/lsa.py",
           "for weight, row in zip(self.tfidf.query_weights(query).tolist(), self._by_term[query.ids]):",
           "for weight, row in reversed([*zip(self.tfidf.query_weights(query).tolist(), self._by_term[query.ids])]):",
           ("tests/test_parity.py",), "an LSA query's terms added in reverse order: sums that differ from scipy's"),
    # -- issue 32: one ranking rule ------------------------------------------------------------------
    Mutant("rule-rank-unmatched", "engine/topk.py", "return rank if best > floor else None", "return rank", RULE,
           "eval ranks a relevant chunk that matches nothing, in corpus order after the matching ones"),
    Mutant("rule-top-unmatched", "engine/topk.py", "if not values.size or values[-1] > floor:", "if True:", RULE,
           "eval's top 10 (and search's hits) keep chunks that match nothing"),
    Mutant("rule-floor-zero", "engine/topk.py",
           "return float(scorer.floor(query)) if capable(scorer, Floored) else 0.0", "return 0.0", RULE,
           "every floor is 0: bm25l and bm25+ retrieve every chunk, LSA drops cosines of 0 or below"),
    Mutant("rule-unjudged-unanswerable", "engine/corpus/__init__.py", "if not q.answerable and not q.unjudged]",
           "if not q.answerable]", RULE, "a query saved without judgments counts as unanswerable in threshold"),
    # -- issue 36: a user's retriever's hits not in the corpus keep their ranks ---------------------------
    Mutant("unplaced-rank-dropped", "engine/measuring/metrics.py", "    if q.taken:", "    if False:",
           ("tests/test_backend_unplaced.py",), "eval moves the chunks below a hit not in the corpus up a rank"),
    Mutant("unplaced-pooled", "engine/judging/pool.py", "if chunk not in side.not_chunks:", "if True:",
           ("tests/test_backend_unplaced.py",), "a pool offers a hit not in the corpus for judging"),
]


def package_dirs(repo: Path) -> dict[str, str]:
    """The installed package names and the folders they come from (pyproject's package-dir)."""
    with open(repo / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-dir"]


def copy_repository(ref: str | None, into: Path) -> Path:
    """The repository at ``ref`` (a commit) or as it stands (tracked and untracked, not ignored)."""
    copy = into / "repo"
    copy.mkdir()
    if ref:
        archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=REPO, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(copy, filter="data")
        return copy
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is skipped
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def import_links(copy: Path, into: Path) -> Path:
    """A folder where ``ranklens.engine`` and the others resolve to the copy, not the installed tree."""
    links = into / "links"
    for package, folder in package_dirs(copy).items():
        link = links.joinpath(*package.split("."))
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(copy / folder, target_is_directory=True)
    return links


def run_tests(copy: Path, env: dict[str, str], tests: tuple[str, ...], workers: int,
              timeout: float) -> tuple[str, str]:
    """("pass" | "fail" | "timeout" | "error", the first failed test or the output's last lines)."""
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    if workers > 1:
        command[4:4] = ["-n", str(workers)]
    try:
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    tail = "\n".join(done.stdout.strip().splitlines()[-15:])
    first = re.search(r"^FAILED (\S+)", done.stdout, re.M)
    if first:
        tail = first.group(1)  # the test that killed it
    # with xdist, -x stops the session as "interrupted" (status 2) after the first failure
    failed = done.returncode == 1 or (done.returncode == 2 and re.search(r"\b\d+ failed\b", done.stdout))
    return ("pass" if done.returncode == 0 else "fail" if failed else "error"), tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", help="mutate a copy of this commit instead of the working tree")
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("-n", "--workers", type=int, default=2, help="pytest-xdist workers per run (default 2)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per test run (default 600)")
    args = parser.parse_args(argv)
    mutants = MUTANTS
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.name for m in MUTANTS}
        if unknown:
            parser.error(f"unknown mutant(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in MUTANTS if m.name in wanted]
    if args.list:
        for m in mutants:
            print(f"{m.name:24} {m.path:28} {m.why}")
        return 0

    with tempfile.TemporaryDirectory(prefix="ranklens-mutants-") as temp:
        copy = copy_repository(args.ref, Path(temp))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(import_links(copy, Path(temp))),
                                                                          os.environ.get("PYTHONPATH")]))}
        tests = tuple(dict.fromkeys(t for m in mutants for t in m.tests if (copy / t).exists()))
        print(f"baseline: {len(tests)} test files on the unmutated copy …", flush=True)
        outcome, tail = run_tests(copy, env, tests, args.workers, args.timeout)
        if outcome != "pass":
            print(f"the unmutated tests do not pass ({outcome}); no mutant can be judged:\n{tail}")
            return 2
        survivors, stale = [], []
        for m in mutants:
            target = copy / m.path
            original = target.read_text(encoding="utf-8") if target.exists() else ""
            if original.count(m.find) != 1:
                stale.append(m)
                print(f"{m.name:24} stale: the line is not (exactly once) in {m.path}", flush=True)
                continue
            started = time.monotonic()
            try:
                target.write_text(original.replace(m.find, m.replace), encoding="utf-8")
                outcome, tail = run_tests(copy, env, tuple(t for t in m.tests if (copy / t).exists()),
                                          args.workers, args.timeout)
            finally:
                target.write_text(original, encoding="utf-8")
            verdict = {"fail": "killed", "timeout": "killed (timeout)", "pass": "SURVIVED"}.get(outcome, "error")
            print(f"{m.name:24} {verdict:16} {time.monotonic() - started:5.0f} s  {m.why}", flush=True)
            if outcome == "fail":
                print(f"{'':24} by {tail}", flush=True)
            if outcome == "pass":
                survivors.append(m)
            elif outcome == "error":
                print(tail)
                stale.append(m)
    print(f"\n{len(mutants) - len(survivors) - len(stale)} of {len(mutants)} mutants killed")
    for m in survivors:
        print(f"survived: {m.name} ({m.path}): {m.why}")
    for m in stale:
        print(f"not judged: {m.name} ({m.path}): update its line")
    return 1 if survivors or stale else 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # a kill cleans up as Ctrl-C does: the copy is removed, the child stopped


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted: the temporary copy is removed, the working tree was never touched", file=sys.stderr)
        sys.exit(130)
