// Tasks (SEP-1686, protocol 2025-11-25) with the TypeScript SDK's
// `client.experimental.tasks`, against the weather example's slow tool
// `weather_report` (36 cities, 100 ms each, progress per city), over stdio
// (under tests/interop/record) and over Streamable HTTP.
//
// Each transport: the `tasks` capability from initialize, the tool's
// `execution.taskSupport`, a task created with callToolStream and polled
// with tasks/get to `completed`, its result from tasks/result (with the
// related-task `_meta`), progress per city, tasks/result blocking until the
// task ends, a failed task, a task cancelled mid-way, the -32602 errors
// (cancel of a finished task, unknown ids), and the same tool called
// without a task. What is asserted is the specification
// (docs/specification/2025-11-25/basic/utilities/tasks.mdx), not what the
// server happens to do. Run by tests/interop/run with the pinned SDK:
// `node tests/interop/ts/tasks.mjs`.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

import { CheckFailed, equal, expect, steps, structured, toolError } from "./checks.mjs";
import { LOGS, RECORD, ROOT, WEATHER, exitStatus, firstRecorded, startWeather } from "./servers.mjs";

const { step, finish } = steps("typescript-tasks");

const RELATED = "io.modelcontextprotocol/related-task";
const TOOL = "weather_report";
const CITIES = 36;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Waits (`ms` at most) until `ready()` holds; fails naming `what` otherwise. */
async function until(ready, what, ms = 10_000) {
  for (const deadline = Date.now() + ms; !ready(); await sleep(20)) {
    if (Date.now() > deadline) throw new CheckFailed(`${what} within ${ms / 1000} s`);
  }
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

/** The fields every task response must carry (tasks.mdx §TTL and Resource Management). */
function checkTask(task, status, what) {
  equal(task.status, status, `${what}: status`);
  expect(typeof task.taskId === "string" && task.taskId, `${what}: no taskId`);
  for (const field of ["createdAt", "lastUpdatedAt"]) {
    expect(ISO.test(task[field] ?? ""), `${what}: ${field} is not ISO 8601: ${task[field]}`);
  }
  expect(Date.parse(task.createdAt) <= Date.parse(task.lastUpdatedAt), `${what}: lastUpdatedAt before createdAt`);
  expect(task.ttl === null || Number.isInteger(task.ttl), `${what}: ttl is ${task.ttl}`);
  expect(task[RELATED] === undefined && task._meta?.[RELATED] === undefined, `${what}: related-task _meta on a task result`);
}

/** A report of every city over `days` days, as the tool's outputSchema says. */
function checkReport(result, days) {
  const report = structured(result);
  equal(report.days, days, "the report's days");
  equal(report.cities.length, CITIES, "cities in the report");
  expect(report.cities.some((city) => city.city === report.warmest), `warmest: ${report.warmest}`);
}

/**
 * The checks on one connection: `client` is connected, `version()` gives
 * the protocol version the server answered initialize with.
 */
async function drive(label, client, version) {
  const tasks = client.experimental.tasks;
  let completed; // the id of the task of callToolStream, once completed

  await step(`${label}: initialize at 2025-11-25: tasks for tools/call and tasks/cancel; no tasks/list without auth`, async () => {
    equal(await version(), "2025-11-25", "protocolVersion");
    const declared = client.getServerCapabilities()?.tasks;
    expect(declared?.requests?.tools?.call, `tasks.requests.tools.call not declared: ${JSON.stringify(declared)}`);
    expect(declared.cancel, `tasks.cancel not declared: ${JSON.stringify(declared)}`);
    // "Receivers that cannot identify requestors SHOULD NOT declare tasks.list"
    // (tasks.mdx §Task Isolation); without --auth-issuer nobody is identified.
    equal(declared.list, undefined, "tasks.list without auth");
  });

  await step(`${label}: tools/list: weather_report has taskSupport optional, every other tool none`, async () => {
    const { tools } = await client.listTools();
    const taskTools = tools.filter((tool) => (tool.execution?.taskSupport ?? "forbidden") !== "forbidden");
    equal(taskTools.map((tool) => [tool.name, tool.execution.taskSupport]), [[TOOL, "optional"]], "tools that run as tasks");
  });

  const progress = [];
  let taskId;
  await step(`${label}: callToolStream: created working, polled with tasks/get to completed, result from tasks/result`, async () => {
    const messages = [];
    const stream = tasks.callToolStream({ name: TOOL, arguments: { days: 2 } }, CallToolResultSchema, {
      task: { ttl: 120_000 },
      onprogress: (params) => progress.push(params),
    });
    for await (const message of stream) messages.push(message);
    const kinds = messages.map((message) => message.type);
    const last = messages.at(-1);
    if (last?.type === "error") throw new CheckFailed(`the stream ended with an error: ${last.error.message}; messages: ${kinds}`);
    equal([kinds[0], kinds.at(-1)], ["taskCreated", "result"], "first and last messages");
    const created = messages[0].task;
    checkTask(created, "working", "CreateTaskResult");
    taskId = created.taskId;
    const statuses = messages.filter((message) => message.type === "taskStatus").map((message) => message.task.status);
    // 3.6 s of work polled every pollInterval (at most a second): seen working.
    expect(statuses.includes("working"), `never polled while working: ${statuses}`);
    equal(statuses.at(-1), "completed", "the last status");
    checkReport(last.result, 2);
    equal(last.result._meta?.[RELATED], { taskId }, "tasks/result's related-task _meta");
    completed = taskId;
  });

  await step(`${label}: progress: one notification per city, with the task's related-task _meta`, async () => {
    expect(taskId, "no task was created");
    await until(() => progress.length >= CITIES, `${progress.length} of ${CITIES} progress notifications`, 3_000);
    equal(progress.map((p) => [p.progress, p.total]), Array.from({ length: CITIES }, (_, i) => [i + 1, CITIES]), "progress and total");
    expect(progress[0].message === "Amsterdam", `first message: ${progress[0].message}`);
    // "All requests, notifications, and responses related to a task MUST
    // include the io.modelcontextprotocol/related-task key" (§Associating
    // Task-Related Messages).
    const untagged = progress.filter((p) => p._meta?.[RELATED]?.taskId !== taskId);
    equal(untagged.length, 0, `progress notifications without _meta["${RELATED}"] = {taskId} (first: ${JSON.stringify(untagged[0])})`);
  });

  await step(`${label}: tasks/get of the finished task: completed, with its ttl and timestamps`, async () => {
    expect(completed, "no task completed");
    const task = await tasks.getTask(completed);
    checkTask(task, "completed", "tasks/get");
    expect(task.ttl === null || task.ttl > 0, `ttl: ${task.ttl}`);
  });

  await step(`${label}: tasks/result sent at once blocks until the task ends, then gives its result`, async () => {
    const { task } = await client.request({ method: "tools/call", params: { name: TOOL, arguments: { days: 1 } } }, CreateTaskResultSchema, { task: {} });
    checkTask(task, "working", "CreateTaskResult");
    const result = await tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 });
    checkReport(result, 1);
    equal(result._meta?.[RELATED], { taskId: task.taskId }, "related-task _meta");
    checkTask(await tasks.getTask(task.taskId), "completed", "tasks/get after tasks/result");
  });

  await step(`${label}: a call that fails (days: 9) is a failed task; tasks/result gives its isError result`, async () => {
    const { task } = await client.request({ method: "tools/call", params: { name: TOOL, arguments: { days: 9 } } }, CreateTaskResultSchema, { task: {} });
    const result = await tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 });
    const message = toolError(result);
    expect(message.includes("/days"), `the error: ${message}`);
    const failed = await tasks.getTask(task.taskId);
    checkTask(failed, "failed", "tasks/get");
    // "The tasks/get response SHOULD include a statusMessage field with
    // diagnostic information about the failure" (§Task Execution Errors).
    expect(failed.statusMessage, `no statusMessage on a failed task: ${JSON.stringify(failed)}`);
  });

  let cancelled;
  await step(`${label}: tasks/cancel mid-way: cancelled before the answer, stays cancelled, progress stops`, async () => {
    const seen = [];
    const started = Date.now();
    const { task } = await client.request({ method: "tools/call", params: { name: TOOL, arguments: {} } }, CreateTaskResultSchema, {
      task: {},
      onprogress: (params) => seen.push(params.progress),
    });
    // Some cities in (3 progress notifications, or half a second when none come).
    await until(() => seen.length >= 3 || Date.now() - started > 500, "3 progress notifications");
    const answer = await tasks.cancelTask(task.taskId);
    // "MUST transition the task to cancelled status before sending the response".
    checkTask(answer, "cancelled", "tasks/cancel");
    cancelled = task.taskId;
    const atCancel = seen.length;
    await sleep(800); // eight cities' time
    checkTask(await tasks.getTask(task.taskId), "cancelled", "tasks/get");
    // A terminal task's tasks/result answers at once (§Result Retrieval); the
    // specification gives no shape for a cancelled one's: a result or an error.
    await tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 5_000 }).catch((error) => {
      if (!(error instanceof McpError) || error.code === ErrorCode.RequestTimeout) throw error;
    });
    // One notification may have been on its way when the cancel arrived.
    expect(seen.length <= atCancel + 1, `progress went on after the cancel: ${atCancel} then ${seen.length}`);
  });

  await step(`${label}: tasks/cancel of a finished task (completed, cancelled): -32602`, async () => {
    expect(completed && cancelled, "no completed or no cancelled task");
    equal(await errorCode(() => tasks.cancelTask(completed), "cancel of a completed task"), -32602, "a completed task's cancel");
    equal(await errorCode(() => tasks.cancelTask(cancelled), "cancel of a cancelled task"), -32602, "a cancelled task's cancel");
    checkTask(await tasks.getTask(completed), "completed", "tasks/get after the refused cancel");
  });

  await step(`${label}: an unknown task id: tasks/get, tasks/result and tasks/cancel answer -32602`, async () => {
    const unknown = "no-such-task";
    equal(await errorCode(() => tasks.getTask(unknown), "tasks/get"), -32602, "tasks/get");
    equal(await errorCode(() => tasks.getTaskResult(unknown, CallToolResultSchema), "tasks/result"), -32602, "tasks/result");
    equal(await errorCode(() => tasks.cancelTask(unknown), "tasks/cancel"), -32602, "tasks/cancel");
  });

  await step(`${label}: tools/call get_forecast with a task: -32601, it does not run as one`, async () => {
    const call = () => client.request({ method: "tools/call", params: { name: "get_forecast", arguments: { city: "Oslo" } } }, CreateTaskResultSchema, { task: {} });
    equal(await errorCode(call, "a task for a tool without task support"), -32601, "error code");
  });

  await step(`${label}: weather_report without a task: an ordinary call`, async () => {
    checkReport(await client.callTool({ name: TOOL, arguments: { days: 1 } }), 1);
  });
}

