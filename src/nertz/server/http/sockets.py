"""The WebSocket routes: ``/ws`` play or watch (a thin adapter: all of it is
``session.PlaySession``), ``/echo`` a bare echo on the same stack (the load benchmark's
baseline), its connections counted with ``/ws``'s."""

from __future__ import annotations

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from nertz.server.door.edge import client_address
from nertz.server.http.services import Services
from nertz.server.http.session import PlaySession

__all__ = ["socket_routes"]


def socket_routes(services: Services) -> list[BaseRoute]:
    """``/ws`` and ``/echo``."""
    quotas, metrics = services.quotas, services.metrics

    async def play_ws(websocket: WebSocket) -> None:
        await PlaySession(services, websocket).run()  # session.py: all of /ws

    async def echo_ws(websocket: WebSocket) -> None:
        address = client_address(websocket.scope)
        refusal = quotas.open_connection(address)  # counted with /ws's: bounded alike
        if refusal is not None:
            metrics.refused(refusal.code)
            await websocket.close(1013, refusal.code)
            return
        try:
            await websocket.accept()
            while True:
                await websocket.send_text(await websocket.receive_text())
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            quotas.close_connection(address, False)

    return [WebSocketRoute("/ws", play_ws), WebSocketRoute("/echo", echo_ws)]
