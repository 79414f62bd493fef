"""Suite-wide isolation: caches go to a temporary folder, never the user's; apps run without animations."""
from __future__ import annotations

import pytest
import textual.constants

# The tab underline slides to the active tab: on a loaded machine a snapshot caught it mid-slide.
# App reads this when it is made, so every app of the suite (and a subprocess, by the variable) keeps still.
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    import os

    os.environ["RANKLENS_CACHE_DIR"] = str(tmp_path_factory.mktemp("ranklens-cache"))


@pytest.fixture(autouse=True)
def _isolated_workspaces(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Workspaces (judgments, saved runs) default to the XDG data folder: never the user's in tests, and
    # one per test, since every measure counts the default workspace's judgments.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("ranklens-data")))
