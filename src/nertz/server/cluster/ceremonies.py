"""Passkey ceremonies across a cluster's nodes (``lobby/passkeys.py``): the balancer
needs no sticky sessions (docs/cluster.md), so a ceremony's two requests may reach two
nodes. The node that begins one keeps it in its memory as always, and in Redis too
(``nertz:ceremony:ID``, for the ceremony's lifetime); the node that gets the answer
takes it out of Redis with one ``GETDEL``, so it answers once whichever node gets it.
Redis away: each node's memory still serves the ceremonies begun there (a warning is
logged), as a single server's does."""

from __future__ import annotations

import json
import logging
import math

import redis

from nertz.server.cluster.node import ClusterNode
from nertz.server.lobby.passkeys import Ceremonies, Ceremony

__all__ = ["CEREMONY_KEY", "shared_keep", "shared_take"]

CEREMONY_KEY = "nertz:ceremony:"
_ID_MAX = 64
log = logging.getLogger("nertz.cluster")


def _encode(ceremony: Ceremony) -> bytes:
    body = {
        "kind": ceremony.kind,
        "challenge": ceremony.challenge.hex(),
        "account": ceremony.account,
        "name": ceremony.name,
    }
    return json.dumps(body).encode()


def _decode(raw: bytes | str, ceremonies: Ceremonies) -> Ceremony | None:
    try:
        body = json.loads(raw)
        challenge = bytes.fromhex(body["challenge"])
    except (ValueError, KeyError, TypeError):
        return None
    # Redis dropped it at its lifetime's end: one found is still good, for a moment.
    expires = ceremonies.clock() + 1.0
    return Ceremony(body["kind"], challenge, expires, body.get("account"), body.get("name"))


async def shared_keep(node: ClusterNode | None, ceremonies: Ceremonies, ceremony_id: str) -> None:
    """Keep the ceremony just begun in the cluster's Redis too (nothing alone)."""
    ceremony = ceremonies.peek(ceremony_id)
    if node is None or ceremony is None:
        return
    try:
        await node.redis.set(
            CEREMONY_KEY + ceremony_id, _encode(ceremony), ex=math.ceil(ceremonies.lifetime_s)
        )
    except (redis.RedisError, OSError) as error:
        log.warning("node %s could not share a passkey ceremony: %r", node.id, error)
        return
    ceremonies.mark_shared(ceremony_id)


async def shared_take(
    node: ClusterNode | None, ceremonies: Ceremonies, ceremony_id: str, kind: str
) -> Ceremony:
    """``Ceremonies.take``, across the cluster: the ceremony begun on any node, once."""
    if node is None or len(ceremony_id) > _ID_MAX:  # no id of ours is that long
        return ceremonies.take(ceremony_id, kind)
    try:
        raw = await node.redis.getdel(CEREMONY_KEY + ceremony_id)
    except (redis.RedisError, OSError) as error:
        log.warning("node %s could not take a passkey ceremony: %r", node.id, error)
        return ceremonies.take(ceremony_id, kind)
    elsewhere = None if raw is None else _decode(raw, ceremonies)
    return ceremonies.take(ceremony_id, kind, elsewhere, asked_elsewhere=True)
