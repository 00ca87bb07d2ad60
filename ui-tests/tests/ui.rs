//! Compile-fail and compile-pass cases for `#[tool]`, `#[resource]`,
//! `#[prompt]`, `#[complete]` and `view_file!` (the files named
//! `resource-*`, `prompt-*`, `complete-*` and `view-file*`; the others are
//! `#[tool]`'s). Each `tests/ui/*.rs`
//! case checks one diagnostic against its reviewed `.stderr`; regenerate with
//! `TRYBUILD=overwrite cargo test -p ui-tests` and read the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/pass/*.rs");
}
