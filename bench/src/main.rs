//! `cargo run --release -p bench`: see `bench --help`.

fn main() -> std::process::ExitCode {
    bench::main()
}
