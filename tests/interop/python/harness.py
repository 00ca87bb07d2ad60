"""A small test runner for the interop checks, and the server records they read.

Each check is an async function taking a `Check`; its steps report one line
each (`ok` or `FAIL` with the reason), a failed step does not stop the
following ones, and `main` exits 1 if anything failed. Servers run under
`tests/interop/record`, so a check can read exactly what went over the wire
and how the server exited; those records stay in `target/interop/logs/` for
a failed run to be looked at.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp import MCPError, StdioServerParameters

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
RECORD = ROOT / "tests/interop/record"
LOGS = Path(os.environ.get("INTEROP_LOGS", ROOT / "target/interop/logs"))

WEATHER = ROOT / "target/debug/examples/weather"
PROGRESS = ROOT / "target/debug/examples/progress"
DOWNSTREAM = ROOT / "target/downstream/debug/downstream"
GATEWAY = ROOT / "target/debug/examples/gateway"
CHAIN = ROOT / "target/debug/examples/chain"
CONFORMANCE = ROOT / "target/debug/examples/conformance"

# Servers we did not write (tests/upstreams/install puts the npm ones and
# the Node 22 they run on in tests/upstreams/node_modules).
UPSTREAMS = ROOT / "tests/upstreams"
NODE = UPSTREAMS / "node_modules/.bin/node"
EVERYTHING = UPSTREAMS / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
FILESYSTEM = UPSTREAMS / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
# Runs with the interpreter running the checks (the venv's, with the SDK).
PYTHON_SERVER = UPSTREAMS / "python_server.py"
OIDC = ROOT / "tests/oidc"


def relative(path: Path) -> str:
    """`path` relative to ROOT (the directory servers run in), if it is inside it."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


class StepFailed(Exception):
    """Raised by `Check.fail` with a message meant to be read as is."""


class Server:
    """One run of a server binary under `tests/interop/record`."""

    def __init__(self, name: str, binary: Path, *args: str, env: dict[str, str] | None = None) -> None:
        if not binary.exists():
            raise StepFailed(f"{binary} does not exist: tests/interop/run builds it first")
        self.dir = LOGS / name
        # Relative to ROOT where possible, so printed command lines read well.
        self.command = [relative(RECORD), relative(self.dir), relative(binary), *args]
        # `env` is added to the variables the SDK passes on to servers.
        self.params = StdioServerParameters(command=self.command[0], args=self.command[1:], cwd=str(ROOT), env=env)

    def _lines(self, file: str) -> list[dict[str, Any]]:
        path = self.dir / file
        if not path.exists():
            return []
        text = path.read_text(encoding="utf-8")
        # Only whole lines: `tee` may be halfway through writing the last one.
        complete = text[: text.rfind("\n") + 1]
        return [json.loads(line) for line in complete.splitlines() if line.strip()]

    def sent(self) -> list[dict[str, Any]]:
        """Every message the client sent, parsed."""
        return self._lines("in.jsonl")

    def received(self) -> list[dict[str, Any]]:
        """Every message the server sent, parsed."""
        return self._lines("out.jsonl")

    async def response(self, request_id: Any, *, wait: float = 2.0) -> dict[str, Any] | None:
        """The server's response to the request with this id, if it sent one.

        `record` copies each line to the client before it writes it to the
        file, so a response the client has just read may need a moment to
        appear here: this waits up to `wait` seconds for it.
        """
        deadline = time.monotonic() + wait
        while True:
            answers = [m for m in self.received() if "method" not in m and m.get("id") == request_id]
            if len(answers) > 1:
                raise StepFailed(f"request {request_id!r} got {len(answers)} responses: {answers}")
            if answers or time.monotonic() >= deadline:
                return answers[0] if answers else None
            await anyio.sleep(0.01)

    async def result(self, request_id: Any) -> dict[str, Any]:
        """The result the server sent for this request; fails if it sent none or an error."""
        answer = await self.response(request_id)
        if answer is None or "result" not in answer:
            raise StepFailed(f"request {request_id!r}: expected a result, got {answer}")
        return answer["result"]

    async def sent_methods(self, count: int, *, wait: float = 2.0) -> list[str | None]:
        """The methods of the first `count` messages the client sent (None for responses)."""
        deadline = time.monotonic() + wait
        while len(sent := self.sent()) < count and time.monotonic() < deadline:
            await anyio.sleep(0.01)
        return [m.get("method") for m in sent[:count]]

    def request_id(self, method: str, *, name: str | None = None, wait: float = 2.0) -> Any:
        """The id of the last request the client sent with this method (and tool name).

        `tee` passes each line to the server before it writes it to the file,
        so a request already answered may need a moment to appear there:
        this waits up to `wait` seconds for one.
        """
        deadline = time.monotonic() + wait
        while True:
            ids = [
                m["id"]
                for m in self.sent()
                if m.get("method") == method
                and "id" in m
                and (name is None or m.get("params", {}).get("name") == name)
            ]
            if ids:
                return ids[-1]
            if time.monotonic() >= deadline:
                raise StepFailed(f"the client sent no {method} request{f' for {name}' if name else ''}")
            time.sleep(0.01)

    def exit_status(self, wait: float = 3.0) -> int | None:
        """The server's exit status, or None if it did not exit by itself.

        `record` writes it once the server has exited; a client that killed
        the server (it did not exit when its stdin closed) leaves none.
        """
        deadline = time.monotonic() + wait
        path = self.dir / "exit"
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not path.exists():
            return None
        return int(path.read_text().strip())

    def check_clean_exit(self, check: Check) -> None:
        status = self.exit_status()
        check.expect(status is not None, f"the server did not exit when the client closed its stdin (see {self.dir})")
        check.expect(status == 0, f"the server exited with status {status} (log: {self.dir / 'stderr'})")


