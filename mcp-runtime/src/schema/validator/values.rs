//! Comparing JSON values as JSON Schema does: numbers by their value
//! (exactly, integers beyond 2^53 included), `multipleOf` in decimal,
//! equality for `enum`, `const` and `uniqueItems`, and types.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use serde_json::{Number, Value};

use super::graph::{BoundKind, Type};

/// Compares two JSON numbers exactly (integers beyond 2^53 included).
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    fn int(n: &Number) -> Option<i128> {
        n.as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from))
    }
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => compare_int_float(x, b.as_f64()?),
        (None, Some(y)) => compare_int_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn compare_int_float(x: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Every integer here is within ±2^64.
    if f >= 3.0e19 {
        return Some(Ordering::Less);
    }
    if f <= -3.0e19 {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    let whole = floor as i128; // exact: |floor| < 2^65
    Some(match x.cmp(&whole) {
        Ordering::Equal if floor != f => Ordering::Less,
        other => other,
    })
}

fn numbers_equal(a: &Number, b: &Number) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

/// JSON equality, with numbers compared by value (`1` equals `1.0`).
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A finite number as `mantissa * 10^-decimals`, from its shortest
/// representation (so `0.1` is 1 * 10^-1, not its binary value).
fn decimal_parts(f: f64) -> Option<(i128, i32)> {
    use std::fmt::Write;
    /// Room for any `f64` in `{:e}` form, so no allocation.
    struct Buffer {
        bytes: [u8; 40],
        len: usize,
    }
    impl Write for Buffer {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.len + s.len();
            self.bytes
                .get_mut(self.len..end)
                .ok_or(fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut buffer = Buffer {
        bytes: [0; 40],
        len: 0,
    };
    write!(buffer, "{f:e}").ok()?;
    let text = std::str::from_utf8(&buffer.bytes[..buffer.len]).ok()?;
    let (digits, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = digits.starts_with('-');
    let mut mantissa: i128 = 0;
    let mut decimals = 0i32;
    let mut after_point = false;
    for c in digits.trim_start_matches('-').chars() {
        match c {
            '.' => after_point = true,
            d => {
                mantissa = mantissa
                    .checked_mul(10)?
                    .checked_add(i128::from(d.to_digit(10)?))?;
                if after_point {
                    decimals += 1;
                }
            }
        }
    }
    Some((
        if negative { -mantissa } else { mantissa },
        decimals - exponent,
    ))
}

fn divides_exactly(value: f64, multiple: f64) -> Option<bool> {
    let (vm, vd) = decimal_parts(value)?;
    let (mm, md) = decimal_parts(multiple)?;
    if mm == 0 {
        return None;
    }
    let shared = vd.min(md);
    let scale =
        |m: i128, d: i32| m.checked_mul(10_i128.checked_pow(u32::try_from(d - shared).ok()?)?);
    Some(scale(vm, md)? % scale(mm, vd)? == 0)
}

pub(super) fn is_multiple_of(n: &Number, multiple: f64) -> bool {
    if multiple.fract() == 0.0 && multiple <= 9_007_199_254_740_992.0 {
        if let Some(v) = n.as_u64() {
            return v % (multiple as u64) == 0;
        }
        if let Some(v) = n.as_i64() {
            return v % (multiple as i64) == 0;
        }
    }
    let Some(value) = n.as_f64() else {
        return true;
    };
    if value == 0.0 {
        return true;
    }
    if value.abs() < multiple {
        return false;
    }
    match divides_exactly(value, multiple) {
        Some(answer) => answer,
        None => {
            let q = value / multiple;
            q.is_finite() && q.fract() == 0.0
        }
    }
}

pub(super) fn bound_holds(kind: BoundKind, n: &Number, limit: &Number) -> bool {
    match (kind, compare(n, limit)) {
        (_, None) => true,
        (BoundKind::Minimum, Some(o)) => o != Ordering::Less,
        (BoundKind::Maximum, Some(o)) => o != Ordering::Greater,
        (BoundKind::ExclusiveMinimum, Some(o)) => o == Ordering::Greater,
        (BoundKind::ExclusiveMaximum, Some(o)) => o == Ordering::Less,
    }
}

pub(super) fn has_unique_items(items: &[Value]) -> bool {
    if items.len() <= 32 {
        for (i, a) in items.iter().enumerate() {
            if items[i + 1..].iter().any(|b| equal(a, b)) {
                return false;
            }
        }
        return true;
    }
    // Long arrays: by hash (consistent with `equal`), not pair by pair.
    let state = std::hash::RandomState::new();
    let mut seen: HashMap<u64, Vec<&Value>> = HashMap::with_capacity(items.len());
    for item in items {
        let bucket = seen.entry(hash_value(&state, item)).or_default();
        if bucket.iter().any(|other| equal(item, other)) {
            return false;
        }
        bucket.push(item);
    }
    true
}

/// A hash under which values that are [`equal`] hash alike (numbers by
/// their `f64` value, object members in any order).
fn hash_value(state: &std::hash::RandomState, value: &Value) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut hasher = state.build_hasher();
    match value {
        Value::Null => 0u8.hash(&mut hasher),
        Value::Bool(b) => (1u8, b).hash(&mut hasher),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            let f = if f == 0.0 { 0.0 } else { f };
            (2u8, f.to_bits()).hash(&mut hasher);
        }
        Value::String(s) => (3u8, s).hash(&mut hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut hasher);
            for item in items {
                hash_value(state, item).hash(&mut hasher);
            }
        }
        Value::Object(members) => {
            let combined = members.iter().fold(0u64, |acc, (k, v)| {
                let mut member = state.build_hasher();
                k.hash(&mut member);
                hash_value(state, v).hash(&mut member);
                acc.wrapping_add(member.finish())
            });
            (5u8, members.len(), combined).hash(&mut hasher);
        }
    }
    hasher.finish()
}

pub(super) fn type_matches(set: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => Type::Null as u8,
        Value::Bool(_) => Type::Boolean as u8,
        Value::Number(n) => {
            if set & Type::Number as u8 != 0 {
                return true;
            }
            return set & Type::Integer as u8 != 0 && is_integer(n);
        }
        Value::String(_) => Type::String as u8,
        Value::Array(_) => Type::Array as u8,
        Value::Object(_) => Type::Object as u8,
    };
    set & bit != 0
}
