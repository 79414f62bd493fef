"""The command line's argparse pieces: the parser, option value types, and the setup options.

The setup options are derived from the settings declared on ``Setup`` and on the scorers' specs
(a plug-in's ``--boost``). Every setting with an option gets one (``--k1``, ``--bm25-variant``,
``--sublinear-tf`` / ``--no-sublinear-tf``...), with its help, default and choices from the
declaration; a new setting or scorer shows up here without an edit. Values are parsed here so a
bad one names its flag; the engine then checks how they combine.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, NoReturn
from collections.abc import Callable

from ranklens.cli.output import tell
from ranklens.engine.settings import LANGUAGES, Setting
from ranklens.engine.setup import all_settings
from ranklens.engine.setup import declared_settings
from ranklens.engine.scoring.registry import readers

# Settings the command line leaves to ranklens.toml: how scores are printed.
_TOML_ONLY = frozenset({"decimals"})
COMMAND_LINE = "command line"  # the source of settings given as options, in engine messages
_OWNED = "command_options"  # the setup settings whose option a command defines itself
_FLAGLESS = "flagless_settings"  # why a scorer's own setting has no flag in this command (warnings)


class UsageError(Exception):
    """An option or argument the parser rejected."""


class Parser(argparse.ArgumentParser):
    """The parser of ``ranklens`` and its subcommands: a rejected argument raises ``UsageError``.

    Options are never abbreviated: argparse would read ``--k 0`` as ``--k1 0`` and rank with another BM25
    without a word, where the user meant ``-k``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})
        # the scorers' own settings, added once the command has added its own options (see add_setup_options)
        self.scorer_settings: list[tuple[argparse._ArgumentGroup, Setting]] = []

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self._add_scorer_settings()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self._add_scorer_settings()
        return super().format_usage()

    def format_help(self) -> str:
        self._add_scorer_settings()
        return super().format_help()

    def _add_scorer_settings(self) -> None:
        """A plug-in scorer cannot know the options of every command: a setting of its own named like one
        (``--backend``, ``--output``, ``--json``) leaves the option to the command and has no flag there,
        said by a warning when the command runs; ranklens.toml and the API still set it."""
        pending, self.scorer_settings = self.scorer_settings, []
        flagless: list[str] = []
        for group, spec in pending:
            flags = _flags(spec)
            taken = next((flag for flag in flags if flag in self._option_string_actions), None)
            if taken is None:
                group.add_argument(flags[0], **_option(spec, f"--scorer {readers(spec.name)[0].name}: "))
                continue
            self.set_defaults(**{_OWNED: self.get_default(_OWNED) | {spec.name}})
            flagless.append(f"scorer {readers(spec.name)[0].name}'s setting {spec.name!r} has no flag in "
                            f"`{self.prog}`: {taken} is the command's own (set it in ranklens.toml)")
        if flagless:
            self.set_defaults(**{_FLAGLESS: tuple(flagless)})

    # argparse prints usage and exits on its own; we want one line and status 2 from main()
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {_once(message)}")


def _once(message: str) -> str:
    """argparse's ``argument --x: MESSAGE`` without the prefix when MESSAGE names the option itself
    (the value types here name their flag, so it would read ``argument --x: --x: ...``)."""
    prefix, colon, rest = message.partition(": ")
    names = prefix.removeprefix("argument ").split("/") if prefix.startswith("argument ") else []
    if colon and any(rest.startswith(f"{name} ") or rest.startswith(f"{name}:") for name in names):
        return rest
    return message


def int_at_least(name: str, low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number (got {text!r})") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{name} must be at least {low} (got {value})")
        return value

    return parse


def float_between(name: str, low: float, high: float = math.inf) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {text!r})") from None
        # float() also accepts "nan" and "inf", which would make every score nan or 0
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be a finite number (got {text!r})")
        if not low <= value <= high:
            bound = f"{low:g} or more" if high == math.inf else f"between {low:g} and {high:g}"
            raise argparse.ArgumentTypeError(f"{name} must be {bound} (got {text})")
        return value

    return parse


def int_list(name: str, low: int) -> Callable[[str], list[int]]:
    """Whole numbers separated by commas (``--probes 1,2,4``), each at least ``low``."""
    def parse(text: str) -> list[int]:
        try:
            values = [int(p) for p in text.split(",") if p.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} takes whole numbers separated by commas (got {text!r})") from None
        if not values or min(values) < low:
            raise argparse.ArgumentTypeError(f"{name} values must be at least {low} (got {text!r})")
        return values

    return parse


