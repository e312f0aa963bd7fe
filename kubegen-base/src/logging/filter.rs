//! `RUST_LOG`'s filter: `target=level` directives and bare levels, with
//! the semantics of `tracing_subscriber::filter::Targets`.
//!
//! - A directive's target matches every target it is a string prefix of
//!   (`kube` matches `kube_client::client` and `kubernetes`).
//! - The most specific directive decides: the longest matching target,
//!   then the bare level; with neither, nothing is enabled.
//! - A directive is `target=level`, a bare `level`, or a bare `target`,
//!   which means `target=trace`. Levels are `off`, `error`, `warn`, `info`,
//!   `debug`, `trace` in any case, or `0` (off) to `5` (trace); an empty
//!   level (`target=`, or an empty directive as in `info,`) means `error`.
//! - Of directives for the same target (or of bare levels), the last wins.

use std::str::FromStr;

use tracing::Level;
use tracing::level_filters::LevelFilter;

/// One directive: a target prefix (`None` for a bare level) and the most
/// verbose level it lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Directive {
    target: Option<String>,
    level: LevelFilter,
}

/// A parsed `RUST_LOG` value.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    /// Most specific first: longest target first, the bare level last.
    directives: Vec<Directive>,
    /// The most verbose level of any directive.
    max_level: LevelFilter,
}

impl Filter {
    /// Whether an event or span of `level` at `target` is logged.
    pub(crate) fn enabled(&self, target: &str, level: &Level) -> bool {
        self.directives
            .iter()
            .find(|d| d.target.as_deref().is_none_or(|t| target.starts_with(t)))
            .is_some_and(|d| d.level >= *level)
    }

    /// The most verbose level anything is logged at.
    pub(crate) fn max_level(&self) -> LevelFilter {
        self.max_level
    }

    fn add(&mut self, directive: Directive) {
        self.max_level = self.max_level.max(directive.level);
        match self
            .directives
            .iter_mut()
            .find(|d| d.target == directive.target)
        {
            Some(same) => *same = directive,
            None => {
                self.directives.push(directive);
                // `None` (the bare level) sorts before every target length,
                // so it ends up last.
                kubegen_core::sorting::sort_by_key(&mut self.directives, |d| {
                    std::cmp::Reverse(d.target.as_ref().map(String::len))
                });
            }
        }
    }
}

impl FromStr for Filter {
    type Err = String;

    /// Parses comma-separated directives; span and field filters
    /// (`target[span{field}]=level`) are refused.
    fn from_str(directives: &str) -> Result<Self, String> {
        if directives.contains(['[', ']', '{', '}']) {
            return Err("span and field filters (`[span{field}]`) are not supported".into());
        }
        let mut filter = Filter {
            directives: Vec::new(),
            max_level: LevelFilter::OFF,
        };
        for directive in directives.split(',') {
            filter.add(parse_directive(directive)?);
        }
        Ok(filter)
    }
}

/// One directive, reported as `Targets` reports its errors.
fn parse_directive(text: &str) -> Result<Directive, String> {
    let mut parts = text.split('=');
    let first = parts.next().unwrap_or_default();
    match (parts.next(), parts.next()) {
        (Some(_), Some(_)) => Err(
            "invalid filter directive: too many '=' in filter directive, expected 0 or 1".into(),
        ),
        (Some(level), None) => Ok(Directive {
            target: Some(first.to_owned()),
            level: level.parse().map_err(|e| format!("{e}"))?,
        }),
        (None, _) => Ok(match first.parse::<LevelFilter>() {
            Ok(level) => Directive {
                target: None,
                level,
            },
            Err(_) => Directive {
                target: Some(first.to_owned()),
                level: LevelFilter::TRACE,
            },
        }),
    }
}
