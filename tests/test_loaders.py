"""Loading corpora: the bundled ones, BEIR folders, text folders, and every kind of bad input."""
from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.corpora import bundled_corpora, bundled_path
from ranklens.engine.corpus import Corpus
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from tests.support.examples import examples
from tests.support.files import listing, write_jsonl

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

# Seed 004's DOMANDE: the gold passage of each question, in order.
GOLD = [
    "ferie-0", "trasferte-1", "accessi-0", "accessi-2", "copie-0", "copie-1", "fatture-1", "lavoro_agile-0",
    "lavoro_agile-1", "lavoro_agile-2", "copie-2", "accessi-1", "fatture-2", "trasferte-2", "ferie-1",
]


QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\nq1\t3\t0\nq2\tnope\t0\n"


def make_beir(folder: Path, qrels: str = QRELS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "corpus.jsonl", [
        {"_id": "d1", "title": "One", "text": "the first text"},
        {"_id": "d2", "title": "Two", "text": "the second text"},
        {"_id": 3, "title": "Three", "text": "the third text"},
    ])
    write_jsonl(folder / "queries.jsonl", [
        {"_id": "q1", "text": "which text"},
        {"_id": "q2", "text": "nothing here"},
        {"_id": "q3", "text": "second", "answer": "second text"},
    ])
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text(qrels, encoding="utf-8")
    return folder


def message(spec: str | Path) -> str:
    with pytest.raises(RanklensError) as error:
        load_corpus(spec)
    text = str(error.value)
    assert "\n" not in text
    return text


# -- bundled corpora -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def studio_alfa() -> Corpus:
    return load_corpus("studio-alfa")


def test_studio_alfa_is_seed_004(studio_alfa: Corpus) -> None:
    assert [d.id for d in studio_alfa.documents] == ["ferie", "trasferte", "accessi", "copie", "fatture",
                                                     "lavoro_agile"]
    assert len(studio_alfa.chunks) == 18
    assert [c.id for c in studio_alfa.chunks[:3]] == ["ferie-0", "ferie-1", "ferie-2"]
    assert studio_alfa.warnings == ()
    assert studio_alfa.settings["language"] == "it" and studio_alfa.settings["scorer"] == "tfidf"
    for chunk in studio_alfa.chunks:
        document = studio_alfa.document(chunk.doc_id)
        assert document.text[chunk.start:chunk.end] == chunk.text
        assert chunk.start_word == len(document.text[:chunk.start].split())
    fatture = studio_alfa.document("fatture")
    assert fatture.title == "fatture"
    assert fatture.text.startswith("Le fatture emesse ai clienti vengono trasmesse al sistema di interscambio")


def test_studio_alfa_questions(studio_alfa: Corpus) -> None:
    assert len(studio_alfa.questions) == 19
    answerable, unanswerable = studio_alfa.answerable, studio_alfa.unanswerable
    assert [q.id for q in answerable] == [f"q{i:02d}" for i in range(1, 16)]
    assert [dict(q.relevant) for q in answerable] == [{gold: 1} for gold in GOLD]
    assert [q.id for q in unanswerable] == ["u1", "u2", "u3", "u4"]
    assert all(q.answer is None and not q.relevant for q in unanswerable)
    assert answerable[6].text == "una fattura è stata respinta dal sistema"
    assert answerable[6].answer == "entro cinque giorni dalla notifica di scarto"
    passages = {c.id: c.text for c in studio_alfa.chunks}
    for question, gold in zip(answerable, GOLD):
        assert [pid for pid, text in passages.items() if question.answer in text] == [gold]


@pytest.mark.parametrize(("name", "language", "question", "stop"), [
    ("battery", "en", "how long is the battery warranty", "long"),
    ("bateria", "es", "cuanto dura la garantia de la bateria", "dura"),
])
def test_battery_corpora(name: str, language: str, question: str, stop: str) -> None:
    corpus = load_corpus(name)
    assert [c.id for c in corpus.chunks] == ["c0", "c1", "c2", "c3"]
    assert len(corpus.documents) == 4
    assert [q.text for q in corpus.questions] == [question]
    assert dict(corpus.questions[0].relevant) == {"c0": 1}
    assert corpus.questions[0].answer in corpus.chunks[0].text
    assert corpus.settings["language"] == language and corpus.settings["k"] == 2
    stopwords = Path(str(corpus.settings["stopwords"]))
    assert stopwords.is_absolute() and stop in stopwords.read_text(encoding="utf-8").split()


