//! Reading server-sent events, as the HTTP transport receives them: bytes
//! in whatever pieces the network gives, events out. Keeps what a client
//! needs to resume a stream: the last event id and the server's `retry`.
//! An event whose data grows past the client's `max_message_size` is not
//! kept: the rest of it streams through an [`IdScanner`], and it comes out
//! as [`Event::TooLarge`]; the stream goes on.

use std::time::Duration;

use crate::client::limit::{IdScanner, Oversize};

/// What an SSE stream carries, as far as the client cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// The data of one event: a message.
    Message(Vec<u8>),
    /// An event whose data was over the limit, skipped.
    TooLarge(Oversize),
}

/// An SSE parser: [`SseParser::feed`] bytes, get back the data of each
/// complete event.
pub(crate) struct SseParser {
    /// The longest event data kept.
    max: usize,
    /// The incomplete line at the end of what was fed so far.
    line: Vec<u8>,
    /// The data of the event being read (its `data:` lines joined by `\n`).
    data: Vec<u8>,
    has_data: bool,
    /// The event being skipped: its data went past the limit.
    skipping: Option<IdScanner>,
    /// What the rest of an incomplete line over the limit is: `Some(true)`
    /// for the value of a `data` field (to the scanner), `Some(false)` for
    /// anything else (dropped).
    long_line: Option<bool>,
    /// The last event id the server set, sent as `Last-Event-ID` to resume.
    pub(crate) last_id: Option<String>,
    /// The server's `retry` field: how long to wait before reconnecting.
    pub(crate) retry: Option<Duration>,
}

impl SseParser {
    /// A parser that keeps events of at most `max` bytes of data.
    pub(crate) fn new(max: usize) -> SseParser {
        SseParser {
            max,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            skipping: None,
            long_line: None,
            last_id: None,
            retry: None,
        }
    }

