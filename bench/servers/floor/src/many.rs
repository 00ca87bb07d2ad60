//! The floor serving 200 tools.

fn main() -> std::io::Result<()> {
    bench_floor::serve(bench_floor::Catalog::Many)
}
