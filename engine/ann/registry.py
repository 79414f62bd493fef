"""The index kinds by name: what ``ranklens ann --index`` and the index sweep accept.

A new kind is one module in ``engine/ann/`` (a ``VectorIndex`` subclass)
plus one entry in ``INDEX_KINDS``; a plug-in outside the package calls
``register_index`` instead. Either way that one line is all: ``ann --index``,
``--ann`` and the Index tab read the kind's declared ``settings`` from here.
"""
from __future__ import annotations

from collections.abc import Mapping

from ranklens.engine.errors import RanklensError
from ranklens.engine.ann.base import IndexSettingError, VectorIndex
from ranklens.engine.ann.exact import ExactIndex
from ranklens.engine.ann.hnsw import HNSWIndex
from ranklens.engine.ann.ivf import IVFIndex
from ranklens.engine.ann import knobs

INDEX_KINDS: dict[str, type[VectorIndex]] = {
    ExactIndex.kind: ExactIndex,
    IVFIndex.kind: IVFIndex,
    HNSWIndex.kind: HNSWIndex,  # usearch, imported when one is built (the hnsw extra)
}

def register_index(kind: type[VectorIndex]) -> type[VectorIndex]:
    """Add an index kind under its ``kind`` name (usable as a class decorator)."""
    if kind.kind in INDEX_KINDS and INDEX_KINDS[kind.kind] is not kind:
        raise ValueError(f"an index kind named {kind.kind!r} is already registered")
    INDEX_KINDS[kind.kind] = kind
    knobs.DECLARED[kind.kind] = knobs.Declared(kind.settings, kind.approximate)
    return kind


def index_kind(name: str) -> type[VectorIndex]:
    """The kind registered as ``name`` (the installed plug-ins' looked for first)."""
    knobs.declared()
    try:
        return INDEX_KINDS[name]
    except KeyError:
        raise RanklensError(f"unknown index {name!r} (choose from {', '.join(INDEX_KINDS)})") from None


def build_options(kind: str, given: Mapping[str, int] | None = None) -> dict[str, int]:
    """The build options of ``kind``: its defaults, overridden by ``given``, whose names it must know."""
    defaults = {knob.name: knob.default for knob in index_kind(kind).settings
                if knob.role == "option" and knob.default is not None}
    for name in given or {}:
        if name not in defaults:
            raise IndexSettingError(name, f"{{setting}} does not apply to the {kind} index")
    return {**defaults, **(given or {})}
