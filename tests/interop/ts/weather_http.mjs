// The weather example over Streamable HTTP, driven by the TypeScript SDK's
// Client with StreamableHTTPClientTransport.
//
// Starts `weather --http 127.0.0.1:PORT` on a free loopback port (its log in
// target/interop/logs/typescript-http/weather/stderr), talks to it, then
// stops it with SIGTERM: it must exit 0. Run by tests/interop/run with the
// pinned SDK: `node tests/interop/ts/weather_http.mjs`.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

import { CheckFailed, equal, expect, steps, structured, toolError } from "./checks.mjs";
import { startWeather } from "./servers.mjs";

const { step, finish } = steps("typescript-http");

let server;
const client = new Client({ name: "interop-typescript-http", version: "1.0.0" });

await step("initialize over HTTP: version 2025-11-25, server info, a session", async () => {
  server = await startWeather("typescript-http/weather");
  const transport = new StreamableHTTPClientTransport(server.url);
  await client.connect(transport);
  equal(client.getServerVersion()?.name, "weather", "serverInfo.name");
  expect(client.getServerCapabilities()?.tools, "no tools capability");
  equal(transport.protocolVersion, "2025-11-25", "protocolVersion");
  expect(transport.sessionId, "no Mcp-Session-Id");
});

await step("tools/list: the six tools with their output schemas", async () => {
  const { tools } = await client.listTools();
  equal(tools.map((tool) => tool.name), ["current_conditions", "get_forecast", "search_cities", "subscribe_alerts", "summarize_forecast", "weather_report"], "tool names");
  expect(tools.every((tool) => tool.outputSchema), "a tool without outputSchema");
});

// callTool validates structuredContent against the outputSchema (with Ajv).
await step("tools/call get_forecast and search_cities: valid per their outputSchema", async () => {
  const forecast = structured(await client.callTool({ name: "get_forecast", arguments: { city: "Zurich", days: 2 } }));
  equal([forecast.city, forecast.days.length], ["Zürich", 2], "city and days");
  const found = structured(await client.callTool({ name: "search_cities", arguments: { query: "new", limit: 1 } }));
  equal(found.result.map((city) => city.name), ["New York"], "cities");
});

await step("progress: notifications reach onprogress, in order, before the result", async () => {
  const seen = [];
  const result = await client.callTool({ name: "get_forecast", arguments: { city: "Lima", days: 3 } }, undefined, {
    onprogress: ({ progress, total, message }) => seen.push([progress, total, message]),
  });
  equal(structured(result).days.length, 3, "days");
  equal(seen, [1, 2, 3].map((day) => [day, 3, `day ${day} of 3 ready`]), "progress notifications");
});

await step("tools/call with invalid arguments: isError naming the problem", async () => {
  let message = toolError(await client.callTool({ name: "get_forecast", arguments: { city: "Rome", unit: "kelvin" } }));
  expect(message.includes("/unit"), `unit=kelvin: ${message}`);
  message = toolError(await client.callTool({ name: "current_conditions", arguments: { city: "Lodnon" } }));
  expect(message.includes("Did you mean London?"), `unknown city: ${message}`);
});

await step("tools/call of an unknown tool: JSON-RPC error -32602 naming it", async () => {
  try {
    const result = await client.callTool({ name: "no_such_tool", arguments: {} });
    throw new CheckFailed(`expected an error, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    equal(error.code, -32602, "error code");
    expect(error.message.includes("no_such_tool"), `message: ${error.message}`);
  }
});

await step("ping", async () => {
  equal(await client.ping(), {}, "ping result");
});

await step("close the session (DELETE): it is gone (404), then SIGTERM: exit 0", async () => {
  expect(server, "no server was started");
  const session = client.transport.sessionId;
  await client.transport.terminateSession();
  await client.close();
  const after = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  equal(after.status, 404, "status of a request in the deleted session");
  await server.stop();
  server = undefined;
});

server?.kill();
finish();
