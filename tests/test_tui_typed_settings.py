"""Settings no key steps (a dense model, a reranker, fusion's parts, RRF's k...) are typed through the
palette: "Set <setting>…" asks for the value, checks it as the CLI and ranklens.toml do, and applies it."""
from __future__ import annotations

import pytest

from ranklens.engine.settings import SettingError, parse_text
from ranklens.engine.setup import setup_settings
from tests.support.app import notifications, running, settle, setup_line

SIZE = (100, 30)
RRF_K = "Set rrf k…"


@pytest.mark.parametrize("name, text, value", [
    ("rrf_k", " 30 ", 30), ("delta", "0.25", 0.25), ("lowercase", "off", False), ("index_title", "yes", True),
    ("rerank", "off", None), ("rerank", "NONE", None), ("rerank", "some/model", "some/model"),
    ("fuse", "tfidf, bm25", ("tfidf", "bm25")), ("language", "off", None), ("language", "es", "es"),
])
def test_typed_text_becomes_the_settings_value(name: str, text: str, value: object) -> None:
    assert parse_text(setup_settings()[name], text) == value


@pytest.mark.parametrize("name, text, message", [
    ("rrf_k", "abc", "rrf_k must be a whole number, got 'abc'"),
    ("rerank_top", "0", "rerank_top must be at least 1 (got 0)"),
    ("delta", "x", "delta must be a number, got 'x'"),
    ("lowercase", "maybe", "lowercase is on or off, got 'maybe'"),
    ("fusion_method", "max", "unknown fusion_method 'max'"),
])
def test_bad_typed_values_say_what_is_wrong(name: str, text: str, message: str) -> None:
    with pytest.raises(SettingError) as raised:
        parse_text(setup_settings()[name], text)
    assert message in str(raised.value)


def palette_entry(app, name: str):  # noqa: ANN001, ANN201
    return next(c for c in app.palette_commands() if c.name == name)


async def type_setting(pilot, name: str, text: str) -> None:  # noqa: ANN001
    """Run the palette's ``name`` entry, type ``text`` over what it offers, Enter."""
    palette_entry(pilot.app, name).run()
    await pilot.pause()
    await pilot.press("ctrl+u", *text, "enter")
    await settle(pilot)


async def test_the_palette_sets_a_typed_setting_and_refuses_a_bad_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # As with the neural extra installed (without it a reranker is refused: tests/test_tui_neural_missing.py)
    monkeypatch.setattr("ranklens.tui.extras.NEURAL_MODULES", ())
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape")
        assert palette_entry(app, "Set reranker…").help == "now off · typed: no key"  # never Python's None
        await type_setting(pilot, "Set reranker…", "my-reranker")
        assert app.context.setup.rerank == "my-reranker"  # any name: it is looked up when a search runs
        assert "rerank my-reranker top 5" in setup_line(app)

        await type_setting(pilot, RRF_K, "abc")
        assert app.context.setup.rrf_k == 60
        assert "rrf_k must be a whole number, got 'abc'" in notifications(app)

        await type_setting(pilot, RRF_K, "30")
        assert app.context.setup.rrf_k == 30
        assert any("fusion" in n and "TF-IDF" in n for n in notifications(app)), notifications(app)

        await type_setting(pilot, "Set reranker…", "off")
        assert app.context.setup.rerank is None
        assert "reranker: off" in notifications(app)
        assert "reranker" not in setup_line(app)
