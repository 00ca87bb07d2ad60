"""A recording HTTP proxy, to see what a client sends over Streamable HTTP.

`tests/interop/record` keeps the messages of a stdio session; this does the
same for HTTP: put a `WireRecorder` between a client and an `HttpServer`,
point the client at its `url`, and read `exchanges` (every request with its
headers and JSON body, and the status and body of its answer). The records
are also written to LOGS/NAME/http.jsonl for a failed run to be looked at.

It speaks just enough HTTP/1.1 for the clients under test: each request is
forwarded on a fresh connection to the server, and its answer (JSON, or an
SSE stream for as long as the server keeps it open) is passed back as it
arrives, with `Connection: close`, after which the client connects again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from harness import LOGS, StepFailed

# Longest body kept in a record (an SSE stream may run long).
KEEP = 1 << 20


@dataclass
class Exchange:
    """One HTTP request and its answer."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response: str = ""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of the request body (a batch is several)."""
        if isinstance(self.body, list):
            return self.body
        return [self.body] if isinstance(self.body, dict) else []

    def answers(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of the answer: its JSON body, or the data of its SSE events."""
        if self.response_headers.get("content-type", "").startswith("text/event-stream"):
            found = []
            for event in self.response.replace("\r\n", "\n").split("\n\n"):
                data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
                with contextlib.suppress(json.JSONDecodeError):
                    found.append(json.loads(data))
            return found
        with contextlib.suppress(json.JSONDecodeError):
            body = json.loads(self.response)
            return body if isinstance(body, list) else [body]
        return []


def parse_head(head: bytes) -> tuple[str, list[tuple[str, str]]]:
    """The first line and the headers of a request or response head."""
    lines = head.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers.append((name.strip(), value.strip()))
    return lines[0], headers


def make_head(first: str, headers: list[tuple[str, str]]) -> bytes:
    return ("\r\n".join([first, *(f"{name}: {value}" for name, value in headers)]) + "\r\n\r\n").encode("latin-1")


async def read_body(reader: asyncio.StreamReader, headers: list[tuple[str, str]]) -> bytes:
    """A request body: by its Content-Length, or its chunks."""
    lowered = {name.lower(): value for name, value in headers}
    if "chunked" in lowered.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                # Trailers, if any, end with an empty line.
                while chunk != b"\r\n":
                    chunk = await reader.readuntil(b"\r\n")
                return body
            body += chunk[:-2]
    return await reader.readexactly(int(lowered.get("content-length", "0")))


def dechunk(data: bytes) -> bytes:
    """The payload of a chunked body, as far as it arrived."""
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return out


class WireRecorder:
    """A loopback proxy to `upstream` (an http://127.0.0.1:PORT/... URL),
    started by `async with`; `url` is the same path on the proxy."""

    def __init__(self, name: str, upstream: str) -> None:
        self.dir = LOGS / name
        target = urlsplit(upstream)
        self.host = target.hostname or "127.0.0.1"
        self.port = target.port or 80
        self.path = target.path
        self.url = ""
        self.exchanges: list[Exchange] = []
        self.server: asyncio.base_events.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> WireRecorder:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}{self.path}"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.server.wait_closed(), 5)
        self.save()

    def save(self) -> None:
        with (self.dir / "http.jsonl").open("w", encoding="utf-8") as file:
            for exchange in self.exchanges:
                file.write(json.dumps(asdict(exchange)) + "\n")

    def posts(self) -> list[Exchange]:
        """The POSTs so far (the JSON-RPC messages a client sent)."""
        return [exchange for exchange in self.exchanges if exchange.method == "POST"]

    def sent(self) -> list[dict[str, Any]]:
        """Every JSON-RPC message the client POSTed, in order."""
        return [message for exchange in self.posts() for message in exchange.messages()]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                if not await self.forward(head, reader, writer):
                    return
        except asyncio.CancelledError:
            # The proxy is closing while a stream is still open: the end of
            # this connection, not an error to report.
            return
        finally:
            self.tasks.discard(task)
            writer.close()

    async def forward(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Passes one request on and its answer back; False once the client connection is done."""
        first, headers = parse_head(head)
        body = await read_body(reader, headers)
        method, path, _ = first.split(" ", 2)
        try:
            parsed = json.loads(body) if body else None
        except json.JSONDecodeError:
            parsed = body.decode("utf-8", "replace")
        exchange = Exchange(method, path, {name.lower(): value for name, value in headers}, parsed)
        self.exchanges.append(exchange)

        kept = [
            (name, value)
            for name, value in headers
            if name.lower() not in ("connection", "content-length", "transfer-encoding", "keep-alive")
        ]
        kept += [("Connection", "close"), ("Content-Length", str(len(body)))]
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError as error:
            raise StepFailed(f"the recording proxy cannot reach {self.host}:{self.port}: {error}") from error
        try:
            up_writer.write(make_head(first, kept) + body)
            await up_writer.drain()
            status_line, response_headers = parse_head(await up_reader.readuntil(b"\r\n\r\n"))
            exchange.status = int(status_line.split(" ")[1])
            exchange.response_headers = {name.lower(): value for name, value in response_headers}
            passed = [(name, value) for name, value in response_headers if name.lower() not in ("connection", "keep-alive")]
            writer.write(make_head(status_line, [*passed, ("Connection", "close")]))
            await writer.drain()
            raw = b""
            while chunk := await up_reader.read(65536):
                # Noted before it is passed on, so a client never holds an
                # answer the record does not have yet.
                if len(raw) < KEEP:
                    raw += chunk
                    self.note_response(exchange, raw)
                writer.write(chunk)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            up_writer.close()
        return False

    @staticmethod
    def note_response(exchange: Exchange, raw: bytes) -> None:
        if "chunked" in exchange.response_headers.get("transfer-encoding", "").lower():
            raw = dechunk(raw)
        exchange.response = raw.decode("utf-8", "replace")
