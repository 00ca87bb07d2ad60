//! A real OpenID provider for the auth tests: `tests/oidc/provider.mjs`
//! (npm `oidc-provider`, pinned in tests/oidc/package-lock.json) on a free
//! loopback port, run with the Node 22 installed next to it by
//! `tests/oidc/install`, which the first test to start a provider runs when
//! the install is missing or older than the pins ([`INSTALL`]). It issues
//! access tokens with the client-credentials grant for any
//! `http://127.0.0.1:*` resource indicator: RS256 JWTs whose `aud` is the
//! resource, or opaque tokens ([`Provider::opaque`]) checked by
//! introspection; and with the authorization-code grant, whose browser
//! step is tests/oidc/login.mjs ([`Provider::login`]). The process is killed when the [`Provider`] is dropped,
//! and exits by itself when the test process dies (its stdin closes).
//!
//! The forgeries of the failure table are made from real tokens:
//! [`tampered_signature`], [`alg_none`], [`with_header`].

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use super::http;
use super::prerequisite::{self, Prerequisite};

/// The usual caller: a confidential client whose tokens have this subject.
pub const CLIENT: &str = "mcp-test";
/// Another caller, with another subject.
pub const OTHER_CLIENT: &str = "mcp-other";
/// The client an MCP server uses to introspect opaque tokens.
pub const SERVER_CLIENT: &str = "mcp-server";

/// A public native client of the authorization-code grant (no secret),
/// whose redirect URI is `http://127.0.0.1:ANY_PORT/callback`.
pub const NATIVE_CLIENT: &str = "mcp-native";
/// A confidential native client of the authorization-code grant (secret
/// `mcp-app-secret`, HTTP Basic), with the same redirect URI; it may use
/// the client-credentials grant too.
pub const APP_CLIENT: &str = "mcp-app";

/// How long tests/oidc/login.mjs may take to sign in and consent.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(30);

/// A client's secret (each is its id followed by `-secret`).
pub fn secret(client: &str) -> String {
    format!("{client}-secret")
}

/// How long the provider may take to start listening.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// A running provider, killed on drop.
pub struct Provider {
    child: Child,
    // Held open: the provider exits when it closes (`--exit-with-stdin`).
    _stdin: ChildStdin,
    issuer: String,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<u8>>>,
}

impl Provider {
    /// A provider issuing RS256 JWT access tokens valid for an hour.
    pub fn start() -> Provider {
        Provider::start_with(&[])
    }

    /// A provider issuing opaque access tokens, for introspection.
    pub fn opaque() -> Provider {
        Provider::start_with(&["--format", "opaque"])
    }

