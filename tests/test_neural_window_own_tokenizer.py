"""The window warning for a dense model other than e5-small counts with that model's own tokenizer, and says
what the model does: sentence-transformers and model2vec cut a passage at their window. Oracle: the libraries
themselves, by behaviour: a passage over the window embeds as the same vector with more words after it (they
are cut), one under it does not. Skipped without the neural extra."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("model2vec")

from ranklens.engine.chunking.model_window import window_check  # noqa: E402
from tests.support.cli import run_cli  # noqa: E402
from tests.support.tiny_models import bi_encoder, static_model  # noqa: E402

WORD = "fattura "  # one token for both tiny models (a word of their vocabularies)
MORE = "credito rimborso"


def cut_at_window(encode, text: str) -> bool:  # noqa: ANN001
    """Whether the model cuts ``text``: words added after it change nothing of its vector."""
    return bool(np.allclose(encode(text), encode(text + " " + MORE), atol=1e-6))


@pytest.fixture(scope="module")
def transformer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bi_encoder(tmp_path_factory.mktemp("models") / "tiny-st", prompts={"passage": "passage: "})


def test_a_sentence_transformers_model_is_counted_by_its_own_tokenizer(transformer: Path) -> None:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(transformer), device="cpu")
    assert model.max_seq_length == 128
    # 2 special tokens and the 2 of the prefix: 100 words fit, 123 fit, 125 do not, 200 do not
    texts = [WORD * n for n in (10, 100, 123, 125, 200)]
    check = window_check(str(transformer), texts)
    assert check is not None and check.window == 128  # its own window, never e5's 512
    assert check.over == tuple(i for i, text in enumerate(texts)
                               if cut_at_window(lambda t: model.encode("passage: " + t), text))
    assert check.over == (3, 4)
    assert check.note() == (f"2 of 5 chunks exceed {transformer}'s 128 tokens: only their first 128 are embedded, "
                            "here as in a pipeline using this model")
    # where its window ends: the first word that does not fit (124 words do, with the prefix and special tokens)
    assert check.ends[0] == len(WORD) * 124


def test_a_model2vec_model_is_counted_by_its_own_tokenizer(tmp_path: Path) -> None:
    from model2vec import StaticModel

    folder = static_model(tmp_path / "tiny-static")
    model = StaticModel.from_pretrained(str(folder))
    # it reads 512 x 5 (its median token length) characters, then 512 tokens: 300 words of 8 characters fit,
    # 330 do not (characters), nor do 600 (both)
    texts = [WORD * n for n in (10, 300, 330, 600)]
    check = window_check(str(folder), texts)
    assert check is not None and check.window == model.max_length == 512
    assert check.over == tuple(i for i, text in enumerate(texts) if cut_at_window(model.encode, text)) == (2, 3)


def test_eval_says_it_with_the_models_own_count(transformer: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "long.txt").write_text(WORD * 300, encoding="utf-8")
    (folder / "short.txt").write_text("nota di credito", encoding="utf-8")
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "nota di credito", "answer": "nota di credito"}\n',
                                          encoding="utf-8")
    run = run_cli(capsys, "eval", str(folder), "--scorer", "dense", "--model", str(transformer), "--size", "400",
                  "--overlap", "0")
    assert run.status == 0, run.err
    assert f"1 of 2 chunks exceed {transformer}'s 128 tokens: only their first 128 are embedded" in run.err
