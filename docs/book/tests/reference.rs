//! `src/reference/cli.md` is the `kubegen` command's own help, every
//! subcommand's, as clap renders it (at a fixed width). A test fails when
//! the page falls behind; `KUBEGEN_BLESS=1 cargo test -p kubegen-book
//! --test reference` rewrites it. (The attribute pages include
//! `docs/keys.md`, which `kubegen-derive`'s `keys_documented` test keeps
//! current from the key table, and `docs/markers.md`.)

use clap::CommandFactory as _;

mod support;

/// The page: a section per command, depth first.
fn page() -> String {
    let mut out = String::from(
        "<!-- @generated from kubegen-cli's clap definitions; `KUBEGEN_BLESS=1 cargo test -p kubegen-book --test reference` rewrites it -->\n\n\
         # Command line\n\n\
         Every `kubegen` command and its options, as `kubegen <command> --help` prints them.\n",
    );
    let mut command = kubegen_cli::cli::Cli::command()
        .term_width(100)
        .max_term_width(100);
    command.build();
    section(&mut out, &mut command, "kubegen");
    out
}

fn section(out: &mut String, command: &mut clap::Command, path: &str) {
    out.push_str(&format!("\n## `{path}`\n\n```text\n"));
    let help = command.render_long_help().to_string();
    for line in help.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n");
    let names: Vec<String> = command
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        let sub = command.find_subcommand_mut(&name).unwrap();
        section(out, sub, &format!("{path} {name}"));
    }
}

#[test]
fn the_cli_page_is_the_commands_help() {
    let path = support::book().join("src/reference/cli.md");
    let expected = page();
    if std::env::var_os("KUBEGEN_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is not the commands' help; run `KUBEGEN_BLESS=1 cargo test -p kubegen-book --test reference`",
        path.display()
    );
}
