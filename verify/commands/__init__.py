"""The command line's commands, one module each: ``list`` (:mod:`.listing`), ``render``, ``profile``, ``design``,
``contract``, and the claims run (:mod:`.run`: ``python -m verify CLAIM ... | all``). Each module has
``run(args) -> int`` (the exit status); :func:`command_for` picks the module from the first word, as
``python -m verify`` reads it (:mod:`verify.cli` parses the options)."""
from __future__ import annotations

import importlib

from ..registry import UsageError

#: the first word that names a command → its module (any other first word is a claim id or ``all``)
COMMANDS = {"list": "listing", "render": "render", "profile": "profile", "design": "design", "contract": "contract"}


#: the module of the claims run (any first word but a command's)
CLAIMS_RUN = importlib.import_module(".run", __name__)


def command_for(words: list[str]):
    """The module of the command the positional words name (imported on first use)."""
    if words and words[0] in COMMANDS:
        return importlib.import_module(f".{COMMANDS[words[0]]}", __name__)
    if "list" in words:
        raise UsageError("'list' must come first: `python -m verify list [PAPER or CLAIM ...]`")
    return CLAIMS_RUN
