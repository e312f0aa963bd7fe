//! "Did you mean" suggestions for misspelled attribute names.

/// Levenshtein edit distance between two strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `word`, if one is close enough to be a typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let normalized = word.to_ascii_lowercase().replace('-', "_");
    candidates
        .into_iter()
        .map(|c| {
            // A candidate that differs only by separators/case is always a match.
            let squashed = c.replace('_', "") == normalized.replace('_', "");
            let d = if squashed {
                0
            } else {
                edit_distance(&normalized, c)
            };
            (d, c)
        })
        .filter(|(d, c)| *d <= (c.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn suggestions() {
        let keys = ["min_length", "max_length", "minimum", "pattern"];
        assert_eq!(suggest("min_lenght", keys), Some("min_length"));
        assert_eq!(suggest("minLength", keys), Some("min_length"));
        assert_eq!(suggest("patern", keys), Some("pattern"));
        assert_eq!(suggest("completely_else", keys), None);
    }
}
