"""nertz: the card game Nertz (Nerts, Pounce, Racing Demon), by the real rules.

The rules engine is re-exported here: ``from nertz import Hand, deal, Move``.
"""

from . import compiled

compiled.choose()  # before the engine is first imported: a stale build is not used

from .engine import *  # noqa: E402, F403
from .engine import __all__ as __all__  # noqa: E402

__version__ = "0.1.0"
