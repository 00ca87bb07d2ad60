// The weather example as the TypeScript checks start it: over stdio under
// tests/interop/record, or serving Streamable HTTP on a free loopback port.

import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

import { CheckFailed, equal, expect } from "./checks.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const LOGS = process.env.INTEROP_LOGS ?? join(ROOT, "target/interop/logs");
export const RECORD = join(ROOT, "tests/interop/record");
export const WEATHER = join(ROOT, "target/debug/examples/weather");

/** The server's exit status, written by tests/interop/record once it exited by itself. */
export async function exitStatus(dir) {
  const file = join(dir, "exit");
  for (let i = 0; i < 150 && !existsSync(file); i++) await sleep(20);
  return existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : null;
}

/**
 * The first whole line of a record tests/interop/record keeps (in.jsonl or
 * out.jsonl), parsed. `tee` passes each line on before it writes it to the
 * file, so this waits up to 3 seconds for one.
 */
export async function firstRecorded(file) {
  for (let i = 0; i < 150; i++) {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (text.includes("\n")) return JSON.parse(text.slice(0, text.indexOf("\n")));
    await sleep(20);
  }
  throw new CheckFailed(`${file} has no whole line after 3 seconds`);
}

/** A free port on 127.0.0.1. */
async function freePort() {
  const probe = createServer();
  await new Promise((done, fail) => probe.once("error", fail).listen(0, "127.0.0.1", done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(done));
  return port;
}

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port) {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => done(socket.end() && true));
    socket.once("error", () => done(false));
  });
}

/**
 * Starts the weather example (or `binary`, another example) on a free
 * port, with `env` added to this process's environment, and waits (10 s
 * at most) until it listens.
 * `args(url)` gives more arguments, knowing the URL it will serve.
 */
export async function startWeather(name, env = {}, args = () => [], binary = WEATHER) {
  expect(existsSync(binary), `${binary} does not exist: tests/interop/run builds it first`);
  const dir = join(LOGS, name);
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const log = createWriteStream(join(dir, "stderr"));
  const child = spawn(binary, ["--http", `127.0.0.1:${port}`, ...args(url)], {
    cwd: ROOT,
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(code ?? signal)));
  for (const deadline = Date.now() + 10_000; !(await listening(port)); await sleep(50)) {
    if (child.exitCode !== null) throw new CheckFailed(`the server exited (${child.exitCode}) before listening; log: ${dir}/stderr`);
    if (Date.now() > deadline) throw new CheckFailed(`the server did not listen on 127.0.0.1:${port} within 10 s`);
  }
  return {
    url,
    kill: () => child.kill("SIGKILL"),
    /** SIGTERM: the server must exit 0 within 10 s (its grace period is 5 s). */
    async stop() {
      child.kill("SIGTERM");
      const status = await Promise.race([exited, sleep(10_000, "still running 10 s after SIGTERM")]);
      equal(status, 0, `the server's exit (log: ${dir}/stderr)`);
    },
  };
}

export const OIDC = join(ROOT, "tests/oidc");

/**
 * Starts the OpenID provider of the auth tests (tests/oidc/provider.mjs, on
 * the Node 22 that tests/oidc/install puts next to it) on a free loopback
 * port, with its log in LOGS/NAME/stderr; waits (20 s at most) for the line
 * saying it listens. `stop()` ends it.
 */
export async function startProvider(name, args = []) {
  const node = join(OIDC, "node_modules/.bin/node");
  expect(existsSync(node), `${node} does not exist: tests/interop/run runs tests/oidc/install first`);
  const dir = join(LOGS, name);
  mkdirSync(dir, { recursive: true });
  const log = createWriteStream(join(dir, "stderr"));
  const child = spawn(node, [join(OIDC, "provider.mjs"), "--port", "0", "--exit-with-stdin", ...args], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.pipe(log);
  let buffered = "";
  const ready = new Promise((done, fail) => {
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf("\n");
      if (end >= 0) done(JSON.parse(buffered.slice(0, end)));
    });
    child.once("exit", (code) => fail(new CheckFailed(`the OpenID provider exited (${code}) before listening; log: ${dir}/stderr`)));
  });
  const line = await Promise.race([ready, sleep(20_000, null)]);
  if (line === null) {
    child.kill("SIGKILL");
    throw new CheckFailed(`the OpenID provider did not listen within 20 s; log: ${dir}/stderr`);
  }
  return {
    issuer: line.issuer,
    stop: () => child.kill("SIGTERM"),
  };
}
