"""How fast the door answers one address's refusals: a refused client that asks again
at once is answered later, not at once.

A client over a quota that keeps asking gets the same ``429`` back each time (the
``Door``). Answered at once, a script with eight requests in flight is answered as
fast as it can ask: 18,000 refusals a second from seven addresses took most of a core
(``bench/abuse.py``, issue 24), while each refusal told the client nothing new. So
each address's refusals are paced (the generic cell rate algorithm, a token bucket
that queues): a burst of ``burst`` is answered at once, then ``rate`` a second; the
others wait their turn, their connection not read meanwhile (``edge.HeadGate``). A
client asking faster only waits longer; one whose turn is more than ``max_wait_s``
away has its connection closed with no answer. A person who is refused now and then
never waits: the burst covers them.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["RefusalPace"]


class RefusalPace:
    """Turns for each address's refusals: ``burst`` at once, then ``rate`` a second,
    each at most ``max_wait_s`` away. At most ``cap`` addresses are kept; past that
    those whose turns are all past are forgotten first, then the oldest."""

    def __init__(
        self,
        rate: float,
        burst: int,
        max_wait_s: float,
        clock: Callable[[], float],
        cap: int = 10_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(
                f"a refusal pace needs a rate above 0 and a burst of 1 or more, "
                f"not {rate} and {burst}"
            )
        self.interval = 1.0 / rate
        self.tolerance = (burst - 1) * self.interval
        """How far ahead of now an address's next turn may be and still be now."""
        self.max_wait_s = max_wait_s
        self.clock, self.cap = clock, cap
        self.due: dict[str, float] = {}
        """Address -> when its next refusal would be answered if nothing came before."""

    def turn(self, address: str) -> float | None:
        """The seconds ``address``'s refusal waits before it is answered (0.0: now), its
        turn taken; None when that is more than ``max_wait_s``: no turn is taken, the
        caller closes the connection instead."""
        now = self.clock()
        due = max(self.due.get(address, now), now)
        wait = max(0.0, due - now - self.tolerance)
        if wait > self.max_wait_s:
            return None
        if address not in self.due and len(self.due) >= self.cap:
            self._forget(now)
        self.due[address] = due + self.interval
        return wait

    def _forget(self, now: float) -> None:
        """Room for one more address: those with no turn ahead, else the oldest."""
        past = [address for address, due in self.due.items() if due <= now]
        for address in past:
            del self.due[address]
        if not past:
            del self.due[next(iter(self.due))]
