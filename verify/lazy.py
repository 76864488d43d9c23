"""Modules imported on first use, so that listing claims (and refusing bad input) does not import torch or
scipy.stats. A :class:`lazy_module` is a stand-in whose first attribute access performs an ordinary import."""
from __future__ import annotations

import importlib


class lazy_module:  # noqa: N801 - used like a module
    """A module imported on first use: ``stats = lazy_module("scipy.stats")``; ``stats.t.ppf(…)`` imports it then.

    Listing claims and refusing bad input then stay fast (torch and scipy.stats are not imported).

    Parameters
    ----------
    name : str
        The module's dotted name.

    Examples
    --------
    >>> from verify.api import lazy_module
    >>> special = lazy_module("scipy.special")
    >>> special
    <lazy module 'scipy.special'>
    >>> float(special.gamma(5))
    24.0
    """

    def __init__(self, name: str):
        self.__dict__["_name"] = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self.__dict__["_name"]), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_name']!r}>"
