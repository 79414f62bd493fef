"""The command palette's rows (ctrl+p): every action the app offers now, each with the key that runs it.

The app's keys and the active tab's come from the bindings (tui/key_map.py); then the settings no key
steps, the workspace's imports and exports, the corpora to open and the collections to rank through.
tui/palette.py matches and presents them.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from ranklens.tui.extras import neural_missing, neural_settings, unavailable_scorers
from ranklens.tui.key_map import app_rows, own_bindings, rows_for
from ranklens.tui.palette import PaletteCommand
from ranklens.tui.setting_steps import setting_steps
from ranklens.tui.setting_text import setting_title, shown, typed_settings

if TYPE_CHECKING:
    from ranklens.tui.app import RanklensApp


SCORER_STEP = "setting('scorer')"  # the action of s, "Next scorer"
COUNT_MINE = "count_mine"  # the action of M, "Count my judgments: on/off"


def palette_commands(app: RanklensApp) -> list[PaletteCommand]:
    """Every action: the app's keys, the active tab's, key-less settings, corpora to open."""
    from ranklens.corpora import bundled_corpora
    from ranklens.engine.backends.registry import backend_specs, retrievers_in
    from ranklens.tui.workspace_files import WORKSPACE_FILES

    active_tab = str(app.query_one("#tabs", TabbedContent).active)
    rows = [row for row in app_rows(app) if row.action not in ("command_palette", "help_while_typing")]
    active = app.tab_panes.get(active_tab)  # None only in the instant its tab is being built
    if active is not None:
        # the pane's own actions (copy, save, ...), not the cursor keys of the widgets inside it
        # ("app." actions: the app's keys a pane shows in its footer, already listed)
        rows += rows_for(app, app.tabs[active_tab].title, active,
                         [b for b in own_bindings(active) if not b.action.startswith("app.")])
    # What cannot run here is said on the entry, before it is chosen (tui/extras.py).
    missing, skipped = neural_missing(), unavailable_scorers()
    skips = f" · skips {', '.join(skipped)}: {missing}" if skipped else ""
    now = {SCORER_STEP: skips, COUNT_MINE: f" · now {'on' if app.session.counting else 'off'}"}
    commands = [PaletteCommand(row.description, partial(app.run_command, row.action, row.owner),
                               f"{row.where} · key {row.keys}" + now.get(row.action, ""))
                for row in rows]
    commands += [PaletteCommand(f"Setting: {step.description}", partial(app.action_setting, step.id),
                                "no key: palette only")
                 for step in setting_steps() if step.key is None]
    context = app.session.context
    if context is not None:
        neural = neural_settings() if missing else frozenset()
        commands += [PaletteCommand(f"Set {setting_title(name)}…", partial(app.action_type_setting, name),
                                    (f"unavailable: {missing} · " if name in neural else "")
                                    + f"now {shown(context.setup.value_of(name))} · typed: no key")
                     for name in typed_settings()]
    commands += [PaletteCommand(entry.name, partial(app.action_workspace_file, entry.name),
                                "the corpus' workspace: " + ("into it" if entry.imports else "out of it"))
                 for entry in WORKSPACE_FILES]
    commands += [PaletteCommand(f"Open corpus {name}", partial(app.switch_corpus, name), description)
                 for name, description in bundled_corpora()]
    commands.append(PaletteCommand("Open corpus from a path…", app.action_open_path,
                                   "a BEIR folder, a folder of .txt/.md files or a .jsonl file"))
    commands += [PaletteCommand(f"Open a {spec.label} collection…", partial(app.action_open_collection, spec.name),
                                "rank the open corpus through a collection made by ranklens push"
                                + (f" (the {spec.extra} extra)" if spec.extra else ""))
                 for spec in backend_specs() if spec.named]
    if context is not None and context.workspace is not None:
        folder = context.workspace.root / "retrievers"
        commands += [PaletteCommand(f"Rank through {target.replace(f'{folder}/', '')}",
                                    partial(app.collections.open, target, None),
                                    "your retriever, in the workspace's retrievers/ folder (docs/retrievers.md)")
                     for target in retrievers_in(folder)]
    backend = app.session.backend
    if backend is not None:
        commands.append(PaletteCommand("Use the local index", app.action_use_local_index,
                                       f"rank locally again, not through {backend.label}"))
    return commands
