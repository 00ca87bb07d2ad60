//! Holds the trybuild cases in `tests/`; see `tests/ui.rs`.
