// The browser of an authorization-code flow against tests/oidc/provider.mjs:
// given the authorization URL a client built, it does what a user would do
// in a browser (follows the provider's redirects, keeps its cookies, fills
// in the login form and accepts the consent form) and prints the URL the
// provider finally redirects to, the client's redirect URI with `code`,
// `state` and `iss`, without following it: delivering it to the client is
// the caller's step.
//
//   tests/oidc/node_modules/.bin/node tests/oidc/login.mjs [options] URL
//
//   --login NAME      the login to sign in with (default: alice); it is the
//                     subject (`sub`) of the tokens issued for this grant
//   --deny            abort at the consent page instead of accepting it: the
//                     redirect then carries error=access_denied
//   --timeout SECONDS give up after this long in all (default 20)
//
// stdout: the redirect URL, one line, and nothing else. Exits 1 with the
// reason on stderr when the provider answers with an error page, a page
// without a form, too many redirects, or nothing within the timeout.
// Loopback only: it refuses an authorization URL that is not on 127.0.0.1.

import { parseArgs } from "node:util";

const USAGE = "usage: node login.mjs [--login NAME] [--deny] [--timeout SECONDS] AUTHORIZATION_URL";

let args;
let positionals;
try {
  ({ values: args, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      login: { type: "string", default: "alice" },
      deny: { type: "boolean", default: false },
      timeout: { type: "string", default: "20" },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2);
}
if (args.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}
if (positionals.length !== 1) fail(`one authorization URL, please\n${USAGE}`, 2);
if (!/^\d+$/.test(args.timeout) || Number(args.timeout) < 1) fail("--timeout takes a number of seconds, 1 or more", 2);

function fail(message, code = 1) {
  process.stderr.write(`login.mjs: ${message}\n`);
  process.exit(code);
}

let start;
try {
  start = new URL(positionals[0]);
} catch {
  fail(`not a URL: ${positionals[0]}`, 2);
}
if (start.hostname !== "127.0.0.1") fail(`the authorization URL is not on 127.0.0.1: ${start.href}`, 2);
const provider = start.origin;

/** Cookies by name and path, as a browser keeps them for one origin. */
const jar = new Map();

function keep(response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(";").map((part) => part.trim());
    const at = pair.indexOf("=");
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    let path = "/";
    let expired = false;
    for (const attribute of attributes) {
      const [key, val = ""] = attribute.split("=");
      if (key.toLowerCase() === "path") path = val || "/";
      if (key.toLowerCase() === "expires" && Date.parse(val) <= Date.now()) expired = true;
      if (key.toLowerCase() === "max-age" && Number(val) <= 0) expired = true;
    }
    const key = `${name}\n${path}`;
    if (expired) jar.delete(key);
    else jar.set(key, { name, value, path });
  }
}

function cookies(url) {
  return [...jar.values()]
    .filter(({ path }) => url.pathname === path || url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`))
    .map(({ name, value }) => `${name}=${value}`)
    .join("; ");
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" };

function unescape(text) {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name) => ENTITIES[name]);
}

function attributes(tag) {
  const found = {};
  for (const [, name, value] of tag.matchAll(/([a-zA-Z-]+)\s*=\s*"([^"]*)"/g)) found[name.toLowerCase()] = unescape(value);
  return found;
}

/** The first form of an HTML page: where it posts and what it posts. */
function form(html) {
  const open = html.match(/<form\b[^>]*>/i);
  if (!open) return null;
  const end = html.indexOf("</form>", open.index);
  const body = html.slice(open.index, end < 0 ? undefined : end);
  const fields = new URLSearchParams();
  for (const [tag] of body.matchAll(/<input\b[^>]*>/gi)) {
    const { name, value = "" } = attributes(tag);
    if (!name) continue;
    if (name === "login") fields.set(name, args.login);
    else if (name === "password") fields.set(name, "any password");
    else fields.set(name, value);
  }
  return { action: attributes(open[0]).action ?? "", fields };
}

/** What an error page of oidc-provider says, in short. */
function gist(html) {
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return unescape(text).slice(0, 400);
}

const deadline = AbortSignal.timeout(Number(args.timeout) * 1000);
let url = start;
let request = { method: "GET" };
for (let hop = 0; ; hop++) {
  if (hop === 30) fail(`more than 30 requests without reaching the client's redirect URI (last: ${url.href})`);
  let response;
  try {
    response = await fetch(url, {
      ...request,
      redirect: "manual",
      signal: deadline,
      headers: { ...request.headers, cookie: cookies(url), accept: "text/html" },
    });
  } catch (error) {
    fail(deadline.aborted ? `no redirect to the client within ${args.timeout} s (at ${url.href})` : `${request.method} ${url.href}: ${error.message}`);
  }
  keep(response);
  const location = response.headers.get("location");
  if (response.status >= 300 && response.status < 400 && location) {
    const next = new URL(location, url);
    if (next.origin !== provider) {
      // The client's redirect URI: the end of the browser's part.
      process.stdout.write(`${next.href}\n`);
      process.exit(0);
    }
    url = next;
    request = { method: "GET" };
    continue;
  }
  const html = await response.text();
  const found = response.ok ? form(html) : null;
  if (!found) fail(`${request.method} ${url.href} answered ${response.status}: ${gist(html)}`);
  if (args.deny && found.fields.get("prompt") === "consent") {
    url = new URL(`${found.action.replace(/\/$/, "")}/abort`, url);
    request = { method: "GET" };
    continue;
  }
  url = new URL(found.action, url);
  request = {
    method: "POST",
    body: found.fields.toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  };
}
