//! Short unified diffs for `kubegen generate --check`.

use similar::TextDiff;

/// Most diff lines shown for one file; the rest is summarised.
const MAX_LINES: usize = 40;

/// A unified diff from `old` (on disk) to `new` (generated), cut after
/// 40 lines (the rest is summarised).
pub fn unified_diff(old: &str, new: &str, name: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header(
            &format!("a/{name} (on disk)"),
            &format!("b/{name} (generated)"),
        )
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= MAX_LINES {
        return text;
    }
    let mut short = lines[..MAX_LINES].join("\n");
    short.push_str(&format!(
        "\n... {} more diff lines\n",
        lines.len() - MAX_LINES
    ));
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_changed_lines_with_context() {
        let diff = unified_diff("a\nb\nc\n", "a\nB\nc\n", "f.yaml");
        assert!(diff.contains("--- a/f.yaml (on disk)"), "{diff}");
        assert!(diff.contains("-b\n+B\n"), "{diff}");
    }

    #[test]
    fn long_diffs_are_cut() {
        let old: String = (0..200).map(|i| format!("{i}\n")).collect();
        let diff = unified_diff(&old, "", "f");
        assert!(diff.lines().count() <= MAX_LINES + 1);
        assert!(diff.contains("more diff lines"), "{diff}");
    }
}
