#!/usr/bin/env bash
# Runs mcp-fuzzer (PyPI, 0.7.x) in tools mode against the weather example
# with a fixed seed, through audit.py's logging proxy, then checks the log:
# no crash, no hang, no schema-invalid arguments accepted.
#
#   bash fuzz/mcp-fuzzer/run.sh [RUNS] [SEED]      (defaults: 100, 42)
#
# Everything it installs or writes stays under target/mcp-fuzzer/.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-100}
seed=${2:-42}
out=target/mcp-fuzzer
venv=target/mcp-fuzzer-venv
if [ ! -x "$venv/bin/mcp-fuzzer" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "mcp-fuzzer==0.7.*" "jsonschema>=4"
fi
cargo build --quiet --example weather
rm -rf "$out" && mkdir -p "$out/sandbox"
log="$PWD/$out/traffic.jsonl"
server="$PWD/target/debug/examples/weather"
proxy="$venv/bin/python $PWD/fuzz/mcp-fuzzer/audit.py proxy $log -- $server"
"$venv/bin/mcp-fuzzer" --mode tools --protocol stdio --endpoint "$proxy" \
  --phase both --runs "$runs" --seed "$seed" --no-network \
  --output-dir "$PWD/$out/reports" --fail-if-no-tools \
  > "$out/mcp-fuzzer.log" 2>&1 || { tail -40 "$out/mcp-fuzzer.log"; exit 1; }
sed -n '/MCP Tool Fuzzing Summary/,/Overall Handled/p' "$out/mcp-fuzzer.log"
"$venv/bin/python" fuzz/mcp-fuzzer/audit.py check "$log"
