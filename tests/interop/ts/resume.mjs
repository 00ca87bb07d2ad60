// One tool call with progress whose answer stream is cut, driven by the
// TypeScript SDK's Client with StreamableHTTPClientTransport: the client
// resumes it with `Last-Event-ID`.
//
// Run by tests/http_resume.rs through its cutting proxy:
// `node tests/interop/ts/resume.mjs URL`. Calls the progress example's
// `count_slowly` and prints one JSON line: {"outcome": "result" | "error" |
// "timeout", "text" | "code" + "message", "progress": the number of
// progress notifications seen}. The request times out after LIMIT ms
// (20 s): a client that keeps resuming, or waits, never answers. Then
// waits LINGER ms before it closes, so that any reconnecting the SDK still
// does reaches the proxy.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

const LIMIT = 20_000;
const LINGER = 2_500;

const client = new Client({ name: "resume-check", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
let progress = 0;
let outcome;
try {
  const result = await client.callTool({ name: "count_slowly", arguments: { to: 5, delay_ms: 20 } }, undefined, {
    timeout: LIMIT,
    onprogress: () => {
      progress += 1;
    },
  });
  outcome = { outcome: "result", text: result.content.filter((block) => block.type === "text").map((block) => block.text).join("") };
} catch (error) {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    outcome = { outcome: "timeout" };
  } else if (error instanceof McpError) {
    // The SDK prefixes the message with "MCP error CODE: ".
    outcome = { outcome: "error", code: error.code, message: error.message };
  } else {
    outcome = { outcome: "error", code: null, message: String(error) };
  }
}
outcome.progress = progress;
console.log(JSON.stringify(outcome));
// Any reconnecting left to do happens now, for the proxy to see.
await new Promise((resolve) => setTimeout(resolve, LINGER));
await client.close();
