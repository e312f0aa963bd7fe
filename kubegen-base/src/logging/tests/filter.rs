//! `RUST_LOG` filters with the semantics of `tracing_subscriber`'s
//! `Targets`.

use tracing::Level;
use tracing::level_filters::LevelFilter;

use crate::logging::parse_filter;

/// Which of `levels` `filter` lets through at `target`, as `"TDIWE"`
/// letters (`-` for a level filtered out).
fn passes(filter: &str, target: &str) -> String {
    let filter = parse_filter(filter).unwrap();
    [
        (Level::TRACE, 'T'),
        (Level::DEBUG, 'D'),
        (Level::INFO, 'I'),
        (Level::WARN, 'W'),
        (Level::ERROR, 'E'),
    ]
    .iter()
    .map(|(level, letter)| {
        if filter.enabled(target, level) {
            *letter
        } else {
            '-'
        }
    })
    .collect()
}

/// A target matches every target it is a string prefix of, and the
/// longest matching target decides, whatever the order of directives.
#[test]
fn the_longest_matching_target_decides() {
    for filter in [
        "kube=warn,kube_client=debug,info",
        "info,kube_client=debug,kube=warn",
    ] {
        assert_eq!(passes(filter, "kube_client::client"), "-DIWE", "{filter}");
        assert_eq!(passes(filter, "kube_client"), "-DIWE", "{filter}");
        assert_eq!(passes(filter, "kube::runtime"), "---WE", "{filter}");
        // A string prefix, not a path prefix (as `Targets`).
        assert_eq!(passes(filter, "kubernetes"), "---WE", "{filter}");
        assert_eq!(passes(filter, "kub"), "--IWE", "{filter}");
        assert_eq!(passes(filter, "my_operator"), "--IWE", "{filter}");
    }
    // A more specific directive can be quieter than a general one.
    assert_eq!(passes("a=trace,a::b=error", "a::b::c"), "----E");
    assert_eq!(passes("a=trace,a::b=error", "a::c"), "TDIWE");
}

/// Without a bare level, targets no directive names log nothing; `off`
/// silences a target or everything.
#[test]
fn bare_level_and_off() {
    assert_eq!(passes("my_operator=debug", "kube"), "-----");
    assert_eq!(passes("my_operator=debug", "my_operator::x"), "-DIWE");
    assert_eq!(passes("warn", "anything"), "---WE");
    assert_eq!(passes("off", "anything"), "-----");
    assert_eq!(passes("info,noisy=off", "noisy::x"), "-----");
    assert_eq!(passes("info,noisy=off", "quiet"), "--IWE");
    assert_eq!(passes("my_operator=trace,off", "other"), "-----");
    assert_eq!(passes("my_operator=trace,off", "my_operator"), "TDIWE");
}

/// Levels in any case and as numbers `0` (off) to `5` (trace); a bare
/// target means trace; the last directive for a target (or the last bare
/// level) wins; an empty level means error (`Targets` parses `""` so):
/// a trailing comma adds a bare `error`.
#[test]
fn levels_bare_targets_and_repeated_directives() {
    assert_eq!(passes("My_Op=DEBUG,Warn", "My_Op"), "-DIWE");
    assert_eq!(passes("My_Op=DEBUG,Warn", "my_op"), "---WE");
    assert_eq!(passes("a=TrAcE", "a"), "TDIWE");
    assert_eq!(passes("a=4,1", "a"), "-DIWE");
    assert_eq!(passes("a=4,1", "b"), "----E");
    assert_eq!(passes("a=0,5", "a"), "-----");
    assert_eq!(passes("my_operator", "my_operator::x"), "TDIWE");
    assert_eq!(passes("my_operator", "other"), "-----");
    assert_eq!(passes("a=debug,a=warn", "a"), "---WE");
    assert_eq!(passes("info,debug", "x"), "-DIWE");
    assert_eq!(passes("a=", "a"), "----E");
    assert_eq!(passes("info,", "x"), "----E");
    assert_eq!(passes("=warn", "x"), "---WE");
}

/// The most verbose level of any directive bounds what callsites and
/// `log` records are asked about.
#[test]
fn max_level_is_the_most_verbose_directive() {
    let max = |filter: &str| parse_filter(filter).unwrap().max_level();
    assert_eq!(max("info"), LevelFilter::INFO);
    assert_eq!(max("warn,my_operator=trace"), LevelFilter::TRACE);
    assert_eq!(max("off"), LevelFilter::OFF);
    assert_eq!(max("a=off,b=error"), LevelFilter::ERROR);
}

/// Span and field filters, extra `=` and unknown levels are refused with
/// the messages `Targets` gave (`init` then reports them and uses `info`).
#[test]
fn invalid_directives_are_refused() {
    let error = |filter: &str| parse_filter(filter).unwrap_err();
    for filter in ["[reconcile{key}]=debug", "a[{b}]=info", "a{b}", "a]"] {
        assert_eq!(
            error(filter),
            "span and field filters (`[span{field}]`) are not supported",
            "{filter}"
        );
    }
    assert_eq!(
        error("a=b=c"),
        "invalid filter directive: too many '=' in filter directive, expected 0 or 1"
    );
    let unknown_level = "error parsing level filter: expected one of \"off\", \"error\", \
                         \"warn\", \"info\", \"debug\", \"trace\", or a number 0-5";
    assert_eq!(error("my_operator=loud"), unknown_level);
    assert_eq!(error("info,a=6"), unknown_level);
    assert_eq!(error("a= info"), unknown_level);
    assert!(parse_filter(super::super::DEFAULT_FILTER).is_ok());
}
