"""A package whose private modules reach users through public names (each way
of reaching them is one fixture of tests/test_lbdefaults.py)."""

from . import _modimported
from ._reexported import reexported
from ._starred import *  # noqa: F403
