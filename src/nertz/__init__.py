"""nertz: the card game Nertz (Nerts, Pounce, Racing Demon), by the real rules.

The rules engine is re-exported here: ``from nertz import Hand, deal, Move``.
"""

from .engine import *  # noqa: F403
from .engine import __all__ as __all__

__version__ = "0.1.0"