def test_bundled_listing() -> None:
    names = [name for name, _ in bundled_corpora()]
    assert names[:3] == ["studio-alfa", "battery", "bateria"]
    assert all(description for _, description in bundled_corpora())
    assert bundled_path("nope") is None
    assert (bundled_path("battery") / "corpus.jsonl").is_file()


# -- BEIR folders, JSONL files and text folders ----------------------------------------------------


def test_beir_folder_keeps_graded_qrels(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "mini")
    before = listing(folder)
    corpus = load_corpus(folder)
    assert corpus.name == "mini" and corpus.source == str(folder)
    assert [(d.id, d.title, d.text) for d in corpus.documents] == [
        ("d1", "One", "the first text"), ("d2", "Two", "the second text"), ("3", "Three", "the third text"),
    ]
    assert [(c.id, c.doc_id, c.index, c.start, c.end) for c in corpus.chunks] == [
        ("d1", "d1", 0, 0, 14), ("d2", "d2", 0, 0, 15), ("3", "3", 0, 0, 14),
    ]
    q1, q2, q3 = corpus.questions
    assert dict(q1.relevant) == {"d1": 2, "d2": 1}  # score 0 is a judgment of non-relevance
    assert q2.relevant == {} and not q2.answerable
    assert q3.answer == "second text" and q3.answerable
    # titled records: title + text; the language, absent from a toml, is guessed (engine/text/language.py)
    assert corpus.settings == {"index_title": True, "language": corpus.settings.get("language")}
    assert corpus.warnings == ()
    assert listing(folder) == before


def test_qrels_naming_unknown_ids_are_skipped_with_a_warning(tmp_path: Path) -> None:
    qrels = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq9\td1\t1\nq8\td1\t1\nq1\tnope\t1\n"
    corpus = load_corpus(make_beir(tmp_path / "c", qrels))
    assert dict(corpus.questions[0].relevant) == {"d1": 1}
    assert len(corpus.warnings) == 2
    assert "2 row(s) naming queries not in queries.jsonl" in corpus.warnings[0]
    assert "1 row(s) naming ids not in the corpus" in corpus.warnings[1]


@pytest.mark.parametrize("rows", [
    "q1\td1\t1\nq1\td1\t2\nq1\td1\t0\n",  # rising then a later 0
    "q1\td1\t2\nq1\td1\t1\nq1\td1\t0\n",  # the highest first
    "q1\td1\t0\nq1\td1\t1\nq1\td1\t2\n",  # the highest last
])
def test_duplicate_qrels_rows_keep_the_highest_grade_and_warn_once(tmp_path: Path, rows: str) -> None:
    qrels = "query-id\tcorpus-id\tscore\n" + rows + "q1\td2\t1\nq2\td2\t1\nq2\td2\t1\n"
    corpus = load_corpus(make_beir(tmp_path / "c", qrels))
    assert dict(corpus.questions[0].relevant) == {"d1": 2, "d2": 1}
    assert dict(corpus.questions[1].relevant) == {"d2": 1}
    path = tmp_path / "c" / "qrels" / "test.tsv"
    # three rows repeat a pair already judged: two more for (q1, d1), one more for (q2, d2)
    assert corpus.warnings == (f"{path}: 3 duplicate row(s) for a question and id already judged; "
                               "the highest grade kept",)


def test_distinct_qrels_rows_draw_no_duplicate_warning(tmp_path: Path) -> None:
    qrels = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t2\nq2\td1\t1\n"
    assert load_corpus(make_beir(tmp_path / "c", qrels)).warnings == ()


def test_other_qrels_file_is_used_without_test_tsv(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "qrels" / "test.tsv").rename(folder / "qrels" / "dev.tsv")
    assert dict(load_corpus(folder).questions[0].relevant) == {"d1": 2, "d2": 1}


