"""A token bucket: a rate with a burst, in whatever clock its caller keeps (seconds).
Every rate limit of the server is one (``limits.py``'s quotas, a table's own limits on
events, ``table/lifetimes.py``); it imports nothing, so the sans-I/O table can use it."""

from __future__ import annotations

__all__ = ["TokenBucket"]


class TokenBucket:
    """``rate`` a second with a ``burst``; ``take`` spends one or says how long until
    one is there."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at = now

    def take(self, now: float) -> float:
        """0.0 if a token was spent, else the seconds until one would be."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate if self.rate > 0 else 3600.0

    def wait(self, now: float) -> float:
        """The seconds until ``take`` would spend a token (0.0: now); spends nothing."""
        tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        if tokens >= 1:
            return 0.0
        return (1 - tokens) / self.rate if self.rate > 0 else 3600.0

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.rate >= self.burst