def names(text: str) -> list[str]:
    """Names separated by commas (``--index exact,ivf``)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _stopwords(text: str) -> str:
    # Checked here, not when the index is built, so the message names the option.
    if text in ("none", *LANGUAGES) or Path(text).is_file():
        return text
    raise argparse.ArgumentTypeError(
        f"--stopwords: {text!r} is neither none, a language ({', '.join(LANGUAGES)}) nor a file"
    )


def _flags(spec: Setting) -> tuple[str, ...]:
    """The option strings a setting's flag takes: a yes/no setting's ``--no-`` form too."""
    flag = spec.option or ""
    return (flag, "--no-" + flag.removeprefix("--")) if spec.kind is bool else (flag,)


def _option(spec: Setting, reader: str = "") -> dict[str, Any]:
    """add_argument keywords for one setting; ``reader`` starts its help (the scorer that reads it)."""
    flag = spec.option or ""
    default = spec.default if not isinstance(spec.default, tuple) else ",".join(spec.default)
    help_text = reader + (spec.help if spec.default is None else f"{spec.help} (default {default})")
    keywords: dict[str, Any] = {"dest": spec.name, "default": None, "help": help_text}
    if spec.metavar:
        keywords["metavar"] = spec.metavar
    if spec.kind is bool:
        keywords["action"] = argparse.BooleanOptionalAction
    elif spec.name == "stopwords":
        keywords["type"] = _stopwords
    elif spec.kind is int:
        keywords["type"] = int_at_least(flag, int(spec.minimum if spec.minimum is not None else -math.inf))
    elif spec.kind is float:
        keywords["type"] = float_between(flag, spec.minimum if spec.minimum is not None else -math.inf,
                                         spec.maximum if spec.maximum is not None else math.inf)
    elif spec.kind is str and spec.allowed() is not None:
        keywords["choices"] = spec.allowed()
    return keywords


def add_setup_options(parser: Parser, with_k: bool = True) -> None:
    """The setup's options on ``parser``; one the command already has (``ann``'s ``--ef-search``, a list it
    sweeps) stays the command's, and is no setting there. The scorers' own settings are added when the
    parser is first used, so that an option the command adds after these stays the command's too."""
    group = parser.add_argument_group("setup (defaults from the corpus' ranklens.toml)")
    declared = declared_settings()
    own = parser.add_argument_group("the scorers' own settings (each read by its scorer alone)") if declared else group
    owned = []
    for spec in all_settings().values():
        if spec.option is None or spec.name in _TOML_ONLY or (spec.name == "k" and not with_k):
            continue
        if spec.name in declared:
            parser.scorer_settings.append((own, spec))
        elif spec.option in parser._option_string_actions:
            owned.append(spec.name)
        else:
            group.add_argument(spec.option, **_option(spec))
    parser.set_defaults(**{_OWNED: frozenset(owned)})
    group.add_argument("--sentences", dest="chunker", action="store_const", const="sentences",
                       help="chunk by whole sentences (--overlap in sentences); short for --chunker sentences")


def add_workspace_options(parser: argparse.ArgumentParser, measures: bool = True) -> None:
    """``--workspace DIR``, and for a command that measures ``--no-workspace`` (the corpus' judgments alone;
    the workspace still holds the runs)."""
    parser.add_argument("--workspace", metavar="DIR",
                        help="the workspace folder (default: the corpus' folder under $XDG_DATA_HOME/ranklens)")
    if measures:
        parser.add_argument("--no-workspace", action="store_true",
                            help="measure with the corpus' own judgments alone, not the workspace's (its runs "
                                 "still count)")


def option_of(setting: str) -> str:
    """The flag that sets ``setting`` (the setting's name when it has none)."""
    spec = all_settings().get(setting)
    return (spec.option if spec else None) or setting


def setup_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The setup options given on the command line, by setting name."""
    owned: frozenset[str] = getattr(args, _OWNED, frozenset())
    for flagless in getattr(args, _FLAGLESS, ()):
        tell("warning", flagless)
    values = {name: None if name in owned else getattr(args, name, None) for name in all_settings()}
    if values["overlap"] is not None and values["size"] is None:
        raise UsageError("ranklens: --overlap needs --size")
    return {key: value for key, value in values.items() if value is not None}
