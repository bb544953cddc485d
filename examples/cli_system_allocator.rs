//! The `reducer-kit` command line with the system allocator: the binary
//! sets mimalloc, which heaptrack and valgrind do not see, so
//! `benches/certify_heap.sh` measures the kit's heap through this one.
//!
//! ```sh
//! cargo build --release --example cli_system_allocator
//! heaptrack target/release/examples/cli_system_allocator certify --cases 200 -- ...
//! ```

fn main() -> std::process::ExitCode {
    reducer_kit::cli::run(std::env::args_os())
}
