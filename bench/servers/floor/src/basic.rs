//! The floor serving echo, order and payload.

fn main() -> std::io::Result<()> {
    bench_floor::serve(bench_floor::Catalog::Basic)
}
