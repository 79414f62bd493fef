"""Suite-wide isolation: caches go to a temporary folder, never the user's."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    import os

    os.environ["RANKLENS_CACHE_DIR"] = str(tmp_path_factory.mktemp("ranklens-cache"))
    # workspaces (judgments, saved runs) default to the XDG data folder: never the user's in tests
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("ranklens-data"))
