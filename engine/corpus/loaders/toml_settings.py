"""A corpus folder's ``ranklens.toml``: its settings, validated, and the files they name (a stop list)."""
from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.grades import GRADE_KEY, check_declared
from ranklens.engine.corpus.loaders.reading import reading
from ranklens.engine.setup import LANGUAGES, Setup


def read_settings(folder: Path) -> dict[str, Any]:
    """The folder's ranklens.toml, validated, with a stopwords file made absolute."""
    toml_path = folder / "ranklens.toml"
    if not toml_path.exists():
        return {}
    with reading(toml_path):
        raw = toml_path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RanklensError(f"{toml_path}: not valid TOML ({error})") from None
    except RecursionError:
        raise RanklensError(f"{toml_path}: not valid TOML (nested too deeply)") from None
    stopwords = data.get("stopwords")
    if isinstance(stopwords, str) and stopwords not in ("none", *LANGUAGES):
        # A stop list is named relative to the corpus; checked now so the message names the toml.
        if not (folder / stopwords).is_file():
            raise RanklensError(f"{toml_path}: stopwords {stopwords!r} is neither none, a language "
                                f"({', '.join(LANGUAGES)}) nor a file next to it")
        data["stopwords"] = str((folder / stopwords).resolve())
    if GRADE_KEY in data:  # the grade scale is the corpus', not a setting of a setup
        check_declared(data[GRADE_KEY], str(toml_path))
    Setup.from_mapping({k: v for k, v in data.items() if k != GRADE_KEY}, source=str(toml_path))
    return data


def settings_files(settings: Mapping[str, Any]) -> set[Path]:
    """Files the settings point at (a stop list), which are not documents."""
    stopwords = settings.get("stopwords")
    return {Path(stopwords)} if isinstance(stopwords, str) and Path(stopwords).is_absolute() else set()
