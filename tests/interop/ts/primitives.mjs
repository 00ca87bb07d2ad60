// The weather example's resources (with the MCP Apps view of get_forecast),
// prompt, completions and subscriptions, driven by the TypeScript SDK's
// Client over stdio and over Streamable HTTP.
//
// The server runs with WEATHER_REFRESH_SECS=0.2, so its current conditions
// are refreshed (and subscribers told) five times a second. Run by
// tests/interop/run with the pinned SDK: `node tests/interop/ts/primitives.mjs`.

import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { CheckFailed, equal, expect, steps } from "./checks.mjs";
import { LOGS, RECORD, ROOT, WEATHER, exitStatus, startWeather } from "./servers.mjs";

const FAST_REFRESH = { WEATHER_REFRESH_SECS: "0.2" };
const SAO_PAULO = "weather://cities/S%C3%A3o%20Paulo";
// get_forecast's view (MCP Apps) and the MIME type the extension gives views.
const VIEW = "ui://weather/forecast";
const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
const PLAN_TRIP = { type: "ref/prompt", name: "plan_trip" };
const CITY_TEMPLATE = { type: "ref/resource", uri: "weather://cities/{name}" };

const { step, finish } = steps("typescript-primitives");

/** The JSON of a read's single text contents, checked to be `uri`'s. */
function jsonText({ contents }, uri) {
  equal(contents.map((c) => [c.uri, c.mimeType]), [[uri, "application/json"]], `${uri}: contents`);
  return JSON.parse(contents[0].text);
}

