// The TypeScript SDK answering what our servers ask while a call runs: the
// weather example's `subscribe_alerts` asks the user to confirm
// (elicitation/create), its `summarize_forecast` asks the client's model
// (sampling/createMessage), and the conformance example's `list_roots` asks
// for the client's roots (roots/list); each through the Client's request
// handlers, over stdio and over Streamable HTTP.
//
// Run by tests/interop/run with the pinned SDK: `node tests/interop/ts/asking.mjs`.

import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

import { equal, expect, steps, structured, toolError } from "./checks.mjs";
import { LOGS, RECORD, ROOT, WEATHER, startWeather } from "./servers.mjs";

const CONFORMANCE = join(ROOT, "target/debug/examples/conformance");
const MODEL = "interop-model";
const { step, finish } = steps("typescript-asking");

/** A client that answers elicitation, sampling and roots, and keeps what it was asked. */
function answeringClient() {
  const client = new Client(
    { name: "interop-typescript-asking", version: "1.0.0" },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  );
  const asked = { elicitations: [], samplings: [], answer: { confirm: true, level: "emergency" } };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.elicitations.push(request.params);
    return asked.answer === null ? { action: "decline" } : { action: "accept", content: asked.answer };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.samplings.push(request.params);
    return {
      role: "assistant",
      content: { type: "text", text: "Warm, with a storm on the second day." },
      model: MODEL,
      stopReason: "endTurn",
    };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///home/ada/forecasts", name: "forecasts" }, { uri: "file:///tmp/scratch" }],
  }));
  return { client, asked };
}

/** Connects `client` to `binary` over `transport`; returns what stops the server. */
async function connect(client, transport, name, binary) {
  if (transport === "stdio") {
    const dir = join(LOGS, `typescript-asking/${name}`);
    mkdirSync(dir, { recursive: true });
    await client.connect(new StdioClientTransport({ command: RECORD, args: [dir, binary], cwd: ROOT, stderr: "inherit" }));
    return async () => client.close();
  }
  const server = await startWeather(`typescript-asking-http/${name}`, {}, () => [], binary);
  await client.connect(new StreamableHTTPClientTransport(server.url));
  return async () => {
    await client.close();
    await server.stop();
  };
}

for (const transport of ["stdio", "http"]) {
  const { client, asked } = answeringClient();
  let stop = async () => {};

  await step(`${transport}: subscribe_alerts asks the user, who confirms with a level`, async () => {
    stop = await connect(client, transport, "weather", WEATHER);
    const done = structured(await client.callTool({ name: "subscribe_alerts", arguments: { city: "Zurich" } }));
    equal(done, { city: "Zürich", subscribed: true, level: "emergency" }, "result");
    equal(asked.elicitations.length, 1, "questions asked");
    const question = asked.elicitations[0];
    equal(question.message, "Send severe-weather alerts for Zürich, Switzerland?", "message");
    equal(question.requestedSchema.properties.confirm.type, "boolean", "confirm field");
    equal(question.requestedSchema.properties.level.oneOf.map((c) => c.const), ["warning", "emergency"], "levels");
  });

  await step(`${transport}: the user declines: nothing is subscribed, and it is not an error`, async () => {
    asked.answer = null;
    const done = structured(await client.callTool({ name: "subscribe_alerts", arguments: { city: "Sydney" } }));
    equal(done, { city: "Sydney", subscribed: false, level: null }, "result");
  });

  await step(`${transport}: summarize_forecast asks the client's model`, async () => {
    const summary = structured(await client.callTool({ name: "summarize_forecast", arguments: { city: "Lima", days: 2 } }));
    equal(summary, { city: "Lima", summary: "Warm, with a storm on the second day.", model: MODEL }, "result");
    const request = asked.samplings[0];
    equal(request.systemPrompt, "You summarize weather forecasts in one short sentence.", "systemPrompt");
    equal(request.maxTokens, 200, "maxTokens");
    expect(request.messages[0].content.text.startsWith("The forecast for Lima, Peru:\nday 0: "), "the user message");
    await stop();
  });

  await step(`${transport}: a client that declared nothing gets isError saying what it lacks`, async () => {
    const plain = new Client({ name: "interop-typescript-plain", version: "1.0.0" });
    const stopPlain = await connect(plain, transport, "weather-plain", WEATHER);
    const message = toolError(await plain.callTool({ name: "summarize_forecast", arguments: { city: "Lima" } }));
    equal(
      message,
      "Could not ask the client's model: the client did not declare the `sampling` capability, so it cannot be asked for it",
      "message",
    );
    await stopPlain();
  });

  await step(`${transport}: list_roots gets the client's roots from its handler`, async () => {
    const { client: rooted } = answeringClient();
    const stopRooted = await connect(rooted, transport, "conformance", CONFORMANCE);
    const roots = structured(await rooted.callTool({ name: "list_roots", arguments: {} }));
    equal(roots, { result: ["forecasts: file:///home/ada/forecasts", "file:///tmp/scratch"] }, "roots");
    await stopRooted();
  });
}

finish();
