//! The client's limit on the size of one message from the server
//! (`max_message_size`), and what lets it refuse a message without holding
//! it: an [`IdScanner`] that finds the top-level `"id"` of a message
//! streaming past, and [`Lines`], the stdio transport's line splitter that
//! skips a line over the limit instead of buffering it.

/// The longest message from the server accepted unless set otherwise, in
/// bytes: 16 MiB, the server's own default.
pub(crate) const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// A message over the limit, skipped: its size and, when it is an answer
/// whose id could be read, the id of our request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Oversize {
    /// The request it answers (our ids are numbers), when found.
    pub(crate) id: Option<u64>,
    /// Its size in bytes.
    pub(crate) size: u64,
}

/// Where the scanner is in the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Before a member name (or before the object began).
    Name,
    /// Inside a member name.
    InName,
    /// After a member name, before its `:`.
    Colon,
    /// Before the value of `id`.
    IdValue,
    /// Inside the digits of `id`.
    IdDigits,
    /// Inside any other value, or done with `id`.
    Other,
}

/// Reads a JSON-RPC message byte by byte without keeping it, to find its
/// top-level `"id"` wherever it is among the members (before or after
/// a huge `result`), and counts its bytes. It keeps only a nesting depth
/// and at most a member name's first bytes: memory does not grow with the
/// message. Bytes that are not JSON give no id, never an error.
#[derive(Debug)]
pub(crate) struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    top: Top,
    /// The first bytes of the member name being read; `None` once it can
    /// no longer be `id`.
    name: Option<[u8; 2]>,
    name_len: usize,
    digits: Option<u64>,
    id: Option<u64>,
    size: u64,
}

impl Default for IdScanner {
    fn default() -> IdScanner {
        IdScanner {
            depth: 0,
            in_string: false,
            escaped: false,
            top: Top::Name,
            name: Some([0; 2]),
            name_len: 0,
            digits: None,
            id: None,
            size: 0,
        }
    }
}

