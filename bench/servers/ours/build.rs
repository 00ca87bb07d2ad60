//! Writes the 200 tools, 200 resources and 200 prompts of `ours-many` (see
//! bench-codegen).

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let source = bench_codegen::ours_tools(bench_codegen::MANY, 0);
    std::fs::write(out.join("many_tools.rs"), source).expect("write many_tools.rs");
    let source = bench_codegen::ours_resources_and_prompts(bench_codegen::MANY);
    std::fs::write(out.join("many_resources_and_prompts.rs"), source)
        .expect("write many_resources_and_prompts.rs");
    println!("cargo::rerun-if-changed=build.rs");
}
