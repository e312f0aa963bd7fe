//! The `kubegen` command-line entry point.

fn main() {
    println!("kubegen {}", env!("CARGO_PKG_VERSION"));
}
