"""The TUI ranks through a retriever of the workspace's retrievers/ folder, chosen from the palette."""
from __future__ import annotations

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.workspace.store import Workspace
from tests.support.app import notifications, running, search, settle, setup_line
from tests.support.ranking_server import mapping, serving

QUERY = "rimborso auto"


@pytest.mark.asyncio
async def test_the_palette_lists_the_workspaces_retrievers_and_ranks_through_one() -> None:
    chunks = load_corpus("studio-alfa").chunks
    ranking = [(chunks[i].id, 3.0 - rank / 10, None) for rank, i in enumerate((7, 2, 11))]  # not BM25's order
    with serving({QUERY: ranking}) as server:
        async with running("studio-alfa", backend=None) as pilot:
            folder = Workspace.for_corpus(pilot.app.session.context.corpus).root / "retrievers"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "search.toml").write_text(mapping(server.url), encoding="utf-8")
            (folder / "notes.txt").write_text("not a retriever", encoding="utf-8")
            rows = [c for c in pilot.app.palette_commands() if c.name.startswith("Rank through")]
            assert [c.name for c in rows] == ["Rank through endpoint:search.toml"]
            assert not [c for c in pilot.app.palette_commands() if "HTTP endpoint collection" in c.name]
            rows[0].run()
            await settle(pilot)
            assert any("ranking through endpoint:search.toml" in n for n in notifications(pilot.app)), \
                notifications(pilot.app)
            assert "through endpoint:search.toml" in setup_line(pilot.app)
            pane = await search(pilot, QUERY)
            assert [(row.hit.chunk.id, row.hit.score) for row in pane._found.rows] == \
                [(ident, score) for ident, score, _ in ranking]


@pytest.mark.asyncio
async def test_the_tui_opened_with_a_backend_ranks_through_the_endpoint(tmp_path) -> None:  # noqa: ANN001
    from ranklens.engine.backends.registry import open_target

    chunks = load_corpus("studio-alfa").chunks
    ranking = [(chunks[i].id, 2.0 - rank / 10, None) for rank, i in enumerate((4, 9))]
    stranger = ("faq-17", 1.95, None)  # between the two: not in the corpus, it keeps rank 2
    with serving({QUERY: [ranking[0], stranger, ranking[1]]}) as server:
        (tmp_path / "search.toml").write_text(mapping(server.url), encoding="utf-8")
        backend = open_target(f"endpoint:{tmp_path / 'search.toml'}")  # as `ranklens C --backend ...` opens it
        async with running("studio-alfa", backend=backend) as pilot:
            assert "through endpoint:search.toml" in setup_line(pilot.app)
            pane = await search(pilot, QUERY)
            assert [(row.hit.rank, row.hit.chunk.id) for row in pane._found.rows] == \
                [(1, ranking[0][0]), (3, ranking[1][0])]
            assert "hits not in the corpus: #2 faq-17" in pane._found.lost
