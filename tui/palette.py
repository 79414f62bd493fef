"""The command palette's provider (ctrl+p): every action the app offers, by name.

The app builds the list (its key bindings, the active tab's, the settings that
have no key, the corpora to open); this class only matches and presents it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

if TYPE_CHECKING:
    from ranklens.tui.app import PaletteCommand, RanklensApp


class RanklensCommands(Provider):
    @property
    def _commands(self) -> list[PaletteCommand]:
        return cast("RanklensApp", self.app).palette_commands()

    async def discover(self) -> Hits:
        for command in self._commands:
            yield DiscoveryHit(Content(command.name), command.run, text=command.name, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands:
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, text=command.name, help=command.help)
