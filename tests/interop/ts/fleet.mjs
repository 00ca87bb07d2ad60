// An interactive TypeScript SDK client of the fleet example
// (examples/fleet.rs), for the fleet tests (tests/fleet/legacy.rs): one
// Client with StreamableHTTPClientTransport (protocol 2025-11-25, so
// `initialize` and a session) to the URL given, driven one command per line
// on stdin, each answered by exactly one JSON line on stdout, so that a test
// can kill instances or stop a store between steps.
//
// Usage: node tests/interop/ts/fleet.mjs URL
//
// The first line is the connection's own step, {"step": "connect", ...}.
// Then, per command, {"step": COMMAND, "ok": true, ...} with what the step
// saw, or {"step": COMMAND, "ok": false, "error": "..."}; a failed step does
// not end the driver. Every line also has "http": the requests the SDK made
// since the line before and their statuses ("POST 200", "GET 404", ..., and
// "GET 200 last-event-id=ID" for a stream resumed).
//
// The commands, and what each reports, are those of
// tests/interop/python/fleet.py: list, whoami, count N, subscribe URI,
// touch, await_update SECS, ask NAME, log MSG, await_log SECS, sleep SECS,
// session, quit. Each step has a bound (SECS and 30 s more, or 30 s) after
// which it fails; nothing waits forever.

import { createInterface } from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const DEFAULT_BOUND = 30;

const url = process.argv[2];
if (!url || process.argv.length !== 3) {
  console.error("usage: node fleet.mjs URL");
  process.exit(2);
}

/** What the server sent and the SDK did, as the steps read it. */
const seen = {
  http: [],
  deleted: undefined,
  updates: [],
  logs: [],
  subscribed: undefined,
  logged: undefined,
  answer: undefined,
  asked: 0,
  // Woken whenever an update or a log message arrives.
  wake: () => {},
};

/** fetch, keeping the method and status of each request the SDK makes. */
async function recordingFetch(input, init) {
  const method = init?.method ?? "GET";
  const resumed = new Headers(init?.headers).get("last-event-id");
  const response = await fetch(input, init);
  seen.http.push(`${method} ${response.status}${resumed ? ` last-event-id=${resumed}` : ""}`);
  if (method === "DELETE") seen.deleted = response.status;
  return response;
}

const client = new Client({ name: "fleet-typescript", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async () => {
  seen.asked += 1;
  if (seen.answer === undefined) return { action: "decline" };
  return { action: "accept", content: { name: seen.answer } };
});
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  seen.updates.push(notification.params.uri);
  seen.wake();
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  seen.logs.push(notification.params);
  seen.wake();
});
// The transport's own errors (a GET stream refused, a reconnection failed)
// are not a step's: the step that suffers from them reports its own.
client.onerror = () => {};

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });

/** Prints a step's line, with the requests made since the last line. */
function say(line) {
  process.stdout.write(`${JSON.stringify({ ...line, http: seen.http })}\n`);
  seen.http = [];
}

function describe(error) {
  if (error instanceof StreamableHTTPError) return `${error.message} (HTTP ${error.code})`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** `running`, failing after `secs` seconds. */
async function bounded(secs, running) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${secs} s`)), secs * 1000);
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first thing `found()` returns that is not undefined, waiting up to `secs`. */
async function waitFor(found, secs, what) {
  const deadline = Date.now() + secs * 1000;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} within ${secs} s`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, left);
      seen.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    seen.wake = () => {};
  }
}

/** Calls a tool: its structured content, or an error if the tool failed. */
async function call(name, args = {}, options = {}) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: DEFAULT_BOUND * 1000, ...options });
  if (result.isError) {
    const text = result.content.map((block) => block.text ?? "").join(" ");
    throw new Error(`${name}: the tool failed: ${text}`);
  }
  return result.structuredContent ?? {};
}

