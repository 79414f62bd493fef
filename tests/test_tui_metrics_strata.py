"""The Metrics tab's strata view (b, B) at 80x24: the seed's TF-IDF ranks grouped by hand, length buckets
counted from the queries file, and untrusted field values shown as text."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.widgets.lists import KeyScroll
from ranklens.tui.widgets.question_list import QuestionList
from tests.support.panes import PaneHarness, screen_text, settle
from tests.support.seeds import SEED_TFIDF_RANKS
from tests.support.tagged import QUERIES, studio_answerable, tagged_corpus

SIZE = (80, 24)


def strata_rows(app: PaneHarness) -> dict[str, list[str]]:
    """The view's table: stratum -> its cells (n, then one per scorer), from the widget's text."""
    text = str(app.query_one("#metrics-strata-text", Static).render())
    header, *rows = text.split("\n\n")[0].splitlines()
    assert header.split()[:2] == ["stratum", "n"]
    return {row[:row.index("  ")].strip(): row[row.index("  "):].split() for row in rows}


def title(app: PaneHarness) -> str:
    return str(app.query_one("#metrics-strata", KeyScroll).border_title)


async def test_b_shows_each_scorer_by_tag_then_length_then_the_questions_again() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert app.pane.has_class("-strata") and not app.query_one(QuestionList).display
        assert title(app).startswith("MRR by tags · b: length")
        by_tag: dict[str, list[int]] = {}
        for record, rank in zip(studio_answerable(), SEED_TFIDF_RANKS):
            for tag in record["tags"]:
                by_tag.setdefault(tag, []).append(rank)
        rows = strata_rows(app)
        assert sorted(rows) == sorted(by_tag)
        for tag, ranks in by_tag.items():
            assert rows[tag][0] == str(len(ranks))
            assert rows[tag][1] == f"{sum(1 / r for r in ranks) / len(ranks):.3f}"  # TF-IDF's column, the first
        assert "a question with several values counts in each" in screen_text(app)

        for shown in ["nDCG@10", "recall@10", "sRec@10", "sPrec@10", "IoU@10", "hit@1"]:  # after MRR, round
            await pilot.press("B")
            assert title(app).startswith(f"{shown} by tags")
        for tag, ranks in strata_rows(app).items():
            assert ranks[1] == f"{sum(r == 1 for r in by_tag[tag])}/{len(by_tag[tag])}"

        await pilot.press("b")
        await settle(pilot)
        assert title(app).startswith("hit@1 by length · b: questions")
        buckets: dict[str, int] = {}
        for record in studio_answerable():
            words = len(record["text"].split())
            name = "1-4 words" if words <= 4 else "5-8 words" if words <= 8 else "9-16 words"
            buckets[name] = buckets.get(name, 0) + 1
        assert {name: int(cells[0]) for name, cells in strata_rows(app).items()} == buckets

        await pilot.press("b")
        await pilot.pause()
        assert not app.pane.has_class("-strata") and app.query_one(QuestionList).display


async def test_a_setup_change_groups_the_new_numbers() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        before = strata_rows(app)
        app.change(scorer="bm25", dims=4)  # LSA at 4 dims ranks worse: its column moves
        await settle(pilot)
        after = strata_rows(app)
        assert app.pane.has_class("-strata") and sorted(after) == sorted(before)
        assert [cells[3] for cells in after.values()] != [cells[3] for cells in before.values()]


async def test_field_names_and_values_are_shown_as_text_never_markup(tmp_path: Path) -> None:
    # a field named like markup sorts before "tags": b groups by it first
    queries = [{**QUERIES[0], "[red]k": "[b]x[/b] \x1b[31m"}, *QUERIES[1:]]
    app = PaneHarness(MetricsPane, corpus=str(tagged_corpus(tmp_path / "hostile", queries)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = screen_text(app)
        assert "MRR by [red]k · b: tags" in screen
        assert "[b]x[/b] ␛[31m" in screen and "\x1b" not in screen
        assert list(strata_rows(app)) == ["[b]x[/b] ␛[31m", "(none)"]
