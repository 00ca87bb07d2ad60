//! The duration `--task-lease` takes: a whole number and a unit.

use std::time::Duration;

use super::args::UsageError;

/// The lease `--task-lease` gives: a whole number and a unit, `ms`, `s`,
/// `m` or `h` (`500ms`, `30s`, `2m`), at least the shortest lease a
/// server takes.
pub(super) fn lease(text: &str) -> Result<Duration, UsageError> {
    let bad = |why: &str| {
        UsageError(format!(
            "bad duration `{text}` for `--task-lease`: {why}; write a whole number and a unit \
             (ms, s, m or h), such as `30s`, `500ms` or `2m`"
        ))
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    if number.is_empty() {
        return Err(bad("no number"));
    }
    let number: u64 = number.parse().map_err(|_| bad("too long"))?;
    let per_unit = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err(bad("no unit")),
        _ => return Err(bad("not a unit")),
    };
    let ms = number
        .checked_mul(per_unit)
        .ok_or_else(|| bad("too long"))?;
    let lease = Duration::from_millis(ms);
    let shortest = crate::tasks::config::SHORTEST_LEASE;
    if lease < shortest {
        return Err(bad(&format!(
            "a lease is at least {}ms",
            shortest.as_millis()
        )));
    }
    Ok(lease)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_number_and_a_unit() {
        for (given, ms) in [
            ("500ms", 500),
            ("300ms", 300),
            ("1s", 1_000),
            ("30s", 30_000),
            ("2m", 120_000),
            ("1h", 3_600_000),
        ] {
            assert_eq!(lease(given), Ok(Duration::from_millis(ms)), "{given}");
        }
    }

    #[test]
    fn anything_else_says_what_is_wrong_and_what_to_write() {
        for (given, why) in [
            ("30", "no unit"),
            ("s", "no number"),
            ("-1s", "no number"),
            ("1.5s", "not a unit"),
            ("30 s", "not a unit"),
            ("5d", "not a unit"),
            ("99999999999999999999s", "too long"),
            ("9999999999999999h", "too long"),
            ("100ms", "a lease is at least 300ms"),
            ("0s", "a lease is at least 300ms"),
        ] {
            let message = lease(given).unwrap_err().0;
            assert!(
                message.starts_with(&format!(
                    "bad duration `{given}` for `--task-lease`: {why}; write a whole number"
                )),
                "{given}: {message}"
            );
            assert!(
                message.ends_with("such as `30s`, `500ms` or `2m`"),
                "{message}"
            );
        }
    }
}