impl IdScanner {
    /// Reads the next bytes of the message.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
                // An escaped name is not the plain `id` ours are.
                self.name = None;
            } else if b == b'"' {
                self.in_string = false;
                if self.top == Top::InName {
                    self.top = Top::Colon;
                }
            } else if self.top == Top::InName {
                match &mut self.name {
                    Some(name) if self.name_len < 2 => name[self.name_len] = b,
                    _ => self.name = None,
                }
                self.name_len += 1;
            }
            return;
        }
        if self.top == Top::IdDigits && !b.is_ascii_digit() {
            // The id ends at a delimiter; `1.5` or `1e3` is not one of ours.
            if matches!(b, b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') && self.id.is_none() {
                self.id = self.digits;
            }
            self.top = Top::Other;
        }
        match b {
            b'"' => {
                self.in_string = true;
                match self.top {
                    Top::Name if self.depth == 1 => {
                        self.top = Top::InName;
                        self.name = Some([0; 2]);
                        self.name_len = 0;
                    }
                    Top::IdValue => self.top = Top::Other,
                    _ => {}
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.top == Top::IdValue {
                    self.top = Top::Other;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.top = Top::Name,
            b':' if self.depth == 1 && self.top == Top::Colon => {
                let is_id = self.name_len == 2 && self.name == Some(*b"id");
                self.top = if is_id { Top::IdValue } else { Top::Other };
            }
            b'0'..=b'9' if matches!(self.top, Top::IdValue | Top::IdDigits) => {
                self.top = Top::IdDigits;
                let digit = u64::from(b - b'0');
                self.digits = Some(self.digits.unwrap_or(0))
                    .and_then(|d| d.checked_mul(10)?.checked_add(digit));
                if self.digits.is_none() {
                    self.top = Top::Other;
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ if self.top == Top::IdValue => self.top = Top::Other,
            _ => {}
        }
    }

    /// What was read: the id found, if any, and the size.
    pub(crate) fn finish(mut self) -> Oversize {
        if self.top == Top::IdDigits && self.id.is_none() {
            self.id = self.digits;
        }
        Oversize {
            id: self.id,
            size: self.size,
        }
    }
}

/// The id of the message `bytes` (a whole one that did not parse), if its
/// top level names one of ours.
pub(crate) fn id_of(bytes: &[u8]) -> Option<u64> {
    let mut scanner = IdScanner::default();
    scanner.feed(bytes);
    scanner.finish().id
}

/// One of our request ids, from its JSON text.
pub(crate) fn our_id(id: &str) -> Option<u64> {
    id.trim().parse().ok()
}

/// Why an HTTP body was not read.
pub(crate) enum BodyError {
    /// It is over the limit: its size, when the server named it.
    TooLarge(Option<u64>),
    /// Reading it failed: why.
    Failed(reqwest::Error),
}

/// The whole body of `response` if it is at most `max` bytes. A larger
/// one is refused as soon as that is known (from `Content-Length`, or once
/// `max` bytes came), never held whole.
pub(crate) async fn read_body(
    mut response: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, BodyError> {
    let named = response.content_length();
    let over = |size: u64| size > max as u64;
    if named.is_some_and(over) {
        return Err(BodyError::TooLarge(named));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Failed)? {
        if body.len() + chunk.len() > max {
            return Err(BodyError::TooLarge(named.filter(|&size| over(size))));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// What [`Lines`] makes of the bytes fed to it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// A line within the limit, without its line ending.
    Line(Vec<u8>),
    /// A line over the limit, skipped as it streamed past.
    TooLarge(Oversize),
}

/// Splits what a stdio server writes into lines of at most `max` bytes
/// (not counting the line ending). A longer line is not kept: past the
/// limit its bytes go through an [`IdScanner`] until its newline, and it
/// comes out as [`Piece::TooLarge`]; the next line is read as usual.
pub(crate) struct Lines {
    max: usize,
    line: Vec<u8>,
    skipping: Option<IdScanner>,
    /// Whether the line being skipped so far ends with `\r`.
    skipped_cr: bool,
}

impl Lines {
    pub(crate) fn new(max: usize) -> Lines {
        Lines {
            max,
            line: Vec::new(),
            skipping: None,
            skipped_cr: false,
        }
    }

    /// Reads the next bytes; what they complete goes to `out`.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Piece>) {
        while !bytes.is_empty() {
            let end = memchr::memchr(b'\n', bytes);
            let (piece, rest) = match end {
                Some(end) => (&bytes[..end], &bytes[end + 1..]),
                None => (bytes, &b""[..]),
            };
            bytes = rest;
            match &mut self.skipping {
                Some(scanner) => scanner.feed(piece),
                // One byte of slack for the `\r` of a `\r\n` ending.
                None if self.line.len() + piece.len() > self.max + 1 => {
                    let mut scanner = IdScanner::default();
                    scanner.feed(&self.line);
                    scanner.feed(piece);
                    self.line = Vec::new();
                    self.skipping = Some(scanner);
                    self.skipped_cr = false;
                }
                None => self.line.extend_from_slice(piece),
            }
            if self.skipping.is_some()
                && let Some(&last) = piece.last()
            {
                self.skipped_cr = last == b'\r';
            }
            if end.is_some() {
                self.end_line(out);
            }
        }
    }

    /// The end of the input: a last line without its newline is a line.
    pub(crate) fn finish(&mut self, out: &mut Vec<Piece>) {
        if self.skipping.is_some() || !self.line.is_empty() {
            self.end_line(out);
        }
    }

    fn end_line(&mut self, out: &mut Vec<Piece>) {
        match self.skipping.take() {
            Some(scanner) => {
                let mut oversize = scanner.finish();
                // The size of the message, without a `\r` ending it.
                oversize.size -= u64::from(std::mem::take(&mut self.skipped_cr));
                out.push(Piece::TooLarge(oversize));
            }
            None => {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.len() > self.max {
                    out.push(Piece::TooLarge(Oversize {
                        id: id_of(&line),
                        size: line.len() as u64,
                    }));
                } else if !line.is_empty() {
                    out.push(Piece::Line(line));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_before_or_after_the_result_and_only_at_the_top() {
        let cases: [(&str, Option<u64>); 9] = [
            (r#"{"jsonrpc":"2.0","id":7,"result":{"id":9}}"#, Some(7)),
            (
                r#"{"result":{"id":9,"x":[{"id":3}]},"jsonrpc":"2.0","id":12}"#,
                Some(12),
            ),
            (r#"{ "result" : "\"id\":4" , "id" : 5 }"#, Some(5)),
            (r#"{"id":"abc","result":{}}"#, None),
            (r#"{"id":1.5,"result":{}}"#, None),
            (r#"{"idx":3,"result":{}}"#, None),
            (r#"{"result":{}, "id":99999999999999999999999}"#, None),
            // Not JSON after the id: the id is still found.
            (r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{,,"#, Some(3)),
            (r#"[{"id":1}]"#, None),
        ];
        for (message, id) in cases {
            assert_eq!(id_of(message.as_bytes()), id, "{message}");
        }
    }

    #[test]
    fn a_message_split_anywhere_gives_the_same_id_and_size() {
        let message = br#"{"result":{"content":[{"type":"text","text":"a\"b"}]},"id":42}"#;
        for split in 0..message.len() {
            let mut scanner = IdScanner::default();
            scanner.feed(&message[..split]);
            scanner.feed(&message[split..]);
            let oversize = scanner.finish();
            assert_eq!(oversize.id, Some(42), "split at {split}");
            assert_eq!(oversize.size, message.len() as u64);
        }
    }

    fn pieces(input: &[u8], max: usize, read_size: usize) -> Vec<Piece> {
        let mut lines = Lines::new(max);
        let mut out = Vec::new();
        for chunk in input.chunks(read_size) {
            lines.feed(chunk, &mut out);
        }
        lines.finish(&mut out);
        out
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_and_the_next_one_read() {
        let long = format!(r#"{{"result":"{}","id":3}}"#, "x".repeat(100));
        let input = format!("{{\"id\":1}}\r\n{long}\r\n\n{{\"id\":2}}\nlast");
        for read_size in [1, 2, 7, 64, 4096] {
            let got = pieces(input.as_bytes(), 20, read_size);
            assert_eq!(
                got,
                [
                    Piece::Line(br#"{"id":1}"#.to_vec()),
                    Piece::TooLarge(Oversize {
                        id: Some(3),
                        size: long.len() as u64,
                    }),
                    Piece::Line(br#"{"id":2}"#.to_vec()),
                    Piece::Line(b"last".to_vec()),
                ],
                "read size {read_size}"
            );
        }
    }

    #[test]
    fn a_line_exactly_at_the_limit_passes() {
        let line = "y".repeat(20);
        let got = pieces(format!("{line}\r\n{line}y\n").as_bytes(), 20, 3);
        assert_eq!(
            got,
            [
                Piece::Line(line.clone().into_bytes()),
                Piece::TooLarge(Oversize { id: None, size: 21 }),
            ]
        );
    }
}
