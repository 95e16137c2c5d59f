"""A TCP proxy that holds every chunk of bytes a fixed delay, either way, in order: a
far-away client for tests, with the delay under the WebSocket layer, as a network's is
(a page script's own delay is not distance: fair races tell them apart,
docs/fairness.md, "Liars"). It listens on 127.0.0.1, on a free port, in a thread of its
own, and stops with its ``with`` block."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["delayed"]


async def _carry(src: asyncio.StreamReader, dst: asyncio.StreamWriter, delay_s: float) -> None:
    """Each chunk read from ``src`` written to ``dst`` ``delay_s`` after it came."""
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            due, chunk = await queue.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if not chunk:
                dst.close()
                return
            dst.write(chunk)

    sender = asyncio.ensure_future(deliver())
    try:
        while chunk := await src.read(65536):
            queue.put_nowait((time.monotonic() + delay_s, chunk))
    except OSError:
        pass
    queue.put_nowait((time.monotonic() + delay_s, b""))
    await sender


@contextmanager
def delayed(port: int, delay_ms: float) -> Iterator[int]:
    """A proxy to ``127.0.0.1:port`` that holds each chunk ``delay_ms`` each way; yields
    the port it listens on."""
    loop = asyncio.new_event_loop()
    ready: list[asyncio.Server] = []
    started = threading.Event()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            far_reader, far_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            _carry(reader, far_writer, delay_ms / 1000),
            _carry(far_reader, writer, delay_ms / 1000),
            return_exceptions=True,
        )

    async def serve() -> None:
        ready.append(await asyncio.start_server(on_client, "127.0.0.1", 0))
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(serve(), loop)
    assert started.wait(10), "the delay proxy did not start"
    try:
        yield ready[0].sockets[0].getsockname()[1]
    finally:

        async def stop() -> None:
            ready[0].close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
