//! Where something served was defined.

use std::fmt;

/// Where a tool, resource or prompt was defined, for error messages and logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// The source file, as the compiler names it.
    pub file: &'static str,
    /// The line of the attribute (`#[tool]`, `#[resource]`, `#[prompt]`).
    pub line: u32,
    /// The module path (for one defined at run time, the file again).
    pub module: &'static str,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

impl Location {
    /// Where the caller of a `#[track_caller]` fn is: a tool, resource or
    /// prompt defined at run time names its file as its module.
    #[track_caller]
    pub(crate) fn caller() -> Location {
        let caller = std::panic::Location::caller();
        Location {
            file: caller.file(),
            line: caller.line(),
            module: caller.file(),
        }
    }

    /// Whether this is where a tool, resource or prompt was defined at run
    /// time (its module is its file) rather than by an attribute.
    pub(crate) fn is_dynamic(&self) -> bool {
        self.module == self.file
    }
}
