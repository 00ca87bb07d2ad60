// A real OpenID provider (npm `oidc-provider`, pinned in package-lock.json)
// on 127.0.0.1, for the auth tests (tests/auth_provider.rs, the OAuth checks
// of tests/interop) and for the README's "Securing an HTTP server".
//
//   tests/oidc/node_modules/.bin/node tests/oidc/provider.mjs [options]
//
//   --port N          listen on 127.0.0.1:N (default 0: a free port)
//   --ttl SECONDS     lifetime of the access tokens it issues (default 3600)
//   --format F        `jwt` (default): RS256 JWT access tokens whose `aud` is
//                     the requested resource; `opaque`: opaque tokens, for
//                     servers that check them by introspection (RFC 7662)
//   --exit-with-stdin exit when stdin closes (the tests use it, so a killed
//                     test never leaves a provider behind)
//   --help            the options
//
// When it listens it prints one JSON line on stdout,
// {"issuer": "http://127.0.0.1:PORT", "port": PORT}, and nothing else; its
// log goes to stderr.
//
// What it serves: the issuer's metadata at /.well-known/openid-configuration
// (and /.well-known/oauth-authorization-server), its keys at /jwks, the
// client-credentials, authorization-code and refresh-token grants at /token,
// introspection at /token/introspection, revocation at /token/revocation,
// and dynamic client registration (RFC 7591, open) at /reg. Any resource
// indicator (RFC 8707) on http://127.0.0.1 (any port, any path) is accepted,
// and is the audience of the token; with the authorization-code grant it
// must be sent in the token request too (the grant does not remember it).
// The clients (secret after the slash) all may ask for the scopes
// `weather:read` and `admin`; with the client-credentials grant the token's
// subject is the client id:
//
//   mcp-test / mcp-test-secret     the usual caller
//   mcp-other / mcp-other-secret   another caller (another subject)
//   mcp-server / mcp-server-secret the MCP server itself, for introspection
//
// The authorization-code flow (RFC 6749 with PKCE S256, which it requires
// of every client, and RFC 9207's `iss` in the redirect): the login and
// consent pages are oidc-provider's own (devInteractions: any login, any
// password; the login is the token's subject), and tests/oidc/login.mjs
// goes through them as a browser would. Its clients are native (RFC 8252:
// any port of the registered loopback redirect URI is accepted) and get a
// refresh token with every code (rotated at each use):
//
//   mcp-native                     public (token_endpoint_auth_method none),
//                                  redirect http://127.0.0.1/callback
//   mcp-app / mcp-app-secret       confidential (client_secret_basic), the
//                                  same redirect URI, and client credentials
//
// Clients registered at /reg may use loopback redirect URIs too. The
// metadata lists code_challenge_methods_supported ["S256"],
// authorization_response_iss_parameter_supported true, and the scopes
// weather:read, admin, offline_access and openid.
//
// Admin routes (loopback only, not part of any standard):
//
//   POST /admin/rotate        a new signing key, first in the JWKS; the old
//                             one stays published (`?drop=1`: it goes)
//   POST /admin/ttl?seconds=N the lifetime of the tokens issued from now on
//   POST /admin/clock?offset=N the provider's clock runs N seconds ahead (or
//                             behind, N < 0): with N = -3720 and the default
//                             lifetime, a token expired two minutes ago
//
// A rotation swaps in a new Provider instance on the same port; tokens
// issued before it stay known (the token store is shared).

import { generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

import Provider, { errors } from "oidc-provider";

// stdout carries the ready line only: oidc-provider's notices (console.info)
// and anything else logged go to stderr.
console.log = console.info = console.debug = console.error;
process.stdout.on("error", () => {});

const USAGE = `usage: node provider.mjs [--port N] [--ttl SECONDS] [--format jwt|opaque] [--exit-with-stdin]

An OpenID provider (oidc-provider) on 127.0.0.1 issuing access tokens with
the client-credentials grant to mcp-test, mcp-other and mcp-server (secret:
the id followed by -secret) for the scopes weather:read and admin, for any
http://127.0.0.1:* resource; and with the authorization-code grant (PKCE,
login and consent pages, dynamic registration) to native clients such as
mcp-native. See the top of this file for the details.`;

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      ttl: { type: "string", default: "3600" },
      format: { type: "string", default: "jwt" },
      "exit-with-stdin": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if (args.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}

const SCOPES = ["weather:read", "admin"];
const CLIENTS = [
  ...["mcp-test", "mcp-other", "mcp-server"].map((id) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    // Every scope the metadata lists (scopes_supported): a client that
    // knows no better asks for them all (the Python SDK does, and adds
    // offline_access as MCP 2026-07-28 has it, for any grant). Only
    // weather:read and admin reach the access token of a resource.
    scope: [...SCOPES, "offline_access", "openid"].join(" "),
  })),
  // Authorization-code clients, both native: any port of their loopback
  // redirect URI is accepted (RFC 8252 section 7.3).
  {
    client_id: "mcp-native",
    application_type: "native",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    redirect_uris: ["http://127.0.0.1/callback"],
    scope: [...SCOPES, "offline_access", "openid"].join(" "),
  },
  {
    client_id: "mcp-app",
    client_secret: "mcp-app-secret",
    application_type: "native",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code", "refresh_token", "client_credentials"],
    response_types: ["code"],
    redirect_uris: ["http://127.0.0.1/callback"],
    scope: [...SCOPES, "offline_access", "openid"].join(" "),
  },
];