    /// A provider started with these extra arguments of provider.mjs
    /// (`--ttl SECONDS`, `--format jwt|opaque`).
    pub fn start_with(args: &[&str]) -> Provider {
        let node = node();
        let mut child = Command::new(&node)
            .arg(oidc_dir().join("provider.mjs"))
            .args(["--port", "0", "--exit-with-stdin"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {}: {e}", node.display()));
        let stdin = child.stdin.take().expect("stdin");
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut stderr = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        // The first line says it is ready; the pipe stays drained after it.
        let stdout = child.stdout.take().expect("stdout");
        let (tx, ready) = mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next().and_then(Result::ok).unwrap_or_default());
            for line in lines.map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.extend_from_slice(line.as_bytes());
                log.push(b'\n');
            }
        });
        let mut provider = Provider {
            child,
            _stdin: stdin,
            issuer: String::new(),
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            log,
        };
        let line = match ready.recv_timeout(READY_TIMEOUT) {
            Ok(line) if !line.is_empty() => line,
            Ok(_) => {
                // Give its last words a moment to arrive.
                let _ = provider.child.wait();
                std::thread::sleep(Duration::from_millis(100));
                panic!(
                    "the OpenID provider exited before it listened; its log:\n{}",
                    provider.log()
                )
            }
            Err(_) => panic!(
                "the OpenID provider did not listen within {READY_TIMEOUT:?}; its log:\n{}",
                provider.log()
            ),
        };
        let ready: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the provider's first line is not JSON ({e}): {line:?}"));
        let port = ready["port"].as_u64().expect("a port") as u16;
        provider.issuer = ready["issuer"].as_str().expect("an issuer").to_owned();
        provider.addr = SocketAddr::from(([127, 0, 0, 1], port));
        provider
    }

    /// The issuer identifier, `http://127.0.0.1:PORT` (no trailing slash).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The provider's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the provider wrote on stderr so far.
    pub fn log(&self) -> String {
        String::from_utf8_lossy(&self.log.lock().unwrap()).into_owned()
    }

    /// An access token for `client` (client-credentials grant) with the
    /// `scope` (space-separated, may be empty) and the audience `resource`.
    pub fn token(&self, client: &str, scope: &str, resource: &str) -> String {
        let (status, body) = self.token_request(client, scope, resource);
        assert_eq!(status, 200, "the token request failed: {body}");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token in {body}"))
            .to_owned()
    }

    /// The token endpoint's status and JSON answer.
    pub fn token_request(&self, client: &str, scope: &str, resource: &str) -> (u16, Value) {
        let mut form = vec![("grant_type", "client_credentials"), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        self.post_form("/token", client, &form)
    }

    /// A token like [`Provider::token`]'s that expired two minutes ago
    /// (beyond the resource server's default leeway of 60 s): issued with
    /// the provider's clock an hour and two minutes behind.
    pub fn expired_token(&self, client: &str, scope: &str, resource: &str) -> String {
        self.set_clock_offset(-3720);
        let token = self.token_request(client, scope, resource);
        self.set_clock_offset(0);
        let (status, body) = token;
        assert_eq!(status, 200, "the token request failed: {body}");
        body["access_token"].as_str().expect("a token").to_owned()
    }

    /// Moves the provider's clock `seconds` ahead (behind if negative).
    pub fn set_clock_offset(&self, seconds: i64) {
        self.admin(&format!("/admin/clock?offset={seconds}"));
    }

    /// The lifetime of the tokens issued from now on.
    pub fn set_ttl(&self, seconds: u64) {
        self.admin(&format!("/admin/ttl?seconds={seconds}"));
    }

    /// A new signing key, first in the JWKS (the old one stays published);
    /// returns its `kid`. Tokens issued from now on are signed with it.
    pub fn rotate_keys(&self) -> String {
        self.admin("/admin/rotate")["kid"]
            .as_str()
            .expect("a kid")
            .to_owned()
    }

    /// As [`Provider::rotate_keys`], and the old keys are no longer
    /// published.
    pub fn rotate_keys_dropping_old(&self) -> String {
        self.admin("/admin/rotate?drop=1")["kid"]
            .as_str()
            .expect("a kid")
            .to_owned()
    }

    /// The browser's part of an authorization-code flow: tests/oidc/login.mjs
    /// signs in as `login` on the provider's login page for
    /// `authorization_url` (which a client built), accepts the consent page,
    /// and returns the URL the provider redirects to (the client's redirect
    /// URI with `code`, `state` and `iss`), not followed. Panics with the
    /// script's reason if it does not get there within [`LOGIN_TIMEOUT`].
    pub fn login(&self, authorization_url: &str, login: &str) -> String {
        login_at(authorization_url, &["--login", login])
            .unwrap_or_else(|reason| panic!("{reason}; the provider's log:\n{}", self.log()))
    }

    /// The published key set.
    pub fn jwks(&self) -> Value {
        let mut reply = http::send_to(self.addr, "GET", "/jwks", &[], b"");
        assert_eq!(reply.status, 200, "GET /jwks");
        reply.json()
    }

    /// Revokes `token` (RFC 7009) as `client`, the client it was issued to.
    pub fn revoke(&self, client: &str, token: &str) {
        let (status, body) = self.post_form("/token/revocation", client, &[("token", token)]);
        assert_eq!(status, 200, "revocation failed: {body}");
    }

    /// What the introspection endpoint (RFC 7662) says of `token`, asked
    /// as the MCP server's client.
    pub fn introspect(&self, token: &str) -> Value {
        let (status, body) =
            self.post_form("/token/introspection", SERVER_CLIENT, &[("token", token)]);
        assert_eq!(status, 200, "introspection failed: {body}");
        body
    }

    /// POSTs a form with HTTP Basic client authentication.
    fn post_form(&self, path: &str, client: &str, form: &[(&str, &str)]) -> (u16, Value) {
        let body = form
            .iter()
            .map(|(name, value)| format!("{}={}", form_encode(name), form_encode(value)))
            .collect::<Vec<_>>()
            .join("&");
        let basic = format!(
            "Basic {}",
            base64_encode(format!("{client}:{}", secret(client)).as_bytes(), STANDARD)
        );
        let mut reply = http::send_to(
            self.addr,
            "POST",
            path,
            &[
                ("Authorization", &basic),
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
            ],
            body.as_bytes(),
        );
        let text = reply.text();
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|_| json!(text))
        };
        (reply.status, value)
    }

    fn admin(&self, path: &str) -> Value {
        let mut reply = http::send_to(self.addr, "POST", path, &[], b"");
        let status = reply.status;
        let body = reply.json();
        assert_eq!(status, 200, "POST {path}: {body}");
        body
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs tests/oidc/login.mjs on `authorization_url` with `args`: the
/// redirect URL it prints, or why it did not.
pub fn login_at(authorization_url: &str, args: &[&str]) -> Result<String, String> {
    let node = node();
    let mut child = Command::new(&node)
        .arg(oidc_dir().join("login.mjs"))
        .args(["--timeout", &LOGIN_TIMEOUT.as_secs().to_string()])
        .args(args)
        .arg(authorization_url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", node.display()))?;
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut out, mut err) = (String::new(), String::new());
        let _ = stdout.read_to_string(&mut out);
        let _ = stderr.read_to_string(&mut err);
        let _ = tx.send((out, err));
    });
    // The script has its own timeout; this one is for a script that hangs.
    let Ok((out, err)) = done.recv_timeout(LOGIN_TIMEOUT + Duration::from_secs(5)) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("login.mjs did not finish within {LOGIN_TIMEOUT:?}"));
    };
    let status = child.wait().map_err(|e| format!("login.mjs: {e}"))?;
    match out.trim() {
        redirect if status.success() && !redirect.is_empty() => Ok(redirect.to_owned()),
        _ => Err(format!("login.mjs failed ({status}): {}", err.trim())),
    }
}

