// The browser test's driver: renders the weather example's forecast view in
// a real Chromium, through a host page built on @modelcontextprotocol/ext-apps
// (host.html, host.ts), and checks what a person would see. Run by
// tests/browser.rs after tests/browser/install; by hand:
//
//   MCP_URL=http://127.0.0.1:8080/mcp node tests/browser/run.mjs
//
// Environment:
//   MCP_URL   the weather example's Streamable HTTP endpoint (required)
//   SHOT      where to save the view's screenshot
//             (default target/browser/weather-forecast.png)
//   CHROMIUM  the browser (default /usr/bin/chromium)
//   REFERENCE the committed screenshot SHOT is compared with
//             (default examples/weather/forecast.png, the README's picture)
//   UPDATE_SCREENSHOT=1
//             copy SHOT over REFERENCE instead of comparing them: how to
//             refresh the README's picture after a change to the view (then
//             look at it, and commit it)
//
// It serves three loopback origins of its own: the host page, with /mcp
// passed on to MCP_URL (so the page calls the server on its own origin and
// no CORS is needed); the sandbox proxy (sandbox.html) and the views it
// registers, each served once with its Content-Security-Policy header; and a
// probe that counts the requests that reach it (it would answer them, with
// CORS allowed, so only the view's CSP can stop the view's fetch). It then
// checks, each wait bounded:
//   (a) the chart's days (data-high, data-low and the labels shown) are the
//       tool result's structuredContent, which is also what a direct call
//       to the server gives;
//   (b) a screenshot of the view goes to SHOT;
//   (c) a click on another city's button calls get_forecast through the
//       host (which recorded the call) and the chart is drawn again with
//       that city's numbers; so does a click on another number of days;
//   (d) the view's fetch of the probe fails, a connect-src violation is
//       reported in the view, and the probe saw no request (while a fetch
//       of it from the host page, which has no such policy, gets through);
//   (e) no frame logged an error, but for the blocked fetch;
//   (f) the screenshot is REFERENCE's picture: compared in Chromium (both
//       PNGs drawn on canvases), same size, and at most MAX_DIFFERING of the
//       pixels differ by more than TOLERANCE in a channel. On a mismatch a
//       picture of the differing pixels goes next to SHOT (.diff.png).
// The rendering is made deterministic: a fixed clock (the view names the
// days of the week), locale and time zone; reduced motion; only the DejaVu
// fonts, with fixed settings (fonts.conf); the screenshot taken once the
// view's fonts are loaded and the host has sized its frame.
// It prints one line of JSON, the verdict, and exits 0 when every check
// passed, 1 with the failed check's sentence otherwise.

import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const TOOL = "get_forecast";
const ARGS = { city: "Paris", days: 5 };
/** How long any one wait may take. */
const STEP_MS = 20_000;
/** How long the whole run may take. */
const RUN_MS = 120_000;
/** The browser's window. */
const VIEWPORT = { width: 720, height: 560 };
/**
 * The device scale: the screenshot is the view's CSS size times this. At 1
 * it is 640 px wide and about 40 KB, shown at its own size in a README (at
 * 2 it was 140 KB).
 */
const SCALE = 1;
/** The time the page's clock is stopped at (a Monday, at noon in UTC). */
const NOW = new Date("2026-06-01T12:00:00Z");
/** How much a channel of a pixel may differ before the pixel counts as differing. */
const TOLERANCE = 8;
/**
 * The share of differing pixels that still makes the screenshot the
 * committed one: room for a few anti-aliased edges drawn otherwise, not for
 * a word (the five weekday names changed make 0.3%).
 */
const MAX_DIFFERING = 0.001;

const started = Date.now();
const verdict = { ok: false, step: "start" };
let browser;
const servers = [];

function finish(code) {
  verdict.ms = Date.now() - started;
  process.stdout.write(`${JSON.stringify(verdict)}\n`);
  const closing = [browser?.close().catch(() => {}), ...servers.map(stop)];
  Promise.race([Promise.all(closing), new Promise((done) => setTimeout(done, 5000))]).then(() =>
    process.exit(code),
  );
}

