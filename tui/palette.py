"""The command palette (ctrl+p): every action the app offers, by name.

The app builds the list (its key bindings, the active tab's, the settings that
have no key, the corpora to open); the provider here only matches and
presents it. It knows the app only as an ``OffersCommands``, so this module
does not import the app that imports it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content


@dataclass(frozen=True)
class PaletteCommand:
    name: str
    run: Callable[[], Any]
    help: str


class OffersCommands(Protocol):
    def palette_commands(self) -> list[PaletteCommand]:
        """Every command the palette offers now (they depend on the active tab)."""
        ...


class RanklensCommands(Provider):
    @property
    def _commands(self) -> list[PaletteCommand]:
        return cast(OffersCommands, self.app).palette_commands()

    async def discover(self) -> Hits:
        for command in self._commands:
            yield DiscoveryHit(Content(command.name), command.run, text=command.name, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands:
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, text=command.name, help=command.help)
