// The weather example, driven by the TypeScript SDK's Client over stdio.
//
// Run by tests/interop/run with the pinned SDK (package-lock.json here):
// `node tests/interop/ts/weather.mjs`. Prints one line per step, like the
// Python checks, and exits 1 if any step failed.

import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

import { CheckFailed, equal, expect, steps, structured, textOf, toolError } from "./checks.mjs";
import { LOGS, RECORD, ROOT, WEATHER, exitStatus, firstRecorded } from "./servers.mjs";

const PROGRESS = join(ROOT, "target/debug/examples/progress");
const SUITE = "typescript";

const { step, finish } = steps(SUITE);

const dir = join(LOGS, "typescript/weather");
mkdirSync(dir, { recursive: true });
const transport = new StdioClientTransport({ command: RECORD, args: [dir, WEATHER], cwd: ROOT, stderr: "inherit" });
const client = new Client({ name: "interop-typescript", version: "1.0.0" });

// The TypeScript SDK 1.32 knows only the initialize-based era (2025-11-25
// and before): it must keep working against a server that also serves
// 2026-07-28.
await step("initialize (no server/discover): 2025-11-25, server info, tools capability, instructions", async () => {
  expect(existsSync(WEATHER), `${WEATHER} does not exist: tests/interop/run builds it first`);
  await client.connect(transport);
  equal(client.getServerVersion()?.name, "weather", "serverInfo.name");
  expect(client.getServerCapabilities()?.tools, "no tools capability");
  expect(client.getInstructions()?.includes("search_cities"), `instructions: ${client.getInstructions()}`);
  const answer = await firstRecorded(join(dir, "out.jsonl"));
  equal(answer.result.protocolVersion, "2025-11-25", "protocolVersion");
  const sent = await firstRecorded(join(dir, "in.jsonl"));
  equal(sent.method, "initialize", "the first message");
});

await step("tools/list: the six tools, each with a title, schemas and annotations", async () => {
  const { tools, nextCursor } = await client.listTools();
  equal(tools.map((tool) => tool.name), ["current_conditions", "get_forecast", "search_cities", "subscribe_alerts", "summarize_forecast", "weather_report"], "tool names");
  for (const tool of tools) {
    expect(tool.title && tool.description, `${tool.name}: no title or description`);
    equal(tool.inputSchema.type, "object", `${tool.name} inputSchema type`);
    expect(tool.outputSchema, `${tool.name}: no outputSchema`);
    // subscribe_alerts changes what the server will send.
    equal(Boolean(tool.annotations?.readOnlyHint), tool.name !== "subscribe_alerts", `${tool.name}: read-only`);
  }
  equal(nextCursor, undefined, "nextCursor");
});

// callTool validates structuredContent against the outputSchema listed
// above (with Ajv) and throws if it does not conform.
await step("tools/call get_forecast: a 5-day forecast in Fahrenheit, valid per its outputSchema", async () => {
  const result = await client.callTool({
    name: "get_forecast",
    arguments: { city: "Reykjavik", days: 5, unit: "fahrenheit" },
  });
  const forecast = structured(result);
  equal([forecast.city, forecast.unit], ["Reykjavík", "fahrenheit"], "city and unit");
  equal(forecast.days.map((day) => day.day), [0, 1, 2, 3, 4], "days");
});

await step("tools/call current_conditions", async () => {
  const now = structured(await client.callTool({ name: "current_conditions", arguments: { city: "Zurich" } }));
  equal([now.city, now.country, now.unit], ["Zürich", "Switzerland", "celsius"], "conditions");
});

await step("tools/call search_cities: a list, wrapped as {result: [...]}", async () => {
  const found = structured(await client.callTool({ name: "search_cities", arguments: { query: "new", limit: 1 } }));
  equal(found.result.map((city) => city.name), ["New York"], "cities");
});

await step("tools/call with invalid arguments: isError, naming each problem", async () => {
  let message = toolError(await client.callTool({ name: "search_cities", arguments: { query: "", limit: 99 } }));
  expect(message.includes("/query") && message.includes("/limit"), `query="" and limit=99: ${message}`);
  message = toolError(await client.callTool({ name: "get_forecast", arguments: { city: "Rome", unit: "kelvin" } }));
  expect(message.includes("/unit"), `unit=kelvin: ${message}`);
  message = toolError(await client.callTool({ name: "current_conditions", arguments: {} }));
  expect(message.includes("city"), `no city: ${message}`);
});

await step("tools/call for a city it does not know: isError with a suggestion", async () => {
  const message = toolError(await client.callTool({ name: "current_conditions", arguments: { city: "Lodnon" } }));
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

await step("close: the server exits 0 when its stdin closes", async () => {
  await client.close();
  const status = await exitStatus(dir);
  expect(status !== null, `the server did not exit when the client closed its stdin (see ${dir})`);
  equal(status, 0, "exit status");
});

// Progress with the slow tool of the progress example. (get_forecast sends
// its notifications immediately before its result; this SDK handles
// notifications a tick after responses, finds the request finished and
// drops them: typescript-sdk issue #2580.)
const progressDir = join(LOGS, "typescript/progress");
const progressClient = new Client({ name: "interop-typescript", version: "1.0.0" });
await step("progress: notifications reach onprogress while the call runs", async () => {
  const progressTransport = new StdioClientTransport({ command: RECORD, args: [progressDir, PROGRESS], cwd: ROOT });
  await progressClient.connect(progressTransport);
  const seen = [];
  const result = await progressClient.callTool({ name: "count_slowly", arguments: { to: 3, delay_ms: 100 } }, undefined, {
    onprogress: ({ progress, total }) => seen.push([progress, total]),
  });
  equal(textOf(result), "counted to 3", "result");
  // The last one travels with the result and may be dropped (see above).
  equal(seen.slice(0, 2), [[1, 3], [2, 3]], "progress notifications");
  await progressClient.close();
  equal(await exitStatus(progressDir), 0, "exit status");
});

finish();