function stop(server) {
  return new Promise((done) => {
    server.closeAllConnections?.();
    server.close(() => done());
  });
}

/** Fails the run with a sentence saying which check failed and how. */
class Failure extends Error {}
const check = (ok, sentence) => {
  if (!ok) throw new Failure(sentence);
};

const watchdog = setTimeout(() => {
  verdict.error = `the run did not finish within ${RUN_MS / 1000} s (at step ${verdict.step})`;
  finish(1);
}, RUN_MS);
watchdog.unref();

// --- The servers ---------------------------------------------------------------

/** A server on a free loopback port; its origin, named `name` (which must resolve to 127.0.0.1). */
function listen(handler, name = "127.0.0.1") {
  const server = http.createServer((request, response) => {
    Promise.resolve(handler(request, response)).catch((error) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error?.message ?? error));
    });
  });
  servers.push(server);
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done(`http://${name}:${server.address().port}`));
  });
}

function body(request, limit = 4 << 20) {
  return new Promise((done, fail) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > limit) {
        fail(new Error("body too large"));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on("end", () => done(Buffer.concat(chunks)));
    request.on("error", fail);
  });
}

function file(response, path, type) {
  response.writeHead(200, { "content-type": type, "cache-control": "no-store" });
  response.end(readFileSync(path));
}

/** The host page's origin: host.html, host.js, and /mcp passed on to the server. */
function hostServer(mcpUrl) {
  const target = new URL(mcpUrl);
  return listen((request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    if (path === "/host.html") return file(response, join(here, "host.html"), "text/html; charset=utf-8");
    if (path === "/host.js") {
      return file(response, join(here, "node_modules/.build/host.js"), "text/javascript; charset=utf-8");
    }
    if (path === "/favicon.ico") return response.writeHead(204).end();
    if (path === "/mcp") {
      const headers = { ...request.headers, host: target.host };
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: request.method, headers },
        (answer) => {
          response.writeHead(answer.statusCode, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on("error", (error) => {
        if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
        response.end(`the MCP server did not answer: ${error.message}`);
      });
      response.on("close", () => upstream.destroy());
      request.pipe(upstream);
      return;
    }
    response.writeHead(404).end();
  });
}

/**
 * The sandbox's origin: sandbox.html, and the views it registers, each
 * served once with its CSP. Named `localhost`, so that it is another site
 * than the host page's 127.0.0.1, as a real host's sandbox domain is (the
 * browser then runs it in a process of its own).
 */
function sandboxServer() {
  const views = new Map();
  return listen(async (request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    if (path === "/sandbox.html") return file(response, join(here, "sandbox.html"), "text/html; charset=utf-8");
    if (path === "/favicon.ico") return response.writeHead(204).end();
    if (path === "/views" && request.method === "POST") {
      const { html, csp } = JSON.parse((await body(request)).toString("utf8"));
      if (typeof html !== "string" || typeof csp !== "string" || /[\r\n]/.test(csp) || !csp.trim()) {
        return response.writeHead(400).end("give {html, csp}: csp one line");
      }
      const id = randomUUID();
      views.set(id, { html, csp });
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify({ url: `/views/${id}` }));
    }
    const view = path.startsWith("/views/") && views.get(path.slice("/views/".length));
    if (view && request.method === "GET") {
      views.delete(path.slice("/views/".length));
      response.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": view.csp,
        "cache-control": "no-store",
      });
      return response.end(view.html);
    }
    response.writeHead(404).end();
  }, "localhost");
}

/** The probe: counts what reaches it, and would answer anyone (CORS open). */
function probeServer(hits) {
  return listen((request, response) => {
    hits.push({ method: request.method, url: request.url, origin: request.headers.origin ?? null });
    response.writeHead(200, {
      "content-type": "text/plain",
      "access-control-allow-origin": "*",
      "cache-control": "no-store",
    });
    response.end("reached");
  });
}

