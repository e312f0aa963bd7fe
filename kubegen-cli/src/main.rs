//! The `kubegen` binary: a thin front end over [`kubegen_cli::cli`].

/// mimalloc: `generate` is allocation-bound (tokens, syntax trees, text),
/// and mimalloc's small allocations cut its run time by about a sixth
/// against glibc's allocator (`bench/codegen_bench.py`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let code = kubegen_cli::cli::run(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