fn oidc_dir() -> PathBuf {
    prerequisite::repository().join("tests/oidc")
}

/// The OpenID provider in tests/oidc/node_modules, with the Node 22 it runs
/// on, installed from the current pins by tests/oidc/install.
pub static INSTALL: Prerequisite = Prerequisite::new(
    "oidc",
    "the OpenID provider of the auth tests (npm oidc-provider on Node 22, pinned in \
     tests/oidc/package-lock.json)",
    "tests/oidc/install",
    "Install it by hand: run tests/oidc/install (it needs Node.js 20 or later with npm, and \
     access to https://registry.npmjs.org), then run the tests again.",
    || {
        prerequisite::npm_install_current(
            &oidc_dir(),
            ".oidc-stamp",
            &["node_modules/.bin/node", "node_modules/oidc-provider"],
        )
    },
);

/// The Node 22 installed by tests/oidc/install, installed first if it is
/// not (or not from the current pins).
fn node() -> PathBuf {
    INSTALL.ensure();
    oidc_dir().join("node_modules/.bin/node")
}

/// The header of a JWT, decoded.
pub fn header(token: &str) -> Value {
    part(token, 0)
}

/// The claims of a JWT, decoded.
pub fn claims(token: &str) -> Value {
    part(token, 1)
}

fn part(token: &str, index: usize) -> Value {
    let segment = token.split('.').nth(index).expect("a JWT has three parts");
    let bytes = base64_decode(segment).expect("a JWT part is base64url");
    serde_json::from_slice(&bytes).expect("a JWT part is JSON")
}

/// The same token with one bit of its signature flipped.
pub fn tampered_signature(token: &str) -> String {
    let (signed, signature) = token.rsplit_once('.').expect("a JWT");
    let mut bytes = base64_decode(signature).expect("a base64url signature");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    format!("{signed}.{}", base64_encode(&bytes, URL_SAFE))
}

/// The same claims under an `alg: none` header, unsigned (the third part
/// is empty, as RFC 7519 makes an unsecured JWT).
pub fn alg_none(token: &str) -> String {
    let forged = with_header(token, |header| {
        header["alg"] = json!("none");
    });
    let (signed, _) = forged.rsplit_once('.').expect("a JWT");
    format!("{signed}.")
}

/// The same token with its header changed by `edit` (the signature is
/// kept, so it no longer matches).
pub fn with_header(token: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut parts = token.splitn(3, '.');
    let mut header: Value = {
        let bytes = base64_decode(parts.next().expect("a header")).expect("base64url");
        serde_json::from_slice(&bytes).expect("a JSON header")
    };
    edit(&mut header);
    let rest: Vec<&str> = parts.collect();
    format!(
        "{}.{}",
        base64_encode(header.to_string().as_bytes(), URL_SAFE),
        rest.join(".")
    )
}

/// The same token with its claims changed by `edit`, under the original
/// header and signature (which no longer match).
pub fn with_claims(token: &str, edit: impl FnOnce(&mut Value)) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT has three parts");
    let mut claims = claims(token);
    edit(&mut claims);
    format!(
        "{}.{}.{}",
        parts[0],
        base64_encode(claims.to_string().as_bytes(), URL_SAFE),
        parts[2]
    )
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64 with `alphabet`; padded for the standard alphabet only (as HTTP
/// Basic wants it and JWTs do not).
fn base64_encode(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, byte)| n | u32::from(*byte) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        if alphabet == STANDARD {
            out.push_str(&"=="[..3 - chunk.len()]);
        }
    }
    out
}

/// Decodes base64url (without padding, as in JWTs).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut bits, mut count) = (0u32, 0);
    for c in text.bytes() {
        let value = URL_SAFE.iter().position(|&a| a == c)? as u32;
        bits = bits << 6 | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Some(out)
}

/// `application/x-www-form-urlencoded` for one name or value.
fn form_encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
