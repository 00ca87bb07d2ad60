//! The violations found in a value, and their messages (the texts of the
//! `jsonschema` crate).

use std::fmt;

use serde_json::Value;

use super::graph::TYPE_NAMES;

/// One violation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Error<'a> {
    /// The JSON pointer to the value at fault (`""` for the whole value).
    pub path: String,
    pub kind: ErrorKind<'a>,
}

/// What is wrong, with what the message needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ErrorKind<'a> {
    Type {
        instance: &'a Value,
        set: u8,
        single: bool,
    },
    Enum {
        instance: &'a Value,
        options: &'a Value,
    },
    Const {
        expected: &'a Value,
    },
    Minimum {
        instance: &'a Value,
        limit: &'a Value,
    },
    Maximum {
        instance: &'a Value,
        limit: &'a Value,
    },
    ExclusiveMinimum {
        instance: &'a Value,
        limit: &'a Value,
    },
    ExclusiveMaximum {
        instance: &'a Value,
        limit: &'a Value,
    },
    MultipleOf {
        instance: &'a Value,
        multiple: f64,
    },
    MinLength {
        instance: &'a Value,
        limit: u64,
    },
    MaxLength {
        instance: &'a Value,
        limit: u64,
    },
    Pattern {
        instance: &'a Value,
        pattern: &'a str,
    },
    MinItems {
        instance: &'a Value,
        limit: u64,
    },
    MaxItems {
        instance: &'a Value,
        limit: u64,
    },
    UniqueItems {
        instance: &'a Value,
    },
    MinProperties {
        instance: &'a Value,
        limit: u64,
    },
    MaxProperties {
        instance: &'a Value,
        limit: u64,
    },
    Required {
        property: &'a str,
    },
    AdditionalProperties {
        unexpected: Vec<&'a str>,
    },
    /// `unevaluatedProperties: false`. (With a schema, the errors of the
    /// schema are reported at each member instead: unlike `jsonschema`,
    /// which names the members as "unexpected" although they are allowed
    /// with another value.)
    UnevaluatedProperties {
        unexpected: Vec<&'a str>,
        /// The names that the schema declares for this object, which it
        /// would have accepted (see [`Schema::declare`]).
        declared: Vec<&'a str>,
    },
    /// A `false` schema. `root_additional`: it is the root schema's
    /// `additionalProperties: false` with no `properties` beside it, which
    /// (as in `jsonschema`) is reported once, at the object, with the value
    /// of its first member.
    False {
        instance: &'a Value,
        root_additional: bool,
    },
    AnyOf {
        instance: &'a Value,
    },
    OneOfNone {
        instance: &'a Value,
    },
    OneOfMany {
        instance: &'a Value,
    },
    Not {
        schema: &'a Value,
        instance: &'a Value,
    },
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn quoted_list(f: &mut fmt::Formatter<'_>, names: &[&str]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "'{name}'")?;
    }
    f.write_str(if names.len() == 1 {
        " was unexpected)"
    } else {
        " were unexpected)"
    })
}

impl fmt::Display for Error<'_> {
    /// The message, without the path (the texts of `jsonschema`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind as K;
        match &self.kind {
            K::Type {
                instance,
                set,
                single: true,
            } => {
                let name = TYPE_NAMES
                    .iter()
                    .find(|(_, bit)| set & bit != 0)
                    .map_or("", |(name, _)| name);
                write!(f, r#"{instance} is not of type "{name}""#)
            }
            K::Type { instance, set, .. } => {
                write!(f, "{instance} is not of types ")?;
                let mut first = true;
                for (name, bit) in TYPE_NAMES {
                    if set & bit != 0 {
                        if !first {
                            f.write_str(", ")?;
                        }
                        first = false;
                        write!(f, "\"{name}\"")?;
                    }
                }
                Ok(())
            }
            K::Enum { instance, options } => {
                write!(f, "{instance} is not one of ")?;
                let options = options.as_array().map_or(&[][..], Vec::as_slice);
                let total = options.len();
                if total <= 3 {
                    for (i, option) in options.iter().enumerate() {
                        if i == 0 {
                            write!(f, "{option}")?;
                        } else if i == total - 1 {
                            write!(f, " or {option}")?;
                        } else {
                            write!(f, ", {option}")?;
                        }
                    }
                } else {
                    for (i, option) in options.iter().take(2).enumerate() {
                        if i == 0 {
                            write!(f, "{option}")?;
                        } else {
                            write!(f, ", {option}")?;
                        }
                    }
                    write!(f, " or {} other candidates", total - 2)?;
                }
                Ok(())
            }
            K::Const { expected } => write!(f, "{expected} was expected"),
            K::Minimum { instance, limit } => {
                write!(f, "{instance} is less than the minimum of {limit}")
            }
            K::Maximum { instance, limit } => {
                write!(f, "{instance} is greater than the maximum of {limit}")
            }
            K::ExclusiveMinimum { instance, limit } => {
                write!(
                    f,
                    "{instance} is less than or equal to the minimum of {limit}"
                )
            }
            K::ExclusiveMaximum { instance, limit } => write!(
                f,
                "{instance} is greater than or equal to the maximum of {limit}"
            ),
            K::MultipleOf { instance, multiple } => {
                write!(f, "{instance} is not a multiple of {multiple}")
            }
            K::MinLength { instance, limit } => write!(
                f,
                "{instance} is shorter than {limit} character{}",
                plural(*limit, "", "s")
            ),
            K::MaxLength { instance, limit } => write!(
                f,
                "{instance} is longer than {limit} character{}",
                plural(*limit, "", "s")
            ),
            K::Pattern { instance, pattern } => {
                write!(f, r#"{instance} does not match "{pattern}""#)
            }
            K::MinItems { instance, limit } => write!(
                f,
                "{instance} has less than {limit} item{}",
                plural(*limit, "", "s")
            ),
            K::MaxItems { instance, limit } => write!(
                f,
                "{instance} has more than {limit} item{}",
                plural(*limit, "", "s")
            ),
            K::UniqueItems { instance } => write!(f, "{instance} has non-unique elements"),
            K::MinProperties { instance, limit } => write!(
                f,
                "{instance} has less than {limit} propert{}",
                plural(*limit, "y", "ies")
            ),
            K::MaxProperties { instance, limit } => write!(
                f,
                "{instance} has more than {limit} propert{}",
                plural(*limit, "y", "ies")
            ),
            K::Required { property } => {
                write!(f, "{} is a required property", Value::from(*property))
            }
            K::AdditionalProperties { unexpected } => {
                f.write_str("Additional properties are not allowed (")?;
                quoted_list(f, unexpected)
            }
            K::UnevaluatedProperties { unexpected, .. } => {
                f.write_str("Unevaluated properties are not allowed (")?;
                quoted_list(f, unexpected)
            }
            K::False { instance, .. } => write!(f, "False schema does not allow {instance}"),
            K::AnyOf { instance } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
            K::OneOfNone { instance } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'oneOf' keyword"
            ),
            K::OneOfMany { instance } => write!(
                f,
                "{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword"
            ),
            K::Not { schema, instance } => write!(f, "{schema} is not allowed for {instance}"),
        }
    }
}