    /// Reads `bytes`; returns each event they complete (events without
    /// data, such as comments or an id alone, give none).
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (piece, after) = rest.split_at(end);
            rest = &after[1..];
            if let Some(data) = self.long_line.take() {
                if data {
                    self.scanner()
                        .feed(piece.strip_suffix(b"\r").unwrap_or(piece));
                }
            } else if self.line.is_empty() {
                self.field(piece, &mut events);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(piece);
                self.field(&line, &mut events);
            }
        }
        match self.long_line {
            Some(true) => self.scanner().feed(rest),
            Some(false) => {}
            None => {
                self.line.extend_from_slice(rest);
                // Room for the field name `data: ` and a `\r`: a line cut
                // holds a value over the limit for sure.
                if self.line.len() > self.max.saturating_add(8) {
                    self.cut_line();
                }
            }
        }
        events
    }

    /// The incomplete line is over the limit: the value of a `data` field
    /// goes to the scanner from now on (the event is skipped), anything
    /// else is dropped.
    fn cut_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        let value = line.strip_prefix(b"data").and_then(|rest| match rest {
            [b':', b' ', value @ ..] | [b':', value @ ..] => Some(value),
            _ => None,
        });
        self.long_line = Some(value.is_some());
        if let Some(value) = value {
            self.append(value, true);
        }
    }

    /// The scanner of the event being skipped.
    fn scanner(&mut self) -> &mut IdScanner {
        self.skipping.get_or_insert_with(IdScanner::default)
    }

    /// Adds a `data` value to the event, joined by `\n`; past the limit
    /// (or `skip`: the value is known to be too long) the event is
    /// skipped: what was kept and what comes go through the scanner.
    fn append(&mut self, value: &[u8], skip: bool) {
        let separator: &[u8] = if std::mem::replace(&mut self.has_data, true) {
            b"\n"
        } else {
            b""
        };
        let fits = self.data.len() + separator.len() + value.len() <= self.max;
        if self.skipping.is_none() && fits && !skip {
            self.data.extend_from_slice(separator);
            self.data.extend_from_slice(value);
            return;
        }
        let kept = std::mem::take(&mut self.data);
        let scanner = self.scanner();
        scanner.feed(&kept);
        scanner.feed(separator);
        scanner.feed(value);
    }

    /// One line (without its `\n`).
    fn field(&mut self, line: &[u8], events: &mut Vec<Event>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            // The blank line ends the event; one with empty data (a
            // priming event: an id alone) is not dispatched.
            let data = std::mem::take(&mut self.data);
            let has_data = std::mem::take(&mut self.has_data);
            if let Some(scanner) = self.skipping.take() {
                events.push(Event::TooLarge(scanner.finish()));
            } else if has_data && !data.is_empty() {
                events.push(Event::Message(data));
            }
            return;
        }
        if line[0] == b':' {
            return; // A comment (keep-alive).
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => self.append(value, false),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(events: Vec<Event>) -> Vec<String> {
        events
            .into_iter()
            .map(|event| match event {
                Event::Message(data) => String::from_utf8(data).unwrap(),
                Event::TooLarge(oversize) => format!("{oversize:?}"),
            })
            .collect()
    }

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let stream = b"retry: 1500\nid: 3_0\ndata: \n\n: keep-alive\n\nid: 3_1\r\ndata: {\"a\":1}\r\n\r\nevent: message\ndata: x\ndata: y\n\n";
        for split in 0..stream.len() {
            let mut parser = SseParser::new(1000);
            let mut events = parser.feed(&stream[..split]);
            events.extend(parser.feed(&stream[split..]));
            assert_eq!(text(events), ["{\"a\":1}", "x\ny"], "split at {split}");
            assert_eq!(parser.last_id.as_deref(), Some("3_1"));
            assert_eq!(parser.retry, Some(Duration::from_millis(1500)));
        }
    }

    #[test]
    fn an_id_alone_is_kept_without_an_event() {
        let mut parser = SseParser::new(1000);
        assert!(parser.feed(b"id: 7_0\n\n").is_empty());
        assert_eq!(parser.last_id.as_deref(), Some("7_0"));
        assert!(parser.feed(b"retry: soon\n\n").is_empty());
        assert_eq!(parser.retry, None);
    }

    #[test]
    fn an_event_over_the_limit_is_skipped_and_the_stream_goes_on() {
        let big = format!("{{\"result\":\"{}\",\"id\":8}}", "z".repeat(300));
        // Over the limit in one line, and in lines each under it.
        let (first, second) = big.split_at(150);
        let stream = format!(
            "id: 1\ndata: {big}\n\nid: 2\ndata: {{\"id\":9}}\n\n\
             data: {first}\ndata: {second}\n\ndata: x\ndata: y\n\n"
        );
        let stream = stream.as_bytes();
        let too_large = Event::TooLarge(Oversize {
            id: Some(8),
            size: big.len() as u64,
        });
        let too_large_split = Event::TooLarge(Oversize {
            id: Some(8),
            size: big.len() as u64 + 1,
        });
        for read_size in [1, 5, 64, 100, 4096] {
            let mut parser = SseParser::new(200);
            let mut events = Vec::new();
            for chunk in stream.chunks(read_size) {
                events.extend(parser.feed(chunk));
            }
            assert_eq!(
                text(events),
                text(vec![
                    too_large.clone(),
                    Event::Message(br#"{"id":9}"#.to_vec()),
                    too_large_split.clone(),
                    Event::Message(b"x\ny".to_vec()),
                ]),
                "read size {read_size}"
            );
            assert_eq!(parser.last_id.as_deref(), Some("2"));
        }
    }

    #[test]
    fn an_event_exactly_at_the_limit_passes() {
        let data = "d".repeat(200);
        let mut parser = SseParser::new(200);
        let events = parser.feed(format!("data: {data}\r\n\r\n").as_bytes());
        assert_eq!(text(events), [data]);
    }
}
