//! Writes the 200 tools of `ours-many` (see bench-codegen).

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let source = bench_codegen::ours_tools(bench_codegen::MANY, 0);
    std::fs::write(out.join("many_tools.rs"), source).expect("write many_tools.rs");
    println!("cargo::rerun-if-changed=build.rs");
}
