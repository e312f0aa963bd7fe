//! The `kubegen` binary: a thin front end over [`kubegen_cli::cli`].

fn main() {
    let code = kubegen_cli::cli::run(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