/** The bound of a command and what runs it. */
function step(command, argument) {
  switch (command) {
    case "list":
      return [DEFAULT_BOUND, async () => ({ tools: (await client.listTools()).tools.map((tool) => tool.name) })];
    case "whoami":
      return [DEFAULT_BOUND, () => call("whoami")];
    case "count": {
      const n = Number.parseInt(argument, 10);
      const bound = DEFAULT_BOUND + n * 0.05;
      return [
        bound,
        async () => {
          let progress = 0;
          const done = await call("count_slowly", { n }, { timeout: bound * 1000, onprogress: () => (progress += 1) });
          return { ...done, progress };
        },
      ];
    }
    case "subscribe":
      return [
        DEFAULT_BOUND,
        async () => {
          await client.subscribeResource({ uri: argument });
          seen.subscribed = argument;
          return { uri: argument };
        },
      ];
    case "touch":
      return [DEFAULT_BOUND, () => call("touch")];
    case "await_update": {
      const secs = Number(argument);
      return [
        secs + 1,
        async () => {
          const uri = seen.subscribed;
          if (uri === undefined) throw new Error("nothing subscribed");
          const found = () => {
            const at = seen.updates.indexOf(uri);
            if (at < 0) return undefined;
            seen.updates.splice(at, 1);
            return uri;
          };
          return { uri: await waitFor(found, secs, `notifications/resources/updated for ${uri}`) };
        },
      ];
    }
    case "ask":
      return [
        DEFAULT_BOUND,
        async () => {
          seen.answer = argument;
          return { ...(await call("ask_name")), asked: seen.asked };
        },
      ];
    case "log":
      return [
        DEFAULT_BOUND,
        () => {
          seen.logged = argument;
          return call("log", { message: argument });
        },
      ];
    case "await_log": {
      const secs = Number(argument);
      return [
        secs + 1,
        async () => {
          const wanted = seen.logged;
          const found = () => {
            const at = seen.logs.findIndex((params) => wanted === undefined || params.data === wanted);
            if (at < 0) return undefined;
            return seen.logs.splice(at, 1)[0];
          };
          const params = await waitFor(found, secs, `notifications/message with data ${JSON.stringify(wanted)}`);
          return { data: params.data, level: params.level, logger: params.logger ?? null };
        },
      ];
    }
    case "sleep": {
      const secs = Number(argument);
      const bound = DEFAULT_BOUND + secs;
      return [bound, () => call("sleep", { secs }, { timeout: bound * 1000 })];
    }
    case "session":
      return [DEFAULT_BOUND, async () => ({ session: transport.sessionId ?? null })];
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}`);
  }
}

try {
  await bounded(DEFAULT_BOUND, client.connect(transport));
  say({ step: "connect", ok: true, protocol: transport.protocolVersion, session: transport.sessionId });
} catch (error) {
  say({ step: "connect", ok: false, error: describe(error), session: transport.sessionId ?? null });
}
// The session id, kept: a failed connect closes the client, which forgets it.
const session = transport.sessionId ?? null;

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const text = line.trim();
  if (!text) continue;
  const space = text.indexOf(" ");
  const [command, argument] = space < 0 ? [text, ""] : [text.slice(0, space), text.slice(space + 1).trim()];
  if (command === "quit") {
    try {
      await bounded(DEFAULT_BOUND, transport.terminateSession());
      await bounded(DEFAULT_BOUND, client.close());
      say({ step: "quit", ok: seen.deleted !== undefined, deleted: seen.deleted ?? null });
    } catch (error) {
      say({ step: "quit", ok: false, error: describe(error) });
    }
    break;
  }
  if (command === "session" && transport.sessionId === undefined) {
    say({ step: "session", ok: true, session });
    continue;
  }
  try {
    const [bound, run] = step(command, argument);
    say({ step: command, ok: true, ...(await bounded(bound, run())) });
  } catch (error) {
    say({ step: command, ok: false, error: describe(error) });
  }
}
process.exit(0);