// --- stdio -------------------------------------------------------------------

{
  const dir = join(LOGS, "typescript-tasks/stdio");
  mkdirSync(dir, { recursive: true });
  const transport = new StdioClientTransport({ command: RECORD, args: [dir, WEATHER], cwd: ROOT, stderr: "inherit" });
  const client = new Client({ name: "interop-typescript-tasks", version: "1.0.0" });
  let connected = false;
  await step("stdio: connect", async () => {
    await client.connect(transport);
    connected = true;
  });
  if (connected) {
    await drive("stdio", client, async () => (await firstRecorded(join(dir, "out.jsonl"))).result?.protocolVersion);
    await step("stdio: close: the server exits 0", async () => {
      await client.close();
      equal(await exitStatus(dir), 0, "exit status");
    });
  }
}

// --- Streamable HTTP -----------------------------------------------------------

{
  let server;
  const client = new Client({ name: "interop-typescript-tasks-http", version: "1.0.0" });
  await step("http: connect", async () => {
    server = await startWeather("typescript-tasks/http");
    const transport = new StreamableHTTPClientTransport(server.url);
    await client.connect(transport);
  });
  if (client.transport) {
    await drive("http", client, async () => client.transport.protocolVersion);
    await step("http: close the session, then SIGTERM: exit 0", async () => {
      await client.transport.terminateSession();
      await client.close();
      await server.stop();
      server = undefined;
    });
  }
  server?.kill();
}

finish();
