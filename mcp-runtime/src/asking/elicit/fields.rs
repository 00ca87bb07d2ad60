//! The types a form's field may have, and what each becomes in the
//! requested schema: text, numbers, booleans, one choice among an enum's
//! values, several choices, or any of these left optional.
//!
//! The 2025-11-25 protocol allows flat forms only, so this list is closed:
//! a field of any other type is a compile error under the field's type.

use serde_json::{Map, Value, json};

/// One value of an enum a user picks from, and the label shown for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// What the answer carries (`const` or an `enum` entry).
    pub value: &'static str,
    /// What the user reads, when it differs from the value.
    pub title: Option<&'static str>,
}

/// A type a field of an [`Elicit`](crate::Elicit) form can have.
///
/// Implemented for `String`, `bool`, the integer types, `f32` and `f64`,
/// unit-only enums with `#[derive(Elicit)]` (pick one), `Vec`s of those
/// (pick several), and `Option`s of all of these (the field may be left
/// empty). Not implemented by hand: derive `Elicit` on an enum instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a form field",
    note = "the 2025-11-25 protocol asks for flat forms: a field is a `String`, a `bool`, an \
            integer, an `f32` or `f64`, a unit-only enum with `#[derive(Elicit)]` (one choice), \
            a `Vec` of such an enum (several choices), or an `Option` of one of these"
)]
pub trait ElicitField: Sized {
    /// Whether the form requires the field: every type but `Option`.
    #[doc(hidden)]
    const REQUIRED: bool = true;

    /// The field's schema, before its title, description, default and
    /// constraints.
    #[doc(hidden)]
    fn schema() -> Map<String, Value>;

    /// The value as the answer would carry it (for a default); `None` for
    /// an empty `Option`.
    #[doc(hidden)]
    fn to_json(&self) -> Option<Value>;

    /// Reads a value the schema accepted.
    #[doc(hidden)]
    fn from_json(value: Value) -> Result<Self, String>;

    /// The value of a field the answer leaves out, if it may be left out.
    #[doc(hidden)]
    fn absent() -> Option<Self> {
        None
    }
}

/// A unit-only enum a user picks from: what `#[derive(Elicit)]` on an enum
/// implements.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an enum a user can pick from",
    label = "several choices need a `Vec` of a unit-only enum",
    note = "derive `Elicit` on a unit-only enum: `#[derive(Elicit)] enum Color {{ Red, Green }}`"
)]
pub trait ElicitEnum: Sized + 'static {
    /// Every value, in the order offered.
    #[doc(hidden)]
    const CHOICES: &'static [Choice];

    /// Whether a single choice lists its titles the deprecated way
    /// (`enum` with `enumNames`), for clients that read only that.
    #[doc(hidden)]
    const ENUM_NAMES: bool = false;

    /// The variant of the choice at `index`.
    #[doc(hidden)]
    fn from_choice(index: usize) -> Self;

    /// The index of this variant's choice.
    #[doc(hidden)]
    fn choice(&self) -> usize;
}

fn typed(name: &str) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from(name));
    schema
}

fn mismatch(value: &Value, expected: &str) -> String {
    format!("{value} is not {expected}")
}

impl ElicitField for String {
    fn schema() -> Map<String, Value> {
        typed("string")
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::from(self.as_str()))
    }
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::String(text) => Ok(text),
            other => Err(mismatch(&other, "text")),
        }
    }
}

impl ElicitField for bool {
    fn schema() -> Map<String, Value> {
        typed("boolean")
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::from(*self))
    }
    fn from_json(value: Value) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| mismatch(&value, "true or false"))
    }
}

/// Integers: `"integer"`, bounded by the type's range where JSON numbers
/// hold it exactly, so a client's form refuses what the type cannot hold.
macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ElicitField for $t {
            fn schema() -> Map<String, Value> {
                let mut schema = typed("integer");
                let (min, max) = (<$t>::MIN as i128, <$t>::MAX as i128);
                const EXACT: i128 = 1 << 53;
                if min > -EXACT {
                    schema.insert("minimum".into(), json!(min as i64));
                }
                if max < EXACT {
                    schema.insert("maximum".into(), json!(max as i64));
                }
                schema
            }
            fn to_json(&self) -> Option<Value> {
                Some(json!(*self))
            }
            fn from_json(value: Value) -> Result<Self, String> {
                let whole = value
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| value.as_u64().map(i128::from))
                    .or_else(|| {
                        value
                            .as_f64()
                            .filter(|f| f.fract() == 0.0 && f.abs() < 1e18)
                            .map(|f| f as i128)
                    });
                whole
                    .and_then(|n| <$t>::try_from(n).ok())
                    .ok_or_else(|| mismatch(&value, concat!("a whole number that fits ", stringify!($t))))
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl ElicitField for $t {
            fn schema() -> Map<String, Value> {
                typed("number")
            }
            fn to_json(&self) -> Option<Value> {
                serde_json::Number::from_f64(f64::from(*self)).map(Value::Number)
            }
            fn from_json(value: Value) -> Result<Self, String> {
                #[allow(clippy::cast_possible_truncation)]
                value
                    .as_f64()
                    .map(|f| f as $t)
                    .ok_or_else(|| mismatch(&value, "a number"))
            }
        }
    )*};
}
floats!(f32, f64);

