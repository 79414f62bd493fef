"""The contract of a nearest-neighbour index over unit vectors: build, search with a knob, stats.

An index kind is a subclass of ``VectorIndex`` registered in
``engine/ann/registry.py``. It is built once over the corpus' vectors
(rows of norm 1, so the inner product is the cosine) and searched many times;
a *knob* trades work for recall at search time (``n_probe`` for IVF, later
``ef_search`` for HNSW). The index sweep (``engine/ann/sweep.py``) turns
the knob through ``knob_values()`` and measures each value against exact
search, so a new kind only has to say how it builds, searches and counts.

What an index reports per query is what it *compared*: the vectors whose
score it computed, centroids or graph hops included. That is the cost
axis of the lesson's table (seed 004), independent of the machine.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Self

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.ann.knobs import IndexKnob
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.settings import SettingError

if TYPE_CHECKING:
    from ranklens.engine.ann.vectors import VectorSet


class IndexSettingError(SettingError):
    """A bad value of one index setting, said with the engine's name for it ("cells", "n_probe").

    ``template`` holds ``{setting}`` where the name goes; ``naming`` says the
    same with a front end's name for it (the CLI's ``--cells``, a TUI box).
    """

    def __init__(self, setting: str, template: str) -> None:
        self.template = template
        super().__init__(setting, template.replace("{setting}", setting))

    def naming(self, name: str) -> str:
        return self.template.replace("{setting}", name)


@dataclass(frozen=True, eq=False)
class Found:
    """The answer to a batch of queries.

    ``ids`` and ``scores`` are (queries x k), best first, ties by lower id;
    a row with fewer than k candidates is padded with id -1 and score -inf.
    ``compared`` holds, per query, how many vectors had their score computed.
    """

    ids: np.ndarray
    scores: np.ndarray
    compared: np.ndarray


@dataclass(frozen=True)
class IndexStats:
    build_s: float  # seconds from vectors to a searchable index
    bytes: int  # memory the index holds (its arrays), vectors it keeps a copy of included


class VectorIndex(ABC):
    """An index kind. Subclasses set ``kind`` and ``description`` and implement the abstract methods.

    ``param`` names the one size chosen at build time (``cells`` for IVF,
    None when there is none); ``knob`` the one turned at search time
    (``n_probe``; None for an exact index, which has nothing to trade).
    A kind is registered in ``engine/ann/registry.py`` (see there).
    """

    kind: ClassVar[str]  # the registry's name: "ivf"
    description: ClassVar[str]  # one line for help texts
    param: ClassVar[str | None] = None
    knob: ClassVar[str | None] = None
    settings: ClassVar[tuple[IndexKnob, ...]] = ()  # every setting a user may give, each declared once
    approximate: ClassVar[bool] = True  # False: ranks as exact search does, nothing for ``--ann`` to choose

    @classmethod
    def setting(cls, role: str) -> IndexKnob | None:
        """The declared setting playing ``role`` (``param``, ``knob``), if the kind has one."""
        return next((knob for knob in cls.settings if knob.role == role), None)

    @classmethod
    def default_param(cls, vectors: VectorSet) -> int | None:
        """The build parameter to use on these vectors when the user gives none."""
        return None

    @classmethod
    def check_settings(cls, param: int | None, knob_values: list[int] | None) -> None:
        """Reject settings that cannot work whatever the vectors, before any vector is computed.

        Raises ``IndexSettingError``; by default everything passes.
        """
        return None

    @classmethod
    @abstractmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress) -> Self:
        """Index ``vectors`` (n x d, unit rows); ``param`` None means the kind's default.

        ``progress`` may raise ``Cancelled``: a build reports between its
        steps, so that is where it can be stopped.
        """

    @abstractmethod
    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        """The k best vectors per query (rows of ``queries``); ``knob`` None means the kind's default."""

    @abstractmethod
    def knob_values(self) -> list[int]:
        """The knob's values a sweep visits, cheapest first; the last one is the most exact.

        Empty when the kind has no knob.
        """

    @property
    @abstractmethod
    def stats(self) -> IndexStats:
        """How long the build took and how much memory the index holds."""

    @property
    def param_value(self) -> int | None:
        """The build parameter this index was built with."""
        return None

    def default_knob(self) -> int | None:
        """The knob a search turns when the user gives none; None: ``search``'s own default."""
        return None

    @property
    def warnings(self) -> tuple[str, ...]:
        """What is doubtful about this index (too few vectors per cell, ...), in the engine's words."""
        return ()


def check_k(k: int) -> None:
    if k < 1:
        raise RanklensError(f"k must be at least 1 (got {k})")
