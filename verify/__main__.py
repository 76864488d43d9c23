"""``python -m verify``: see :mod:`verify._start` for what happens before the command line is read."""
from ._start import run

run()
