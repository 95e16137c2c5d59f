"""HTTP requests: a JSON body read into a message, and a refusal as a JSON answer.

Every refused request is ``{"error": code, "reason": sentence}`` with its status
(docs/protocol.md); ``RequestError`` is the base of the lobby's and the sheets' errors.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

__all__ = ["RequestError", "decode_body", "error_response"]

T = TypeVar("T")


class RequestError(ValueError):
    """A request that cannot be done: a code, a sentence and an HTTP status."""

    def __init__(self, code: str, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.status = status

    def response(self) -> JSONResponse:
        return error_response(self.code, self.reason, self.status)


def error_response(code: str, reason: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": code, "reason": reason}, status_code=status)


async def decode_body(request: Request, kind: type[T], what: str) -> T:
    """The body as a ``kind``; ``bad_json`` or ``bad_field`` naming what was wrong, and
    ``body_incomplete`` when the client went away before all of it came (an ordinary
    refusal, not a server error in the log: the answer goes nowhere)."""
    try:
        body = await request.body()
    except ClientDisconnect:
        raise RequestError(
            "body_incomplete", f"the {what} request's body did not all come: the client left"
        ) from None
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as error:
        raise RequestError("bad_field", f"bad {what}: {error}") from None
    except msgspec.DecodeError as error:
        raise RequestError("bad_json", f"not a JSON object: {error}") from None
