"""An HTTP/1.1 client on asyncio's streams: the abuse benchmark's attackers, made light.

``bench/abuse.py`` runs its attackers in a process on the same two cores as the server
it measures, where on a real server they would be on other machines. What an attacker
spends per request is taken from the server, so this client does the least an attack
needs: keep-alive connections from a chosen local address, a request written at once
(or streamed in chunks), an answer read by its ``Content-Length`` or its chunks. No
redirects, cookies, compression, proxies or TLS (``http://`` only).

Its names follow httpx's (``Client.get``, ``Client.post``, ``Answer.status_code``,
``Answer.json()``, ``HTTPError``), so an attack reads the same with either.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
from collections.abc import AsyncIterable
from typing import Any

__all__ = ["Answer", "Client", "HTTPError"]


class HTTPError(Exception):
    """No answer: the connection failed, closed early or timed out."""


class Answer:
    """A server's answer: its status, headers (lower-case names) and body."""

    def __init__(self, status_code: int, headers: dict[str, str], content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content

    def json(self) -> Any:
        return jsonlib.loads(self.content)


class Connection:
    """One keep-alive connection; one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reusable = True

    async def exchange(self, head: bytes, body: bytes | AsyncIterable[bytes]) -> Answer:
        self.writer.write(head)
        try:
            if isinstance(body, bytes):
                self.writer.write(body)
            else:
                async for chunk in body:  # Transfer-Encoding: chunked
                    self.writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    await self.writer.drain()
                self.writer.write(b"0\r\n\r\n")
            await self.writer.drain()
        except OSError:
            # The server may answer and close before the body is sent (a 413 read
            # from the head): its answer is still in the socket to read.
            self.reusable = False
        return await self.read_answer()

    async def read_answer(self) -> Answer:
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            content = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            await self.reader.readuntil(b"\r\n")  # no trailers are sent here
            content = b"".join(parts)
        else:
            content = await self.reader.read()
            self.reusable = False
        if headers.get("connection", "").lower() == "close":
            self.reusable = False
        return Answer(status, headers, content)

    def close(self) -> None:
        self.writer.close()


class Client:
    """Requests to ``base_url`` (``http://host:port``) from ``local_address``, on as
    many keep-alive connections as there are requests in flight."""

    def __init__(self, base_url: str, local_address: str, timeout: float = 30) -> None:
        hostport = base_url.removeprefix("http://").rstrip("/")
        host, _, port = hostport.partition(":")
        self.host, self.port, self.hostport = host, int(port or 80), hostport
        self.local_address = local_address
        self.timeout = timeout
        self.idle: list[Connection] = []

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for connection in self.idle:
            connection.close()
        self.idle.clear()

    async def get(self, path: str) -> Answer:
        return await self.request("GET", path)

    async def post(
        self,
        path: str,
        json: Any = None,
        content: bytes | AsyncIterable[bytes] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        if json is not None:
            content = jsonlib.dumps(json).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        return await self.request("POST", path, content if content is not None else b"", headers)

    async def request(
        self,
        method: str,
        path: str,
        content: bytes | AsyncIterable[bytes] = b"",
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """Send one request and read its answer; raises ``HTTPError`` when none came."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.hostport}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if isinstance(content, bytes):
            if method != "GET" or content:
                lines.append(f"Content-Length: {len(content)}")
        else:
            lines.append("Transfer-Encoding: chunked")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        connection = self.idle.pop() if self.idle else None
        try:
            async with asyncio.timeout(self.timeout):
                if connection is not None:
                    try:
                        answer = await connection.exchange(head, content)
                    except (OSError, asyncio.IncompleteReadError):
                        # The server closed the idle connection first: once more on a
                        # new one, as a browser does (a streamed body cannot be resent).
                        connection.close()
                        connection = None
                        if not isinstance(content, bytes):
                            raise
                if connection is None:
                    reader, writer = await asyncio.open_connection(
                        self.host, self.port, local_addr=(self.local_address, 0)
                    )
                    connection = Connection(reader, writer)
                    answer = await connection.exchange(head, content)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as error:
            if connection is not None:
                connection.close()
            raise HTTPError(f"{method} {path}: {error!r}") from error
        if connection.reusable:
            self.idle.append(connection)
        else:
            connection.close()
        return answer