class HttpServer:
    """One run of a server binary with `--http 127.0.0.1:PORT`, on a free
    loopback port: started by `async with`, stopped with SIGTERM by `stop`
    (or killed on the way out if a check left it running). Its log is
    LOGS/NAME/stderr, its exit status LOGS/NAME/exit. In `args`, `{url}`
    stands for the URL it serves, http://127.0.0.1:PORT/mcp."""

    def __init__(self, name: str, binary: Path, *args: str, env: dict[str, str] | None = None) -> None:
        if not binary.exists():
            raise StepFailed(f"{binary} does not exist: tests/interop/run builds it first")
        self.dir = LOGS / name
        self.binary = binary
        self.args = list(args)
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    async def __aenter__(self) -> HttpServer:
        self.dir.mkdir(parents=True, exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        address = f"127.0.0.1:{port}"
        self.url = f"http://{address}/mcp"
        with (self.dir / "stderr").open("wb") as stderr:
            self.process = subprocess.Popen(
                [self.binary, "--http", address, *(arg.replace("{url}", self.url) for arg in self.args)],
                cwd=ROOT,
                env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info"), **self.env},
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
            )
        deadline = time.monotonic() + 10
        while True:
            if self.process.poll() is not None:
                raise StepFailed(
                    f"{relative(self.binary)} --http {address} exited with status {self.process.returncode} "
                    f"before listening (log: {relative(self.dir / 'stderr')})"
                )
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                return self
            if time.monotonic() > deadline:
                raise StepFailed(f"{relative(self.binary)} did not listen on {address} within 10 s")
            await anyio.sleep(0.05)

    async def __aexit__(self, *_: object) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    async def stop(self, check: Check) -> None:
        """SIGTERM: the server must exit 0 within 10 seconds (its grace period is 5)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while self.process.poll() is None and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        status = self.process.poll()
        (self.dir / "exit").write_text(f"{status}\n")
        check.expect(status is not None, f"the server was still running 10 s after SIGTERM (see {self.dir})")
        check.expect(status == 0, f"the server exited with status {status} (log: {self.dir / 'stderr'})")


class OidcProvider:
    """The OpenID provider of the auth tests (tests/oidc/provider.mjs, npm
    oidc-provider, on the Node 22 that tests/oidc/install puts next to it) on
    a free loopback port: started by `async with`, which waits for the line
    saying it listens; ended on the way out. Its log is LOGS/NAME/stderr."""

    def __init__(self, name: str, *args: str) -> None:
        self.dir = LOGS / name
        self.args = list(args)
        self.process: subprocess.Popen[bytes] | None = None
        self.issuer = ""

    async def __aenter__(self) -> OidcProvider:
        node = OIDC / "node_modules/.bin/node"
        if not node.exists():
            raise StepFailed(f"{relative(node)} does not exist: tests/interop/run runs tests/oidc/install first")
        self.dir.mkdir(parents=True, exist_ok=True)
        with (self.dir / "stderr").open("wb") as stderr:
            self.process = subprocess.Popen(
                [node, OIDC / "provider.mjs", "--port", "0", "--exit-with-stdin", *self.args],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        assert self.process.stdout is not None
        with anyio.fail_after(20):
            line = await anyio.to_thread.run_sync(self.process.stdout.readline, abandon_on_cancel=True)
        if not line:
            raise StepFailed(f"the OpenID provider exited before listening (log: {relative(self.dir / 'stderr')})")
        self.issuer = json.loads(line)["issuer"]
        return self

    async def __aexit__(self, *_: object) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


class Check:
    """The steps of one check, each reported on its own line."""

    def __init__(self, suite: str) -> None:
        self.suite = suite
        self.failures = 0
        self.passed = 0

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        except Exception as error:  # a failed step is reported, the next one still runs
            self.failures += 1
            report_failure(self.suite, name, error)
        else:
            self.passed += 1
            print(f"ok   {self.suite}: {name} ({time.monotonic() - start:.2f}s)", flush=True)

    @staticmethod
    def fail(message: str) -> None:
        raise StepFailed(message)

    @staticmethod
    def expect(condition: object, message: str) -> None:
        if not condition:
            raise StepFailed(message)

    @staticmethod
    def equal(actual: object, expected: object, what: str) -> None:
        if actual != expected:
            raise StepFailed(f"{what}: expected {expected!r}, got {actual!r}")


def describe(error: BaseException) -> str:
    """A failure in a few lines: the message of a failed expectation, or an
    exception's type, first line and the line of the check that raised it."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, (StepFailed, AssertionError)) and str(error):
        return str(error)
    lines = str(error).strip().splitlines()
    ours = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename.startswith(str(HERE))]
    where = f" ({Path(ours[-1].filename).name} line {ours[-1].lineno})" if ours else ""
    return f"{type(error).__name__}: {lines[0] if lines else ''}{where}"