// --- The checks ------------------------------------------------------------------

/** The tool's result straight from the server, not through the page. */
async function directCall(mcpUrl, args) {
  const client = new Client({ name: "mcp-browser-test-check", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    return await client.callTool({ name: TOOL, arguments: args });
  } finally {
    await client.close();
  }
}

/** What the chart shows: each day element's data and the labels a person reads. */
function chartDays(view) {
  return view.$$eval("[data-day]", (elements) =>
    elements.map((element) => {
      const box = element.getBoundingClientRect();
      return {
        day: Number(element.getAttribute("data-day")),
        high: Number(element.getAttribute("data-high")),
        low: Number(element.getAttribute("data-low")),
        highText: element.querySelector(".high")?.textContent ?? null,
        lowText: element.querySelector(".low")?.textContent ?? null,
        visible: box.width > 0 && box.height > 0,
      };
    }),
  );
}

/** Asserts that the chart shows `forecast` (a get_forecast structuredContent). */
async function assertChart(view, forecast, when) {
  const shown = (await chartDays(view)).sort((a, b) => a.day - b.day);
  check(
    shown.length === forecast.days.length,
    `${when}: the chart has ${shown.length} day elements, the result ${forecast.days.length} days`,
  );
  forecast.days.forEach((day, i) => {
    const element = shown[i];
    check(
      element.day === day.day && element.high === day.high && element.low === day.low,
      `${when}: day ${day.day} of the chart is data-high=${element.high} data-low=${element.low}, ` +
        `the result says high ${day.high}, low ${day.low}`,
    );
    check(element.visible, `${when}: day ${day.day} of the chart is not visible`);
    check(
      parseFloat(element.highText) === day.high && parseFloat(element.lowText) === day.low,
      `${when}: day ${day.day} of the chart reads ${JSON.stringify(element.highText)} / ` +
        `${JSON.stringify(element.lowText)}, the result says ${day.high} / ${day.low}`,
    );
  });
  return shown;
}

/** The days of a forecast, as the verdict gives them. */
const brief = (forecast) => forecast.days.map(({ day, high, low }) => ({ day, high, low }));

/**
 * Clicks `selector` in the view and follows what should come of it: the
 * view's tools/call of get_forecast through the host (with arguments that
 * `wanted` accepts), a result that is the server's own, and the chart drawn
 * again with it. The new forecast.
 */
async function clickAndFollow(page, view, mcpUrl, selector, what, wanted) {
  const before = await page.evaluate(() => window.__host.calls.length);
  await view.click(selector);
  const call = await until(
    page,
    ([from, tool]) =>
      window.__host.calls
        .slice(from)
        .find((c) => c.method === "tools/call" && c.params?.name === tool && (c.result || c.error)),
    [before, TOOL],
    `the view calling ${TOOL} through the host after ${what}`,
  );
  check(!call.error && !call.result?.isError, `after ${what}, the view's call failed: ${JSON.stringify(call.error ?? call.result)}`);
  check(wanted(call.params.arguments), `${what} called ${TOOL} with ${JSON.stringify(call.params.arguments)}`);
  const forecast = call.result.structuredContent;
  const direct = await directCall(mcpUrl, call.params.arguments);
  check(
    isDeepStrictEqual(direct.structuredContent, forecast),
    `after ${what}, the host passed the view a result that differs from the server's: ` +
      `${JSON.stringify(forecast)} vs ${JSON.stringify(direct.structuredContent)}`,
  );
  await until(
    view,
    (days) => {
      const shown = [...document.querySelectorAll("[data-day]")];
      return (
        shown.length === days.length &&
        days.every((d, i) => Number(shown[i].getAttribute("data-high")) === d.high && Number(shown[i].getAttribute("data-low")) === d.low)
      );
    },
    forecast.days,
    `the chart being drawn again after ${what}`,
  );
  await assertChart(view, forecast, `after ${what}`);
  return forecast;
}

/** Waits until `probe` (run in the page or frame) gives something truthy. */
async function until(frame, probe, arg, what) {
  try {
    return await (await frame.waitForFunction(probe, arg, { timeout: STEP_MS, polling: 50 })).jsonValue();
  } catch (error) {
    throw new Failure(`${what} did not happen within ${STEP_MS / 1000} s (${error.message.split("\n")[0]})`);
  }
}

async function run() {
  const mcpUrl = process.env.MCP_URL;
  check(mcpUrl, "MCP_URL is not set: give the weather example's Streamable HTTP endpoint");
  const shot = resolve(process.env.SHOT ?? "target/browser/weather-forecast.png");
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

  verdict.step = "serve";
  const hits = [];
  const [host, sandbox, probe] = await Promise.all([hostServer(mcpUrl), sandboxServer(), probeServer(hits)]);

  verdict.step = "launch";
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
    // Only the DejaVu fonts, whatever the machine has (see fonts.conf).
    env: { ...process.env, FONTCONFIG_FILE: join(here, "fonts.conf") },
    timeout: STEP_MS,
  });
  verdict.browser = browser.version();
  const context = await browser.newContext({
    viewport: VIEWPORT,
    deviceScaleFactor: SCALE,
    reducedMotion: "reduce",
    locale: "en-US",
    timezoneId: "UTC",
  });
  // Date.now() and new Date() give NOW in every frame (the view names the
  // days of the week); timers run as usual.
  await context.clock.setFixedTime(NOW);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push({ text: message.text(), url: message.location()?.url ?? "" });
  });
  page.on("pageerror", (error) => errors.push({ text: `uncaught: ${error.message}`, url: "" }));

  verdict.step = "load";
  const query = new URLSearchParams({ tool: TOOL, args: JSON.stringify(ARGS), sandbox: `${sandbox}/sandbox.html` });
  await page.goto(`${host}/host.html?${query}`, { timeout: STEP_MS });
  const state = await until(page, () => window.__host?.state !== "starting" && window.__host.state, null, "the host showing the view");
  check(state === "ready", `the host failed: ${await page.evaluate(() => window.__host.error)}`);
  const record = await page.evaluate(() => window.__host);
  const sandboxFrame = await (await page.waitForSelector("#sandbox")).contentFrame();
  const view = await (await sandboxFrame.waitForSelector("#view")).contentFrame();
  check(new URL(view.url()).origin === sandbox, `the view was loaded from ${view.url()}, not the sandbox's origin`);

  // (a) The chart is the tool's result, which is the server's.
  verdict.step = "chart";
  const forecast = record.toolResult?.structuredContent;
  check(Array.isArray(forecast?.days), `the tool result has no structuredContent.days: ${JSON.stringify(record.toolResult)}`);
  const direct = await directCall(mcpUrl, ARGS);
  check(
    isDeepStrictEqual(direct.structuredContent, forecast),
    `the host's result differs from a direct call's: ${JSON.stringify(forecast)} vs ${JSON.stringify(direct.structuredContent)}`,
  );
  await until(view, (n) => document.querySelectorAll("[data-day]").length === n, forecast.days.length, "the chart being drawn");
  await assertChart(view, forecast, "the first forecast");
  verdict.forecast = { city: forecast.city, days: brief(forecast) };

  // (b) The screenshot, once the host has sized the frame to the view.
  verdict.step = "screenshot";
  await until(
    page,
    () => {
      const size = window.__host.sizes.at(-1);
      const frame = document.querySelector("#sandbox").getBoundingClientRect();
      return size?.height > 0 && Math.abs(frame.height - size.height) < 1;
    },
    null,
    "the host sizing the frame to the view",
  );
  await view.evaluate(() => document.fonts.ready.then(() => new Promise(requestAnimationFrame)));
  mkdirSync(dirname(shot), { recursive: true });
  await page.locator("#sandbox").screenshot({ path: shot, animations: "disabled" });
  verdict.screenshot = shot;

  // (c) A city button, then a days button, call get_forecast back through
  // the host; the chart follows each.
  verdict.step = "click";
  const cities = await view.$$eval("[data-city]", (buttons) => buttons.map((button) => button.getAttribute("data-city")));
  const city = cities.find((name) => name !== forecast.city);
  check(city, `the view has no button for a city other than ${forecast.city} (buttons: ${JSON.stringify(cities)})`);
  const second = await clickAndFollow(page, view, mcpUrl, `[data-city="${city}"]`, `the click on ${city}`, (args) => args?.city === city);
  check(
    (await view.evaluate(() => document.body.innerText)).includes(second.city),
    `the view does not show the city's name ${second.city} after the click on ${city}`,
  );
  verdict.click = { city, days: brief(second) };
  const counts = await view.$$eval("[data-days]", (buttons) => buttons.map((button) => Number(button.getAttribute("data-days"))));
  const count = counts.find((n) => n !== second.days.length);
  check(count, `the view has no button for another number of days than ${second.days.length} (buttons: ${JSON.stringify(counts)})`);
  const third = await clickAndFollow(
    page,
    view,
    mcpUrl,
    `[data-days="${count}"]`,
    `the click on ${count} days`,
    (args) => args?.days === count && args?.city === city,
  );
  check(third.days.length === count && third.city === second.city, `the click on ${count} days gave ${third.days.length} days for ${third.city}`);
  verdict.clickDays = { city: third.city, days: brief(third) };

  // (d) The CSP: the view may not reach a domain its metadata does not name.
  verdict.step = "csp";
  const policy = await sandboxFrame.$eval("#view", (frame) => frame.dataset.csp);
  const connectDomains = record.viewMeta?.csp?.connectDomains ?? [];
  const probeUrl = `${probe}/probe`;
  check(!connectDomains.some((d) => probe.startsWith(d)), `the view's metadata allows the probe's origin: ${JSON.stringify(connectDomains)}`);
  await view.evaluate(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      window.__violations.push({ directive: event.effectiveDirective, blocked: event.blockedURI }),
    );
  });
  await view.fill("#probe-url", probeUrl);
  await view.click("#csp-probe");
  const outcome = await until(
    view,
    () => {
      const text = document.querySelector("#probe-result")?.textContent ?? "";
      return /blocked|allowed/.test(text) && text;
    },
    null,
    "the view's fetch of the probe settling",
  );
  // The violation event is queued as a task of its own; the probe's
  // listener would have its request by now too.
  await page.waitForTimeout(300);
  const violations = await view.evaluate(() => window.__violations);
  verdict.csp = { policy, result: outcome, violations, probeHits: hits.length };
  check(!/allowed/.test(outcome), `the view fetched ${probeUrl} although its CSP should block it: ${outcome}`);
  check(
    violations.some((v) => v.directive === "connect-src" && v.blocked.startsWith(probe)),
    `no connect-src violation for ${probeUrl} was reported in the view: ${JSON.stringify(violations)}`,
  );
  check(hits.length === 0, `the probe was reached ${hits.length} time(s) from the view: ${JSON.stringify(hits)}`);
  // The control: without the view's CSP (the host page has none) the probe answers.
  const control = await page.evaluate((url) => fetch(url).then((r) => r.text(), (e) => `failed: ${e.message}`), `${probe}/control`);
  check(control === "reached" && hits.length === 1, `the probe did not answer the host page (${control}), so the CSP check proves nothing`);

  // (e) No errors in any frame, but the blocked fetch's.
  verdict.step = "console";
  const unexpected = errors.filter((error) => !error.text.includes(probe));
  verdict.consoleErrors = unexpected;
  check(unexpected.length === 0, `the page logged errors: ${JSON.stringify(unexpected)}`);
  verdict.expectedErrors = errors.length;

  // (f) The screenshot is the committed one (or replaces it).
  verdict.step = "compare";
  verdict.compare = await compareShot(browser, shot);

  verdict.step = "done";
  verdict.ok = true;
}

