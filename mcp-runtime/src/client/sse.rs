//! Reading server-sent events, as the HTTP transport receives them: bytes
//! in whatever pieces the network gives, events out. Keeps what a client
//! needs to resume a stream: the last event id and the server's `retry`.

use std::time::Duration;

/// The longest event accepted (a line or the data of one event); past it
/// the stream is treated as broken.
const MAX_EVENT: usize = 64 * 1024 * 1024;

/// An SSE parser: [`SseParser::feed`] bytes, get back the data of each
/// complete event.
#[derive(Default)]
pub(crate) struct SseParser {
    /// The incomplete line at the end of what was fed so far.
    line: Vec<u8>,
    /// The data of the event being read (its `data:` lines joined by `\n`).
    data: Vec<u8>,
    has_data: bool,
    /// The last event id the server set, sent as `Last-Event-ID` to resume.
    pub(crate) last_id: Option<String>,
    /// The server's `retry` field: how long to wait before reconnecting.
    pub(crate) retry: Option<Duration>,
}

/// The stream sent an event or a line past the size limit.
#[derive(Debug)]
pub(crate) struct TooLarge;

impl SseParser {
    /// Reads `bytes`; returns the data of each event they complete (events
    /// without data, such as comments or an id alone, give none).
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, TooLarge> {
        let mut events = Vec::new();
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (piece, after) = rest.split_at(end);
            rest = &after[1..];
            if self.line.is_empty() {
                self.field(piece, &mut events)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(piece);
                self.field(&line, &mut events)?;
            }
        }
        self.line.extend_from_slice(rest);
        if self.line.len() > MAX_EVENT {
            return Err(TooLarge);
        }
        Ok(events)
    }

    /// One line (without its `\n`).
    fn field(&mut self, line: &[u8], events: &mut Vec<Vec<u8>>) -> Result<(), TooLarge> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            // The blank line ends the event; one with empty data (a
            // priming event: an id alone) is not dispatched.
            let data = std::mem::take(&mut self.data);
            if std::mem::take(&mut self.has_data) && !data.is_empty() {
                events.push(data);
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // A comment (keep-alive).
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
                if self.data.len() > MAX_EVENT {
                    return Err(TooLarge);
                }
            }
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" => {
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            // `event` (every event here is a message) and unknown fields.
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(events: Vec<Vec<u8>>) -> Vec<String> {
        events
            .into_iter()
            .map(|e| String::from_utf8(e).unwrap())
            .collect()
    }

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let stream = b"retry: 1500\nid: 3_0\ndata: \n\n: keep-alive\n\nid: 3_1\r\ndata: {\"a\":1}\r\n\r\nevent: message\ndata: x\ndata: y\n\n";
        for split in 0..stream.len() {
            let mut parser = SseParser::default();
            let mut events = parser.feed(&stream[..split]).unwrap();
            events.extend(parser.feed(&stream[split..]).unwrap());
            assert_eq!(text(events), ["{\"a\":1}", "x\ny"], "split at {split}");
            assert_eq!(parser.last_id.as_deref(), Some("3_1"));
            assert_eq!(parser.retry, Some(Duration::from_millis(1500)));
        }
    }

    #[test]
    fn an_id_alone_is_kept_without_an_event() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"id: 7_0\n\n").unwrap().is_empty());
        assert_eq!(parser.last_id.as_deref(), Some("7_0"));
        assert!(parser.feed(b"retry: soon\n\n").unwrap().is_empty());
        assert_eq!(parser.retry, None);
    }
}