def test_single_jsonl_file(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    corpus = load_corpus(folder / "corpus.jsonl")
    assert corpus.name == "corpus" and len(corpus.documents) == 3 and corpus.questions == ()


def test_records_sharing_a_doc_key_form_one_document(tmp_path: Path) -> None:
    folder = tmp_path / "grouped"
    folder.mkdir()
    write_jsonl(folder / "corpus.jsonl", [
        {"_id": "a-0", "title": "", "text": "alpha one.", "doc": "a"},
        {"_id": "b-0", "title": "B", "text": "beta.", "doc": "b"},
        {"_id": "a-1", "title": "", "text": "alpha two words.", "doc": "a"},
        {"_id": "c", "title": "", "text": "alone", "doc": None},
    ])
    corpus = load_corpus(folder)
    assert [(d.id, d.title, d.text) for d in corpus.documents] == [
        ("a", "a", "alpha one. alpha two words."), ("b", "B", "beta."), ("c", "", "alone"),
    ]
    assert [(c.id, c.doc_id, c.index, c.start, c.end, c.start_word) for c in corpus.chunks] == [
        ("a-0", "a", 0, 0, 10, 0), ("a-1", "a", 1, 11, 27, 2), ("b-0", "b", 0, 0, 5, 0), ("c", "c", 0, 0, 5, 0),
    ]


def test_text_folder(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "a.md").write_text("intro\n# The Title #\nbody\n# Second\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("plain text", encoding="utf-8")
    (folder / "sub" / "c.TXT").write_text("# heading in a txt", encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG")
    (folder / ".git" / "x.md").write_text("hidden", encoding="utf-8")
    before = listing(folder)
    corpus = load_corpus(folder)
    assert [(d.id, d.title) for d in corpus.documents] == [
        ("a.md", "The Title"), ("sub/b.txt", "b"), ("sub/c.TXT", "heading in a txt"),
    ]
    assert corpus.documents[1].text == "plain text"
    assert corpus.chunks == () and corpus.questions == ()
    assert corpus.warnings == ("skipped 1 file of kinds no reader reads: 1 .png",)
    assert listing(folder) == before


def test_text_folder_settings_and_stop_list(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "doc.txt").write_text("some text", encoding="utf-8")
    (folder / "stop.txt").write_text("some\n", encoding="utf-8")
    (folder / "ranklens.toml").write_text('stopwords = "stop.txt"\nsize = 50\noverlap = 10\n', encoding="utf-8")
    corpus = load_corpus(folder)
    assert [d.id for d in corpus.documents] == ["doc.txt"]  # the stop list is not a document
    settings = {key: value for key, value in corpus.settings.items() if key != "language"}  # guessed: not asked
    assert settings == {"stopwords": str((folder / "stop.txt").resolve()), "size": 50, "overlap": 10}


def test_binary_and_bad_utf8_files_give_warnings(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("fine", encoding="utf-8")
    (folder / "binary.txt").write_bytes(b"abc\x00def")
    (folder / "latin1.md").write_bytes("caffè".encode("latin-1"))
    before = listing(folder)
    corpus = load_corpus(folder)
    assert [d.id for d in corpus.documents] == ["good.txt", "latin1.md"]
    assert corpus.documents[1].text == "caffè"
    assert corpus.warnings == ("skipped binary file binary.txt", "latin1.md: not UTF-8, read as Latin-1 (ISO-8859-1)")
    assert listing(folder) == before


# What Windows editors save as "Unicode" (UTF-16 LE, CRLF lines) and its kin, each after its byte order mark.
MARKED = "# Caffè ☕\r\nCittà, 東京 e 🚀.\r\n"


@pytest.mark.parametrize("mark, codec", [
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"), (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
], ids=["UTF-16 LE", "UTF-16 BE", "UTF-8", "UTF-32 LE", "UTF-32 BE"])
def test_text_after_a_byte_order_mark_is_decoded(tmp_path: Path, mark: bytes, codec: str) -> None:
    folder = tmp_path / "marked"
    folder.mkdir()
    (folder / "note.txt").write_bytes(mark + MARKED.encode(codec))
    corpus = load_corpus(folder)
    assert corpus.warnings == ()
    assert [(d.id, d.title, d.text) for d in corpus.documents] == [("note.txt", "Caffè ☕", MARKED)]


def test_damaged_utf16_is_repaired_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "marked"
    folder.mkdir()
    lone = "\ud800".encode("utf-16-le", "surrogatepass")  # half of a surrogate pair
    (folder / "note.txt").write_bytes(codecs.BOM_UTF16_LE + "caffè ".encode("utf-16-le") + lone + b"x")
    (folder / "plain.txt").write_bytes("città".encode("utf-16-le"))  # no mark: NUL bytes, so binary
    corpus = load_corpus(folder)
    assert [d.text for d in corpus.documents] == ["caffè \ufffd"]  # the half pair and the odd byte: one mark
    assert corpus.warnings == ("note.txt: not valid UTF-16, bad bytes replaced", "skipped binary file plain.txt")


def test_bad_utf8_in_jsonl_gives_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "corpus.jsonl").write_bytes(b'{"_id": "a", "text": "ok"}\n{"_id": "b", "text": "caff\xe8"}\n')
    corpus = load_corpus(folder)
    assert corpus.chunks[1].text == "caff\ufffd"
    assert corpus.warnings == (f"{folder / 'corpus.jsonl'}: 1 line(s) not valid UTF-8 (first: line 2), "
                               "bad bytes replaced",)


def test_progress_for_every_block_of_lines_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.corpus.loaders import jsonl

    monkeypatch.setattr(jsonl, "_BLOCK_BYTES", 100_000)
    folder = tmp_path / "big"
    folder.mkdir()
    write_jsonl(folder / "corpus.jsonl", [{"_id": str(i), "text": f"t{i}"} for i in range(25_000)])
    calls: list[tuple[int, int, str]] = []
    corpus = load_corpus(folder, progress=lambda done, total, label: calls.append((done, total, label)))
    assert len(corpus.documents) == 25_000
    lines = [done for done, total, label in calls if label == "loading" and total == 0]
    assert lines == sorted(set(lines)) and lines[-1] == 25_000  # lines read so far, a block at a time
    assert len(lines) == -(-(folder / "corpus.jsonl").stat().st_size // 100_000)  # a block: 100,000 bytes and a line


@pytest.mark.skipif(not (SHARED_DATA / "cranfield").is_dir(),
                    reason=f"Cranfield collection not found: looked for {SHARED_DATA / 'cranfield'}")
def test_cranfield() -> None:
    corpus = load_corpus(SHARED_DATA / "cranfield")
    assert len(corpus.documents) == 1400 and len(corpus.chunks) == 1400
    assert len(corpus.questions) == 225 and len(corpus.answerable) == 225
    assert corpus.warnings == ()


# -- bad input -------------------------------------------------------------------------------------


def test_missing_corpus(tmp_path: Path) -> None:
    assert message(tmp_path / "nowhere") == (
        f"corpus not found: {tmp_path / 'nowhere'} (not a bundled corpus: studio-alfa, battery, bateria)"
    )


def test_empty_corpora(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert message(tmp_path / "empty") == f"no documents in {tmp_path / 'empty'}"
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "corpus.jsonl").write_text("\n\n", encoding="utf-8")
    assert message(tmp_path / "blank") == f"no documents in {tmp_path / 'blank'}"


def test_not_a_corpus_file(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("x", encoding="utf-8")
    assert "a.csv: not a corpus" in message(tmp_path / "a.csv")


@pytest.mark.parametrize(("lines", "expected"), [
    (['{"_id": "a", "text": "x"}', "", '{"_id": "b", "text": oops}'], "corpus.jsonl:3: not valid JSON ("),
    (['{"_id": "a", "text": "x"}', '{"text": "no id"}'], "corpus.jsonl:2: record has no _id"),
    (['{"_id": "a", "text": "x"}', '{"_id": "a", "text": "y"}'], "corpus.jsonl:2: duplicate _id 'a'"),
    (['["a", "list"]'], "corpus.jsonl:1: not a JSON object"),
    (['{"_id": "a", "text": ["x"]}'], "corpus.jsonl:1: 'text' must be a string"),
])
def test_malformed_corpus_jsonl(tmp_path: Path, lines: list[str], expected: str) -> None:
    (tmp_path / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = message(tmp_path)
    assert text.startswith(str(tmp_path / "corpus.jsonl")) and expected in text


def test_malformed_queries_jsonl(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n')
    assert message(folder) == f"{folder / 'queries.jsonl'}:2: duplicate _id 'q1'"


@pytest.mark.parametrize(("row", "expected"), [
    ("q1\td1", "expected 3 tab-separated fields (query-id, corpus-id, score), got 2"),
    ("q1\td1\t1\textra", "got 4"),
    ("q1\td1\thigh", "score 'high' is not an integer"),
])
def test_malformed_qrels(tmp_path: Path, row: str, expected: str) -> None:
    folder = make_beir(tmp_path / "c", f"query-id\tcorpus-id\tscore\nq1\td2\t1\n{row}\n")
    text = message(folder)
    assert text.startswith(f"{folder / 'qrels' / 'test.tsv'}:3: ") and expected in text


def test_bad_toml(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "ranklens.toml").write_text('scorer = "bm25"\nk = = 3\n', encoding="utf-8")
    text = message(folder)
    assert text.startswith(f"{folder / 'ranklens.toml'}: not valid TOML (") and "line 2" in text


def test_toml_with_unknown_setting_or_wrong_type(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "ranklens.toml").write_text('colour = "blue"\n', encoding="utf-8")
    assert message(folder).startswith(f"{folder / 'ranklens.toml'}: unknown setting 'colour'")
    (folder / "ranklens.toml").write_text('k = "five"\n', encoding="utf-8")
    assert message(folder).startswith(f"{folder / 'ranklens.toml'}: k must be int")


def test_unreadable_file(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "queries.jsonl").unlink()
    (folder / "queries.jsonl").mkdir()  # a folder where a file should be: unreadable for everyone
    assert message(folder).startswith(f"cannot read {folder / 'queries.jsonl'}: ")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_permission_denied(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "c")
    (folder / "corpus.jsonl").chmod(0)
    try:
        assert message(folder) == f"cannot read {folder / 'corpus.jsonl'}: Permission denied"
    finally:
        (folder / "corpus.jsonl").chmod(0o644)
    folder.chmod(0)
    try:
        assert message(folder) == f"cannot read {folder}: Permission denied"
    finally:
        folder.chmod(0o755)


def _many_records(n: int) -> list[dict]:
    return [{"_id": f"r{i}", "title": f"Title {i}" if i % 3 else "", "text": f"text {i} città" if i % 5 else f"t{i}"}
            for i in range(n)]


def test_crlf_lines_are_read_by_the_block_reader_as_lf_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.corpus.loaders import jsonl

    monkeypatch.setattr(jsonl, "_BLOCK_BYTES", 2_000)
    lf, crlf = tmp_path / "lf.jsonl", tmp_path / "crlf.jsonl"
    write_jsonl(lf, _many_records(400))
    crlf.write_bytes(lf.read_bytes().replace(b"\n", b"\r\n"))
    expected = load_corpus(lf, use_cache=False)
    line_by_line = []
    original = jsonl.parse_object
    monkeypatch.setattr(jsonl, "parse_object", lambda line, *a: line_by_line.append(line) or original(line, *a))
    corpus = load_corpus(crlf, use_cache=False)
    assert (corpus.documents, corpus.chunks) == (expected.documents, expected.chunks)
    assert 0 < len(line_by_line) < 100  # the first block only (a byte-order mark may start it)


def test_an_id_repeated_blocks_later_is_named_by_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.corpus.cache import CorpusCache
    from ranklens.engine.corpus.loaders import jsonl

    monkeypatch.setattr(jsonl, "_BLOCK_BYTES", 2_000)
    records = _many_records(400)
    records[350]["_id"] = "r7"  # seen many blocks before
    write_jsonl(tmp_path / "c.jsonl", records)
    for cache in (None, CorpusCache(tmp_path / "cache", min_bytes=0)):
        with pytest.raises(RanklensError, match=r"c\.jsonl:351: duplicate _id 'r7'"):
            load_corpus(tmp_path / "c.jsonl", cache=cache, use_cache=cache is not None)


# Lines the block reader (orjson) and json.loads may read differently: each is read as json.loads reads it
ODD_LINES = [b'{"_id": "a", "n": 123456789012345678901234567890}', b'{"_id": "b", "x": NaN}', b'{"x": 1e400}',
             b'{"_id": "c", "t": "\\ud800"}', b'{"t": "\\ud83d\\ude00"}', b'{"t": "\xed\xa0\x80"}', b'{"t": "\xff"}',
             b'', b'   ', b'{"a": 1, "a": 2}', b'{"t": "\\u0000"}', b'[1, 2]', b'"text"', b'{"a": -0.0}',
             b'\xef\xbb\xbf{"bom": 1}', b'{"a": 1}\r', b'{"d": ' + b'[' * 600 + b']' * 600 + b'}']


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.sampled_from(ODD_LINES) | st.builds(
    lambda d: json.dumps(d, ensure_ascii=False).encode("utf-8"),
    st.dictionaries(st.sampled_from(["_id", "title", "text", "doc", "n"]),
                    st.text(max_size=8) | st.integers() | st.floats() | st.booleans() | st.none()
                    | st.lists(st.integers(), max_size=2))),
    max_size=30), block=st.sampled_from([1, 60, 1 << 20]))
def test_the_block_reader_reads_each_line_as_json_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       lines: list[bytes], block: int) -> None:
    from ranklens.engine.corpus.loaders import jsonl
    from ranklens.engine.work.progress import no_progress

    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))

    def read(fast: bool) -> tuple[list, list[str]] | str:
        warnings: list[str] = []
        with monkeypatch.context() as patch:
            patch.setattr(jsonl, "_BLOCK_BYTES", block)
            if not fast:  # the oracle: every block line by line through json.loads
                patch.setattr(jsonl, "_common_block", lambda block: None)
            try:
                return [(n, repr(r)) for n, r in jsonl.jsonl(path, warnings, no_progress)], warnings
            except RanklensError as error:
                return str(error)

    assert read(True) == read(False)