/**
 * Compares the screenshot at `shot` with REFERENCE in a page of its own
 * (decoded and read back by Chromium's canvas), or with UPDATE_SCREENSHOT=1
 * copies it there. What was done, for the verdict; fails on a mismatch.
 */
async function compareShot(browser, shot) {
  const reference = resolve(process.env.REFERENCE ?? join(here, "../../examples/weather/forecast.png"));
  const refresh = "to make the fresh screenshot the committed one, run the test with UPDATE_SCREENSHOT=1 " +
    "(`UPDATE_SCREENSHOT=1 cargo test -p mcp-tests --test browser`), look at the picture, and commit it";
  if (process.env.UPDATE_SCREENSHOT === "1") {
    copyFileSync(shot, reference);
    return { updated: reference };
  }
  check(existsSync(reference), `there is no committed screenshot at ${reference} to compare ${shot} with; ${refresh}`);
  const page = await browser.newPage();
  try {
    const png = (path) => `data:image/png;base64,${readFileSync(path).toString("base64")}`;
    const result = await page.evaluate(
      async ({ fresh, committed, tolerance }) => {
        const pixels = async (url) => {
          const image = new Image();
          image.src = url;
          await image.decode();
          const canvas = document.createElement("canvas");
          canvas.width = image.naturalWidth;
          canvas.height = image.naturalHeight;
          const context = canvas.getContext("2d", { willReadFrequently: true });
          context.drawImage(image, 0, 0);
          return context.getImageData(0, 0, canvas.width, canvas.height);
        };
        const [a, b] = await Promise.all([pixels(fresh), pixels(committed)]);
        const sizes = { fresh: [a.width, a.height], committed: [b.width, b.height] };
        if (a.width !== b.width || a.height !== b.height) return { ...sizes, share: null };
        const diff = new ImageData(a.width, a.height);
        let differing = 0;
        for (let i = 0; i < a.data.length; i += 4) {
          let off = false;
          for (let c = 0; c < 4; c++) off ||= Math.abs(a.data[i + c] - b.data[i + c]) > tolerance;
          if (off) differing++;
          // The differing pixels in red over a faint copy of the committed picture.
          diff.data.set(off ? [255, 0, 0, 255] : [b.data[i], b.data[i + 1], b.data[i + 2], 48], i);
        }
        const share = differing / (a.width * a.height);
        let picture = null;
        if (differing > 0) {
          const canvas = document.createElement("canvas");
          canvas.width = a.width;
          canvas.height = a.height;
          canvas.getContext("2d").putImageData(diff, 0, 0);
          picture = canvas.toDataURL("image/png");
        }
        return { ...sizes, differing, share, picture };
      },
      { fresh: png(shot), committed: png(reference), tolerance: TOLERANCE },
    );
    const { picture, ...compare } = result;
    compare.reference = reference;
    const size = ([w, h]) => `${w}x${h}`;
    check(
      compare.share !== null,
      `the screenshot ${shot} is ${size(compare.fresh)} pixels, the committed one ${reference} ` +
        `${size(compare.committed)}; ${refresh}`,
    );
    const diff = shot.replace(/\.png$/, "") + ".diff.png";
    rmSync(diff, { force: true });
    if (picture) {
      compare.diff = diff;
      writeFileSync(diff, Buffer.from(picture.split(",")[1], "base64"));
    }
    check(
      compare.share <= MAX_DIFFERING,
      `the screenshot ${shot} differs from the committed one ${reference}: ` +
        `${(compare.share * 100).toFixed(2)}% of its ${size(compare.fresh)} pixels differ by more than ` +
        `${TOLERANCE} in a channel (at most ${MAX_DIFFERING * 100}% may); the differing pixels are red in ` +
        `${compare.diff}; ${refresh}`,
    );
    return compare;
  } finally {
    await page.close();
  }
}

run().then(
  () => finish(0),
  (error) => {
    verdict.error = error instanceof Failure ? error.message : `${error?.stack ?? error}`;
    finish(1);
  },
);