impl<T: ElicitField> ElicitField for Option<T> {
    const REQUIRED: bool = false;
    fn schema() -> Map<String, Value> {
        T::schema()
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_json)
    }
    fn from_json(value: Value) -> Result<Self, String> {
        T::from_json(value).map(Some)
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
}

/// Whether any of `E`'s values has a label of its own: then the schema
/// lists `const`/`title` pairs (SEP-1330), else plain `enum` values.
fn titled<E: ElicitEnum>() -> bool {
    E::CHOICES.iter().any(|c| c.title.is_some())
}

fn titled_choices<E: ElicitEnum>() -> Vec<Value> {
    E::CHOICES
        .iter()
        .map(|c| json!({"const": c.value, "title": c.title.unwrap_or(c.value)}))
        .collect()
}

fn values<E: ElicitEnum>() -> Vec<Value> {
    E::CHOICES.iter().map(|c| Value::from(c.value)).collect()
}

/// The schema of a field that picks one of `E`'s values.
pub fn one_of<E: ElicitEnum>() -> Map<String, Value> {
    let mut schema = typed("string");
    if E::ENUM_NAMES {
        let names = E::CHOICES
            .iter()
            .map(|c| Value::from(c.title.unwrap_or(c.value)));
        schema.insert("enum".into(), Value::Array(values::<E>()));
        schema.insert("enumNames".into(), names.collect());
    } else if titled::<E>() {
        schema.insert("oneOf".into(), Value::Array(titled_choices::<E>()));
    } else {
        schema.insert("enum".into(), Value::Array(values::<E>()));
    }
    schema
}

/// The answer's value of one of `E`'s variants.
pub fn choice_json<E: ElicitEnum>(variant: &E) -> Value {
    Value::from(E::CHOICES[variant.choice()].value)
}

/// The variant whose value the answer carries.
pub fn choose<E: ElicitEnum>(value: &Value) -> Result<E, String> {
    value
        .as_str()
        .and_then(|text| E::CHOICES.iter().position(|c| c.value == text))
        .map(E::from_choice)
        .ok_or_else(|| {
            let allowed: Vec<&str> = E::CHOICES.iter().map(|c| c.value).collect();
            format!("{value} is not one of {allowed:?}")
        })
}

impl<E: ElicitEnum> ElicitField for Vec<E> {
    fn schema() -> Map<String, Value> {
        let mut schema = typed("array");
        let items = if titled::<E>() {
            json!({"anyOf": titled_choices::<E>()})
        } else {
            json!({"type": "string", "enum": values::<E>()})
        };
        schema.insert("items".into(), items);
        schema
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::Array(self.iter().map(choice_json).collect()))
    }
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::Array(items) => items.iter().map(choose).collect(),
            other => Err(mismatch(&other, "a list of choices")),
        }
    }
}

/// Fields `min_length`, `max_length`, `pattern` and `format` apply to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not text: `min_length`, `max_length`, `pattern` and `format` apply to \
               `String` fields only",
    label = "not a `String` field"
)]
pub trait Text {
    /// Named by the generated code, so the check costs nothing.
    const OK: () = ();
}
impl Text for String {}
impl Text for Option<String> {}

/// Fields `minimum` and `maximum` apply to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `minimum` and `maximum` apply to integer and float fields \
               only",
    label = "not a number field"
)]
pub trait Number {
    /// Named by the generated code, so the check costs nothing.
    const OK: () = ();
}
macro_rules! numbers {
    ($($t:ty),*) => {$( impl Number for $t {} impl Number for Option<$t> {} )*};
}
numbers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

/// Fields `min_items` and `max_items` apply to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of choices: `min_items` and `max_items` apply to `Vec` \
               fields of an enum only",
    label = "not a `Vec` field"
)]
pub trait Choices {
    /// Named by the generated code, so the check costs nothing.
    const OK: () = ();
}
impl<E: ElicitEnum> Choices for Vec<E> {}
impl<E: ElicitEnum> Choices for Option<Vec<E>> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_bounded_by_their_type_where_json_holds_it() {
        assert_eq!(
            Value::Object(u8::schema()),
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(Value::Object(i64::schema()), json!({"type": "integer"}));
        assert_eq!(
            Value::Object(u64::schema()),
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(u8::from_json(json!(30.0)), Ok(30));
        assert!(u8::from_json(json!(300)).is_err());
        assert!(u8::from_json(json!(2.5)).is_err());
    }

    #[test]
    fn an_option_may_be_absent_and_has_no_default_when_none() {
        assert_eq!(<Option<String>>::absent(), Some(None));
        assert_eq!(String::absent(), None);
        assert_eq!(None::<String>.to_json(), None);
        assert_eq!(Some(true).to_json(), Some(json!(true)));
    }
}
