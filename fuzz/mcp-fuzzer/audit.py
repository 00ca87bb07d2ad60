#!/usr/bin/env python3
"""Audit a server under mcp-fuzzer: a logging stdio proxy, and a checker.

    audit.py proxy LOG -- SERVER [ARGS...]   # what mcp-fuzzer launches
    audit.py check LOG                       # after the run

The proxy passes every line between mcp-fuzzer and the server unchanged and
appends it (with the direction, time and server process) to LOG, plus the
server's stderr and exit code. The checker then reads the log on its own
terms, without trusting mcp-fuzzer's heuristics:

- every request the fuzzer sent got exactly one response (no hang, no loss);
- every `tools/call` whose arguments break the tool's `inputSchema` (from
  the same session's `tools/list`, checked with the `jsonschema` package,
  JSON Schema 2020-12) was refused: a result with `isError: true` or a
  JSON-RPC error; never a successful result;
- every successful result with an `outputSchema` carries conforming
  `structuredContent`;
- the server never panicked outside a tool and exited 0 (or was stopped
  by the fuzzer with a signal after its work was done).
"""

import json
import signal
import subprocess
import sys
import threading
import time


def proxy(log_path, command):
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lock = threading.Lock()
    log = open(log_path, "a", encoding="utf-8")

    def record(direction, data):
        entry = {"pid": child.pid, "t": time.time(), "dir": direction, "line": data}
        with lock:
            log.write(json.dumps(entry) + "\n")
            log.flush()

    def upstream():
        for raw in sys.stdin.buffer:
            record("in", raw.decode("utf-8", "replace").rstrip("\n"))
            try:
                child.stdin.write(raw)
                child.stdin.flush()
            except BrokenPipeError:
                break
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass

    def downstream():
        for raw in child.stdout:
            record("out", raw.decode("utf-8", "replace").rstrip("\n"))
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()

    def errors():
        for raw in child.stderr:
            record("err", raw.decode("utf-8", "replace").rstrip("\n"))

    def stop(signum, _frame):
        # The fuzzer ends its session with a signal: pass on an EOF, the
        # polite way to stop a stdio server, and record how it exits.
        record("signal", signum)
        try:
            child.stdin.close()
        except (BrokenPipeError, ValueError):
            pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threads = [threading.Thread(target=f, daemon=True) for f in (upstream, downstream, errors)]
    for thread in threads:
        thread.start()
    code = child.wait()
    threads[1].join()
    threads[2].join()
    record("exit", code)
    return code


def check(log_path):
    import jsonschema

    sessions = {}
    for line in open(log_path, encoding="utf-8"):
        entry = json.loads(line)
        sessions.setdefault(entry["pid"], []).append(entry)

    problems = []
    totals = {"sessions": len(sessions), "requests": 0, "calls": 0, "invalid_calls": 0,
              "invalid_refused": 0, "valid_calls": 0, "max_latency_ms": 0.0}
    for pid, entries in sessions.items():
        pending = {}
        schemas, output_schemas = {}, {}
        exit_code = None
        for entry in entries:
            if entry["dir"] == "exit":
                exit_code = entry["line"]
                continue
            if entry["dir"] == "signal":
                continue
            if entry["dir"] == "err":
                text = entry["line"]
                if "panicked at" in text and "examples/" not in text:
                    problems.append(f"[{pid}] runtime panic: {text}")
                continue
            try:
                message = json.loads(entry["line"])
            except ValueError:
                if entry["dir"] == "out":
                    problems.append(f"[{pid}] server wrote non-JSON: {entry['line'][:200]}")
                continue
            if entry["dir"] == "in":
                if isinstance(message, dict) and "method" in message and "id" in message:
                    key = json.dumps(message["id"])
                    if key in pending:
                        problems.append(f"[{pid}] fuzzer reused id {key} in flight")
                    pending[key] = (entry["t"], message)
                    totals["requests"] += 1
                continue
            # Server output.
            if not isinstance(message, dict) or "method" in message:
                continue
            key = json.dumps(message.get("id"))
            if key not in pending:
                if message.get("id") is not None:
                    problems.append(f"[{pid}] response to no pending request: {entry['line'][:200]}")
                continue
            sent_at, request = pending.pop(key)
            totals["max_latency_ms"] = max(totals["max_latency_ms"], (entry["t"] - sent_at) * 1000)
            method = request.get("method")
            result = message.get("result")
            if method == "tools/list" and isinstance(result, dict):
                for tool in result.get("tools", []):
                    schemas[tool["name"]] = tool.get("inputSchema")
                    if tool.get("outputSchema"):
                        output_schemas[tool["name"]] = tool["outputSchema"]
            if method != "tools/call":
                continue
            totals["calls"] += 1
            params = request.get("params") or {}
            name = params.get("name") if isinstance(params, dict) else None
            arguments = params.get("arguments", {}) if isinstance(params, dict) else None
            schema = schemas.get(name)
            if schema is None:
                continue
            validator = jsonschema.Draft202012Validator(schema)
            valid = isinstance(arguments, dict) and validator.is_valid(arguments)
            succeeded = isinstance(result, dict) and result.get("isError") is False
            if valid:
                totals["valid_calls"] += 1
                if succeeded and name in output_schemas:
                    out = jsonschema.Draft202012Validator(output_schemas[name])
                    if not out.is_valid(result.get("structuredContent")):
                        problems.append(f"[{pid}] {name}: structuredContent breaks outputSchema")
            else:
                totals["invalid_calls"] += 1
                if succeeded:
                    problems.append(
                        f"[{pid}] {name}: schema-invalid arguments accepted: {json.dumps(arguments)[:300]}"
                    )
                else:
                    totals["invalid_refused"] += 1
        for key, (_, request) in pending.items():
            problems.append(f"[{pid}] no response to {request.get('method')} id {key}")
        if exit_code not in (0, -15, -9, None):
            problems.append(f"[{pid}] server exit code {exit_code}")
        totals.setdefault("exit_codes", []).append(exit_code)

    totals["max_latency_ms"] = round(totals["max_latency_ms"], 1)
    print(json.dumps(totals))
    for problem in problems[:50]:
        print("PROBLEM:", problem)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


def main():
    args = sys.argv[1:]
    if len(args) >= 4 and args[0] == "proxy" and args[2] == "--":
        sys.exit(proxy(args[1], args[3:]))
    if len(args) == 2 and args[0] == "check":
        sys.exit(check(args[1]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