/** The McpError that `promise` rejects with. */
async function rpcError(promise) {
  try {
    const result = await promise;
    throw new CheckFailed(`expected a JSON-RPC error, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return error;
  }
}

/** Lists, reads, gets, completes and subscribes, over a connected client. */
async function checkPrimitives(client, on) {
  await step(`${on}: capabilities: resources (with subscribe), prompts, completions`, async () => {
    const caps = client.getServerCapabilities();
    expect(caps?.resources?.subscribe === true, `resources: ${JSON.stringify(caps?.resources)}`);
    expect(caps?.prompts && caps?.completions, `capabilities: ${JSON.stringify(caps)}`);
  });

  let cities = [];
  await step(`${on}: resources/list (the view and the city list) and resources/read weather://cities: JSON with the 36 cities`, async () => {
    const { resources } = await client.listResources();
    equal(
      resources.map((r) => [r.uri, r.name, r.mimeType]),
      [
        // By URI: the trip-briefing skill's files (SEP-2640), the view, the cities.
        ["skill://weather/trip-briefing/SKILL.md", "trip-briefing", "text/markdown"],
        ["skill://weather/trip-briefing/references/briefing-template.md", "trip-briefing/references/briefing-template.md", "text/markdown"],
        [VIEW, "forecast_view", VIEW_MIME_TYPE],
        ["weather://cities", "cities", "application/json"],
      ],
      "resources",
    );
    cities = jsonText(await client.readResource({ uri: "weather://cities" }), "weather://cities");
    equal(cities.length, 36, "number of cities");
    const tokyo = cities.find((city) => city.name === "Tokyo");
    equal([tokyo?.country, tokyo?.uri], ["Japan", "weather://cities/Tokyo"], "Tokyo");
    equal(cities.find((city) => city.name === "São Paulo")?.uri, SAO_PAULO, "São Paulo's URI");
  });

  await step(`${on}: MCP Apps: tools/list links get_forecast to ${VIEW}, resources/read gives its HTML`, async () => {
    const { tools } = await client.listTools();
    const forecast = tools.find((tool) => tool.name === "get_forecast");
    equal(forecast?._meta?.ui?.resourceUri, VIEW, "get_forecast _meta.ui.resourceUri");
    equal(forecast?._meta?.["ui/resourceUri"], VIEW, 'get_forecast _meta["ui/resourceUri"] (the older key)');
    equal(tools.filter((tool) => tool._meta?.ui).map((tool) => tool.name), ["get_forecast"], "tools with a view");
    const { contents } = await client.readResource({ uri: VIEW });
    equal(contents.map((c) => [c.uri, c.mimeType]), [[VIEW, VIEW_MIME_TYPE]], `${VIEW}: contents`);
    const html = contents[0].text ?? "";
    expect(html.startsWith("<!doctype html>"), `not an HTML document: ${JSON.stringify(html.slice(0, 60))}`);
    expect(html.includes('<svg id="chart"'), 'no chart (<svg id="chart">) in the view');
  });

  await step(`${on}: resources/templates/list and a read through the template`, async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    equal(resourceTemplates.map((t) => [t.uriTemplate, t.name]), [["weather://cities/{name}", "city"]], "templates");
    const zurich = jsonText(await client.readResource({ uri: "weather://cities/Z%C3%BCrich" }), "weather://cities/Z%C3%BCrich");
    equal([zurich.name, zurich.country, zurich.elevation_m], ["Zürich", "Switzerland", 408], "Zürich");
    equal(zurich.forecast.length, 7, "forecast days");
  });

  await step(`${on}: resources/read of an unknown city: -32002 with the URI in data`, async () => {
    const error = await rpcError(client.readResource({ uri: "weather://cities/Atlantis" }));
    equal([error.code, error.data], [-32002, { uri: "weather://cities/Atlantis" }], "error code and data");
  });

  await step(`${on}: prompts/list and prompts/get plan_trip city=Tokyo: the city's data, then the request`, async () => {
    const { prompts } = await client.listPrompts();
    equal(prompts.map((p) => p.name), ["plan_trip"], "prompts");
    equal(prompts[0].arguments.map((a) => [a.name, a.required]), [["city", true], ["days", false]], "arguments");
    const { messages } = await client.getPrompt({ name: "plan_trip", arguments: { city: "tokyo" } });
    equal(messages.map((m) => [m.role, m.content.type]), [["user", "resource"], ["user", "text"]], "messages");
    equal(messages[0].content.resource.uri, "weather://cities/Tokyo", "embedded resource");
    const ask = messages[1].content.text;
    expect(ask.includes("3-day trip to Tokyo, Japan"), `request: ${ask}`);
    const error = await rpcError(client.getPrompt({ name: "plan_trip", arguments: { city: "Tokio" } }));
    expect(error.code === -32602 && error.message.includes("Did you mean Tokyo?"), `unknown city: ${error.message}`);
  });

  await step(`${on}: completion/complete: city names for plan_trip and for the template`, async () => {
    const values = async (ref, name, value) => (await client.complete({ ref, argument: { name, value } })).completion.values;
    equal(await values(PLAN_TRIP, "city", "Be"), ["Beijing", "Berlin"], "plan_trip city=Be");
    equal(await values(PLAN_TRIP, "city", "zu"), ["Zürich"], "plan_trip city=zu");
    equal(await values(CITY_TEMPLATE, "name", "L"), ["Lagos", "Lima", "Lisbon", "London"], "template name=L");
    equal(await values(PLAN_TRIP, "days", "1"), [], "plan_trip days (no completion)");
  });

  await step(`${on}: resources/subscribe: notifications/resources/updated, newer data; none after unsubscribe`, async () => {
    const updates = [];
    let arrived = () => {};
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
      updates.push(params.uri);
      arrived();
    });
    const next = () =>
      Promise.race([
        new Promise((done) => (arrived = done)),
        sleep(5_000).then(() => {
          throw new CheckFailed("no notifications/resources/updated within 5 s");
        }),
      ]);
    const before = jsonText(await client.readResource({ uri: SAO_PAULO }), SAO_PAULO).current.refresh;
    await client.subscribeResource({ uri: SAO_PAULO });
    await next();
    await next();
    equal([...new Set(updates)], [SAO_PAULO], "URIs announced");
    const after = jsonText(await client.readResource({ uri: SAO_PAULO }), SAO_PAULO).current.refresh;
    expect(after > before, `the data's refresh count went from ${before} to ${after}`);
    await client.unsubscribeResource({ uri: SAO_PAULO });
    await sleep(500); // those already on their way
    const count = updates.length;
    await sleep(1_000);
    equal(updates.length, count, "notifications a second after unsubscribing");
  });
}

const dir = join(LOGS, "typescript-primitives/weather");
mkdirSync(dir, { recursive: true });
const stdio = new Client({ name: "interop-typescript", version: "1.0.0" });
await step("stdio: initialize", async () => {
  expect(existsSync(WEATHER), `${WEATHER} does not exist: tests/interop/run builds it first`);
  await stdio.connect(new StdioClientTransport({ command: RECORD, args: [dir, WEATHER], cwd: ROOT, env: FAST_REFRESH }));
});
await checkPrimitives(stdio, "stdio");
await step("stdio: close: the server exits 0", async () => {
  await stdio.close();
  equal(await exitStatus(dir), 0, "exit status");
});

let server;
const http = new Client({ name: "interop-typescript-http", version: "1.0.0" });
await step("http: initialize", async () => {
  server = await startWeather("typescript-primitives/weather-http", FAST_REFRESH);
  await http.connect(new StreamableHTTPClientTransport(server.url));
});
await checkPrimitives(http, "http");
await step("http: close the session, SIGTERM: exit 0", async () => {
  await http.transport.terminateSession();
  await http.close();
  await server.stop();
  server = undefined;
});
server?.kill();
finish();
