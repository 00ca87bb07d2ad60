//! Reading `WWW-Authenticate` (RFC 7235 section 4.1): the challenges a 401
//! or 403 carries, and the Bearer one's parameters (RFC 6750 section 3,
//! RFC 9728 section 5.1): `resource_metadata`, `scope`, `error`.

/// One challenge: its scheme and its parameters (names lowercased, values
/// unquoted), or its token68 (`Basic abc==`) as a parameter named `""`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) scheme: String,
    pub(crate) params: Vec<(String, String)>,
}

impl Challenge {
    /// The parameter `name` (case-insensitive), the first if repeated.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What a Bearer challenge asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BearerChallenge {
    /// RFC 9728: where the protected resource metadata is.
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated in the header.
    pub(crate) scope: Option<Vec<String>>,
    /// `invalid_token`, `insufficient_scope`…
    pub(crate) error: Option<String>,
}

impl BearerChallenge {
    /// The first Bearer challenge in the `WWW-Authenticate` values given;
    /// `None` when there is none.
    pub(crate) fn find<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<BearerChallenge> {
        let challenge = headers
            .into_iter()
            .flat_map(parse)
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))?;
        let scope = challenge.param("scope").map(|s| {
            s.split_ascii_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        });
        Some(BearerChallenge {
            resource_metadata: challenge.param("resource_metadata").map(str::to_owned),
            scope: scope.filter(|s| !s.is_empty()),
            error: challenge.param("error").map(str::to_owned),
        })
    }

    /// A 403 that asks for more scopes (RFC 6750 section 3.1).
    pub(crate) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Every challenge in one `WWW-Authenticate` value. What cannot be read
/// ends the list (the challenges before it are kept).
pub(crate) fn parse(header: &str) -> Vec<Challenge> {
    let mut reader = Reader {
        text: header.as_bytes(),
        at: 0,
    };
    let mut challenges: Vec<Challenge> = Vec::new();
    loop {
        reader.skip_separators();
        let Some(scheme) = reader.token() else { break };
        let mut challenge = Challenge {
            scheme,
            params: Vec::new(),
        };
        // Parameters until the next challenge's scheme (a token not
        // followed by `=`) or the end.
        loop {
            let mark = reader.at;
            reader.skip_separators();
            let Some(name) = reader.token() else {
                reader.at = mark;
                break;
            };
            reader.skip_spaces();
            if reader.peek() != Some(b'=') {
                // The next challenge's scheme.
                reader.at = mark;
                break;
            }
            reader.at += 1;
            reader.skip_spaces();
            match reader.peek() {
                // token68: `abc=` or `abc==`, then a separator or the end.
                Some(b'=') | Some(b',') | None => {
                    let start = mark;
                    while reader.peek() == Some(b'=') {
                        reader.at += 1;
                    }
                    let raw = String::from_utf8_lossy(&reader.text[start..reader.at]);
                    challenge
                        .params
                        .push((String::new(), raw.trim().to_owned()));
                }
                Some(b'"') => match reader.quoted() {
                    Some(value) => challenge.params.push((name.to_ascii_lowercase(), value)),
                    None => {
                        challenges.push(challenge);
                        return challenges;
                    }
                },
                Some(_) => {
                    let value = reader.token().unwrap_or_default();
                    challenge.params.push((name.to_ascii_lowercase(), value));
                }
            }
        }
        challenges.push(challenge);
    }
    challenges
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.at += 1;
        }
    }

    /// RFC 7230 `token` characters.
    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while let Some(byte) = self.peek() {
            let tchar = byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/".contains(&byte);
            if !tchar {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
    }

    /// A quoted string, its escapes undone; `None` if it never closes.
    fn quoted(&mut self) -> Option<String> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.at += 1;
        let mut value = Vec::new();
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(String::from_utf8_lossy(&value).into_owned());
                }
                b'\\' => {
                    self.at += 1;
                    value.push(self.peek()?);
                    self.at += 1;
                }
                byte => {
                    value.push(byte);
                    self.at += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_with_quoted_parameters() {
        let header = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="insufficient_scope""#;
        let bearer = BearerChallenge::find([header]).unwrap();
        assert_eq!(
            bearer.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            bearer.scope.unwrap(),
            ["files:read".to_owned(), "files:write".to_owned()]
        );
        assert_eq!(bearer.error.as_deref(), Some("insufficient_scope"));
    }

    #[test]
    fn several_challenges_in_one_header_and_across_headers() {
        let challenges =
            parse(r#"Basic realm="a, b", Bearer realm=x, error=invalid_token, DPoP algs="ES256""#);
        let schemes: Vec<_> = challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "Bearer", "DPoP"]);
        assert_eq!(challenges[0].param("realm"), Some("a, b"));
        assert_eq!(challenges[1].param("REALM"), Some("x"));
        assert_eq!(challenges[1].param("error"), Some("invalid_token"));
        assert_eq!(challenges[2].param("algs"), Some("ES256"));
        let bearer = BearerChallenge::find(["Basic realm=x", "bearer scope=\"a\""]).unwrap();
        assert_eq!(bearer.scope.unwrap(), ["a".to_owned()]);
    }

    #[test]
    fn escapes_token68_and_bare_schemes() {
        let challenges = parse(r#"Basic dXNlcjpwYXNz==, Bearer realm="say \"hi\"""#);
        assert_eq!(challenges[0].param(""), Some("dXNlcjpwYXNz=="));
        assert_eq!(challenges[1].param("realm"), Some(r#"say "hi""#));
        let bare = BearerChallenge::find(["Bearer"]).unwrap();
        assert_eq!(bare, BearerChallenge::default());
        assert!(BearerChallenge::find(["Basic realm=x"]).is_none());
        assert!(BearerChallenge::find([""]).is_none());
    }

    #[test]
    fn an_unclosed_quote_keeps_what_came_before() {
        let challenges = parse(r#"Bearer scope="a b", error="insufficient"#);
        assert_eq!(challenges.len(), 1);
        assert_eq!(challenges[0].param("scope"), Some("a b"));
        assert_eq!(challenges[0].param("error"), None);
        // An empty scope asks for nothing in particular.
        assert_eq!(
            BearerChallenge::find([r#"Bearer scope="""#]).unwrap().scope,
            None
        );
    }
}