def report_failure(suite: str, name: str, error: BaseException) -> None:
    """Prints the failure; its whole traceback goes to LOGS/SUITE.tracebacks."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{suite}.tracebacks"
    with log.open("a", encoding="utf-8") as file:
        file.write(f"--- {name}\n{''.join(traceback.format_exception(error))}\n")
    reason = describe(error)
    if not isinstance(error, StepFailed):
        reason += f"\n(traceback in {relative(log)})"
    print(f"FAIL {suite}: {name}\n     {reason.replace(chr(10), chr(10) + '     ')}", flush=True)


def main(suite: str, checks: list[Callable[[Check], Awaitable[None]]]) -> None:
    """Runs the checks in order and exits 1 if any step failed."""
    check = Check(suite)
    for run in checks:
        try:
            # Generous: the slowest check takes a few seconds.
            asyncio.run(asyncio.wait_for(run(check), timeout=120))
        except Exception as error:
            # A check that dies outside its steps (the server would not start,
            # the session broke) is one failure; the next check still runs.
            check.failures += 1
            report_failure(suite, f"{run.__name__.replace('_', ' ')} (stopped)", error)
    print(f"{suite}: {check.passed} passed, {check.failures} failed", flush=True)
    sys.exit(1 if check.failures else 0)


async def rpc_error(request: Awaitable[Any]) -> Any:
    """The JSON-RPC error (`mcp.types.ErrorData`) the awaitable `request` fails with."""
    try:
        result = await request
    except MCPError as error:
        return error.error
    raise AssertionError(f"expected a JSON-RPC error, got {result}")