let ttl = integer(args.ttl, "--ttl");
if (ttl < 1) fail("--ttl must be at least 1 (for a token that is already expired, see /admin/clock)");
const format = args.format;
if (!["jwt", "opaque"].includes(format)) fail(`--format is jwt or opaque, not ${format}`);

function integer(text, name) {
  if (!/^-?\d+$/.test(text)) fail(`${name} takes an integer, not ${JSON.stringify(text)}`);
  return Number(text);
}

function fail(message) {
  process.stderr.write(`provider.mjs: ${message}\n`);
  process.exit(2);
}

/** A new RSA signing key as a private JWK, with a fresh `kid`. */
function signingKey() {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid: randomUUID(), use: "sig", alg: "RS256" };
}

/** Whether `resource` is an absolute http URL on this loopback address. */
function acceptedResource(resource) {
  try {
    const url = new URL(resource);
    return url.protocol === "http:" && url.hostname === "127.0.0.1" && !url.hash;
  } catch {
    return false;
  }
}

function newProvider(issuer, keys) {
  const provider = new Provider(issuer, {
    clients: CLIENTS,
    scopes: [...SCOPES, "offline_access"],
    jwks: { keys },
    cookies: { keys: [cookieKey] },
    // PKCE (S256, the only method oidc-provider knows) on every
    // authorization request, confidential clients included.
    pkce: { required: () => true },
    // Refresh tokens with every authorization-code grant to the clients
    // that may use them, rotated at each use. (oidc-provider's default asks
    // for offline_access as well, which it honours only with prompt=consent
    // in the authorization request, as OpenID Connect has it; MCP clients
    // send no prompt.)
    issueRefreshToken: (_ctx, client, source) =>
      client.grantTypeAllowed("refresh_token") && ["AuthorizationCode", "RefreshToken"].includes(source.kind),
    rotateRefreshToken: true,
    features: {
      // The provider's own login and consent pages (any login, any
      // password), whose forms tests/oidc/login.mjs posts.
      devInteractions: { enabled: true },
      // Dynamic client registration (RFC 7591), open to anyone.
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx, resource) => {
          if (!acceptedResource(resource)) {
            throw new errors.InvalidTarget(`this provider serves http://127.0.0.1:* resources only, not ${resource}`);
          }
          return {
            scope: SCOPES.join(" "),
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: format,
            ...(format === "jwt" ? { jwt: { sign: { alg: "RS256" } } } : {}),
          };
        },
      },
    },
    ttl: {
      AccessToken: () => ttl,
      ClientCredentials: () => ttl,
    },
  });
  for (const event of ["server_error", "grant.error", "introspection.error", "revocation.error"]) {
    provider.on(event, (_ctx, error) => {
      process.stderr.write(`provider.mjs: ${event}: ${error.message}${error.error_description ? ` (${error.error_description})` : ""}\n`);
      if (event === "server_error") process.stderr.write(`${error.stack}\n`);
    });
  }
  // The RFC 8414 path as well, for clients that look there first.
  const callback = provider.callback();
  return (req, res) => {
    if (req.url === "/.well-known/oauth-authorization-server") req.url = "/.well-known/openid-configuration";
    callback(req, res);
  };
}

// Every time oidc-provider reads (iat, exp, expiry checks) comes from
// Date.now, so an offset here moves its whole clock.
let clockOffset = 0;
const realNow = Date.now;
Date.now = () => realNow() + clockOffset;

let keys = [signingKey()];
// Signs the interaction and session cookies; one per run.
const cookieKey = randomUUID();
let handle = null;

function admin(req, res, url) {
  const reply = (status, body) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.method !== "POST") return reply(405, { error: "POST only" });
  if (url.pathname === "/admin/rotate") {
    const drop = url.searchParams.get("drop") === "1";
    keys = [signingKey(), ...(drop ? [] : keys)];
    handle = newProvider(issuer, keys);
    const kids = keys.map((key) => key.kid);
    process.stderr.write(`provider.mjs: rotated, signing with ${kids[0]}; published: ${kids.join(", ")}\n`);
    return reply(200, { kid: kids[0], kids });
  }
  if (url.pathname === "/admin/ttl") {
    const seconds = url.searchParams.get("seconds") ?? "";
    if (!/^\d+$/.test(seconds) || Number(seconds) < 1) return reply(400, { error: "seconds must be a positive integer" });
    ttl = Number(seconds);
    return reply(200, { ttl });
  }
  if (url.pathname === "/admin/clock") {
    const offset = url.searchParams.get("offset") ?? "";
    if (!/^-?\d+$/.test(offset)) return reply(400, { error: "offset must be an integer (seconds)" });
    clockOffset = Number(offset) * 1000;
    return reply(200, { offset: Number(offset) });
  }
  reply(404, { error: "no such admin route" });
}

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname.startsWith("/admin/")) return admin(req, res, url);
  handle(req, res);
});

server.on("error", (error) => fail(`cannot listen on 127.0.0.1:${args.port}: ${error.message}`));
let issuer;
server.listen(integer(args.port, "--port"), "127.0.0.1", () => {
  const { port } = server.address();
  issuer = `http://127.0.0.1:${port}`;
  handle = newProvider(issuer, keys);
  process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);
  process.stderr.write(`provider.mjs: ${issuer}, ${format} access tokens for ${ttl} s, signing key ${keys[0].kid}\n`);
});

if (args["exit-with-stdin"]) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
}
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
