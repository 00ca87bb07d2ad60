//! What a transport hands a connection: lines, or blocks of whole lines,
//! and how they are split.

use std::borrow::Cow;

/// What a transport hands the connection.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// One line, without its terminator.
    Line(Cow<'a, [u8]>),
    /// Whole lines, each ended by `\n` (the last one may lack it at EOF).
    Lines(Cow<'a, [u8]>),
    /// A line longer than the limit; its bytes were skipped, not buffered.
    TooLarge,
}

/// The lines of `block` (see [`Incoming::Lines`]), without their `\n`
/// (a `\r` before it is still there: it counts towards the size limit).
pub(crate) fn lines_of(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = block;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        Some(line)
    })
}

/// Calls `f` with each message of `incoming` as the connection sees it:
/// `None` for one over `max` bytes.
pub(crate) fn for_each_line(incoming: &Incoming<'_>, max: usize, mut f: impl FnMut(Option<&[u8]>)) {
    fn checked(line: &[u8], max: usize) -> Option<&[u8]> {
        (line.len() <= max).then(|| without_cr(line))
    }
    match incoming {
        Incoming::Line(line) => f(checked(line, max)),
        Incoming::Lines(block) => lines_of(block).for_each(|line| f(checked(line, max))),
        Incoming::TooLarge => f(None),
    }
}

pub(crate) fn without_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}
