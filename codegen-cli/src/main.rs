//! The `kubegen` binary: a thin front end over [`kubegen_codegen::cli`].

fn main() {
    let code = kubegen_codegen::cli::run(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
