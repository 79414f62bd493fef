"""The settings of the index kinds, declared once and readable without numpy.

Each kind declares its settings (``IndexKnob``: name, role, default, range,
help): ``ranklens ann``'s flags, the Index tab's boxes and the setup keys
``--ann`` reads are derived from them. The command line's parser and the
setup's checks read ``declared()`` here, so neither imports an index (nor numpy)
to know them; ``registry.register_index`` adds a new kind's declaration, and the
index kinds installed packages name in the entry-point group ``ranklens.indexes``
(``VectorIndex`` subclasses) are registered on the first call of ``declared()``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DEFAULT_M = 16
EF_CONSTRUCTION = 128
EF_LADDER = (10, 16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class IndexKnob:
    """One setting of an index kind, declared once on the kind: ``ranklens ann``'s flag, the Index tab's
    box and the setup key ``--ann`` reads are derived from it.

    ``role`` says where the value goes: ``param`` is the build size (``build``'s ``param``), ``knob`` the
    values a sweep visits at search time (a list on the command line), ``option`` another build setting
    passed to ``build`` by name. ``default`` None means the kind picks one for the vectors.
    """

    name: str  # the engine's name, said in its messages: "cells", "n_probe", "ef_construction"
    role: Literal["param", "knob", "option"]
    default: int | None
    minimum: int
    help: str
    flag: str | None = None  # the command line's name; None: --KIND-NAME
    setup: str | None = None  # the ``Setup`` field holding it when a search ranks through the kind (--ann)
    placeholder: str = ""  # what the Index tab's empty box shows
    box: str | None = None  # the Index tab's box id; None: KIND-NAME
    title: str | None = None  # the box's title, short enough for its width; None: the name

    def flag_for(self, kind: str) -> str:
        return self.flag or f"--{kind}-{self.name.replace('_', '-')}".lower()

    def box_for(self, kind: str) -> str:
        return self.box or f"{kind}-{self.name.replace('_', '-')}".lower()

    @property
    def label(self) -> str:
        return self.title or self.name


IVF_SETTINGS = (
    IndexKnob("cells", "param", None, 1, "k-means cells (default: the square root of the vectors)",
              flag="--cells", setup="cells", placeholder="auto", box="ivf-cells"),
    IndexKnob("n_probe", "knob", None, 1, "cells a query visits, the values swept (default 1,2,4… all)",
              flag="--probes", setup="probes", placeholder="1,2,4…all", box="ivf-probes"),
)
HNSW_SETTINGS = (
    IndexKnob("M", "param", DEFAULT_M, 2, "links per node", flag="--hnsw-m", setup="hnsw_m",
              placeholder=str(DEFAULT_M)),
    IndexKnob("ef_construction", "option", EF_CONSTRUCTION, 1, "candidates kept while linking",
              flag="--ef-construction", placeholder=str(EF_CONSTRUCTION), box="hnsw-efc", title="ef_constr"),
    IndexKnob("ef_search", "knob", None, 1, f"the ef_search values swept (default {','.join(map(str, EF_LADDER))})",
              flag="--ef-search", setup="ef_search", placeholder=f"{EF_LADDER[0]},{EF_LADDER[1]}…{EF_LADDER[-1]}",
              box="hnsw-ef"),
)


@dataclass(frozen=True)
class Declared:
    """What the front ends know of a kind before it is imported."""

    settings: tuple[IndexKnob, ...]
    approximate: bool = True  # False: exact search, nothing for ``--ann`` to rank through


# Every registered kind by name, in the registry's order.
DECLARED: dict[str, Declared] = {
    "exact": Declared((), approximate=False),
    "ivf": Declared(IVF_SETTINGS),
    "hnsw": Declared(HNSW_SETTINGS),
}


PLUGIN_GROUP = "ranklens.indexes"
_plugins_loaded = False


def declared() -> dict[str, Declared]:
    """Every registered kind's declaration by name, the installed plug-ins' included."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        from ranklens.engine.registry import plugin_entries

        kinds = plugin_entries(PLUGIN_GROUP)
        if kinds:  # registering imports the index kinds (numpy): only when there are plug-ins
            from ranklens.engine.ann.registry import register_index

            for kind in kinds:
                register_index(kind)
    return DECLARED


def approximate_kinds() -> tuple[str, ...]:
    """The kinds a scorer with vectors may rank through (``--ann``): every kind but exact search."""
    return tuple(name for name, kind in declared().items() if kind.approximate)


def kind_knobs() -> list[tuple[str, IndexKnob]]:
    """Every kind's declared settings, by kind."""
    return [(name, knob) for name, kind in declared().items() for knob in kind.settings]
