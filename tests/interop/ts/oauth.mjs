// The weather example secured with OAuth (`--auth-issuer`, `--auth-audience`)
// against a real authorization server (tests/oidc/provider.mjs, npm
// oidc-provider), driven by the TypeScript SDK's own OAuth client: its
// ClientCredentialsProvider finds the authorization server from the
// server's 401 and Protected Resource Metadata (RFC 9728), gets a token with
// the client-credentials grant and the resource indicator (RFC 8707), and
// calls a tool that needs the scope `weather:read`. With two subjects'
// tokens, it checks that a task is bound to the subject that made it.
//
// Logs in target/interop/logs/typescript-oauth/. Run by tests/interop/run
// with the pinned SDK: `node tests/interop/ts/oauth.mjs`.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

import { CheckFailed, equal, expect, steps, structured } from "./checks.mjs";
import { startProvider, startWeather } from "./servers.mjs";

const { step, finish } = steps("typescript-oauth");

/** The claims of a JWT, decoded (not verified: the server does that). */
function claims(token) {
  return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "no-token", version: "0" } },
};

let provider;
let server;

await step("start the OpenID provider, and the weather example with --auth-issuer and --auth-audience", async () => {
  provider = await startProvider("typescript-oauth/provider");
  server = await startWeather("typescript-oauth/weather", {}, (url) => [
    "--auth-issuer",
    provider.issuer,
    "--auth-audience",
    url.href,
  ]);
});

await step("no token: 401, and the SDK finds the Protected Resource Metadata naming the provider", async () => {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(INITIALIZE),
  });
  equal(response.status, 401, "status without a token");
  const challenge = response.headers.get("www-authenticate") ?? "";
  expect(challenge.startsWith("Bearer "), `WWW-Authenticate: ${challenge}`);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  equal(
    resourceMetadataUrl?.href,
    `${server.url.origin}/.well-known/oauth-protected-resource/mcp`,
    "resource_metadata in WWW-Authenticate",
  );
  const metadata = await discoverOAuthProtectedResourceMetadata(server.url, { resourceMetadataUrl });
  equal(metadata.resource, server.url.href, "resource");
  equal(metadata.authorization_servers, [provider.issuer], "authorization_servers");
  expect(metadata.scopes_supported?.includes("weather:read"), `scopes_supported: ${metadata.scopes_supported}`);
});

await step("a client without credentials: connecting fails with HTTP 401", async () => {
  const client = new Client({ name: "interop-typescript-no-token", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(server.url));
    throw new CheckFailed("connected without a token");
  } catch (error) {
    if (!(error instanceof StreamableHTTPError)) throw error;
    equal(error.code, 401, "HTTP status");
  }
});

const client = new Client({ name: "interop-typescript-oauth", version: "1.0.0" });

await step("ClientCredentialsProvider: discovery, a token for this server, initialize", async () => {
  const auth = new ClientCredentialsProvider({
    clientId: "mcp-test",
    clientSecret: "mcp-test-secret",
    scope: "weather:read",
    expectedIssuer: provider.issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(server.url, { authProvider: auth }));
  equal(client.getServerVersion()?.name, "weather", "serverInfo.name");
  const token = claims(auth.tokens()?.access_token ?? "");
  equal(
    [token.iss, token.aud, token.sub, token.scope],
    [provider.issuer, server.url.href, "mcp-test", "weather:read"],
    "the token's iss, aud, sub and scope",
  );
});

await step("tools/list and tools/call get_forecast (needs weather:read) with the token", async () => {
  const { tools } = await client.listTools();
  equal(tools.map((tool) => tool.name), ["current_conditions", "get_forecast", "search_cities", "subscribe_alerts", "summarize_forecast", "weather_report"], "tool names");
  const forecast = structured(await client.callTool({ name: "get_forecast", arguments: { city: "Tokyo", days: 2 } }));
  equal([forecast.city, forecast.days.length], ["Tokyo", 2], "city and days");
  await client.close();
});

/** A client connected with a token of `clientId` for weather:read. */
async function connectAs(clientId) {
  const auth = new ClientCredentialsProvider({
    clientId,
    clientSecret: `${clientId}-secret`,
    scope: "weather:read",
    expectedIssuer: provider.issuer,
  });
  const connected = new Client({ name: `interop-typescript-${clientId}`, version: "1.0.0" });
  await connected.connect(new StreamableHTTPClientTransport(server.url, { authProvider: auth }));
  return connected;
}

/** The JSON-RPC error code `call()` fails with; fails if it succeeds. */
async function errorCode(call, what) {
  try {
    const result = await call();
    throw new CheckFailed(`${what}: expected a JSON-RPC error, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return error.code;
  }
}

// Tasks are bound to who made them: "receivers MUST reject" another's
// (tasks.mdx §Task Isolation, 2025-11-25), and with callers identified the
// server may declare tasks/list, which lists the caller's own tasks.
await step("tasks with tokens: tasks.list declared; another subject neither lists, gets, fetches nor cancels my task", async () => {
  const owner = await connectAs("mcp-test");
  const stranger = await connectAs("mcp-other");
  try {
    const declared = owner.getServerCapabilities()?.tasks;
    expect(declared?.list, `tasks.list not declared with auth: ${JSON.stringify(declared)}`);
    const call = { method: "tools/call", params: { name: "weather_report", arguments: { days: 1 } } };
    const { task } = await owner.request(call, CreateTaskResultSchema, { task: {} });
    const mine = (await owner.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId);
    expect(mine.includes(task.taskId), `tasks/list of its owner: ${mine}`);
    const theirs = (await stranger.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId);
    expect(!theirs.includes(task.taskId), `another subject's tasks/list shows it: ${theirs}`);
    const tasks = stranger.experimental.tasks;
    equal(await errorCode(() => tasks.getTask(task.taskId), "tasks/get"), -32602, "another subject's tasks/get");
    equal(await errorCode(() => tasks.getTaskResult(task.taskId, CallToolResultSchema), "tasks/result"), -32602, "another subject's tasks/result");
    equal(await errorCode(() => tasks.cancelTask(task.taskId), "tasks/cancel"), -32602, "another subject's tasks/cancel");
    const after = await owner.experimental.tasks.getTask(task.taskId);
    expect(after.status !== "cancelled", "another subject's cancel stopped the task");
    if (after.status === "working") await owner.experimental.tasks.cancelTask(task.taskId);
  } finally {
    await owner.close();
    await stranger.close();
  }
});

await step("a token without weather:read: tools/call ends in 403 insufficient_scope", async () => {
  // The SDK's step-up asks for a token again, but a ClientCredentialsProvider
  // requests the scope it was configured with (none), so the 403 stays.
  const unscoped = new ClientCredentialsProvider({
    clientId: "mcp-other",
    clientSecret: "mcp-other-secret",
    expectedIssuer: provider.issuer,
  });
  const other = new Client({ name: "interop-typescript-unscoped", version: "1.0.0" });
  await other.connect(new StreamableHTTPClientTransport(server.url, { authProvider: unscoped }));
  equal(claims(unscoped.tokens()?.access_token ?? "").scope, undefined, "the token's scope");
  try {
    const result = await other.callTool({ name: "get_forecast", arguments: { city: "Tokyo" } });
    throw new CheckFailed(`expected a refusal, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof StreamableHTTPError)) throw error;
    equal(error.code, 403, "HTTP status");
  }
  await other.close();
});

await step("SIGTERM: the server exits 0", async () => {
  expect(server, "no server was started");
  await server.stop();
  server = undefined;
});

server?.kill();
provider?.stop();
finish();
