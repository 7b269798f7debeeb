//! Which of a list of known names are closest to a name someone typed: the "did you
//! mean" of an unknown MCP tool name. Pure text; knows no tool and no index (the symbol
//! search has its own, over the index's terms).

/// The least similarity (normalized Damerau-Levenshtein, 0-1) of a name offered as
/// close: `summarise_graph` and `summarize_graph` score 0.93, `get_paths` and
/// `get_impact` 0.5.
pub const MIN_SIMILARITY: f64 = 0.6;

/// Up to `n` names of `known` closest to `typed`, best first, compared without case.
///
/// A name that contains `typed` or is contained in it (at least 3 characters:
/// `get_graph_summary` for `constellation_get_graph_summary`) ranks first, the nearer
/// in length the better; then names at least [`MIN_SIMILARITY`] similar by normalized
/// Damerau-Levenshtein (Damerau 1964: one edit is an insertion, a deletion, a
/// substitution or a swap of neighbours; strsim's implementation). Equal scores keep
/// alphabetical order. Cost: O(|known| · |typed| · longest name).
pub fn closest_names<'a>(typed: &str, known: &[&'a str], n: usize) -> Vec<&'a str> {
    let typed = typed.to_lowercase();
    let mut scored: Vec<(f64, &'a str)> = known
        .iter()
        .filter_map(|&name| {
            let lower = name.to_lowercase();
            let (short, long) = if lower.len() <= typed.len() {
                (&lower, &typed)
            } else {
                (&typed, &lower)
            };
            let score = if short.chars().count() >= 3 && long.contains(short.as_str()) {
                1.0 + short.len() as f64 / long.len() as f64
            } else {
                strsim::normalized_damerau_levenshtein(&typed, &lower)
            };
            (score >= MIN_SIMILARITY).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(n).map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[&str] = &[
        "constellation_get_graph_summary",
        "get_impact",
        "get_paths",
        "search_symbols",
        "summarize_graph",
    ];

    #[test]
    fn a_misspelling_finds_the_name() {
        assert_eq!(
            closest_names("summarise_graph", TOOLS, 3),
            ["summarize_graph"]
        );
        assert_eq!(closest_names("Search_Symbol", TOOLS, 3), ["search_symbols"]);
    }

    #[test]
    fn a_part_of_a_name_finds_the_names_holding_it() {
        assert_eq!(
            closest_names("get_graph_summary", TOOLS, 3),
            ["constellation_get_graph_summary"]
        );
        assert_eq!(
            closest_names("get_", TOOLS, 3),
            ["get_paths", "get_impact", "constellation_get_graph_summary"]
        );
    }

    #[test]
    fn nothing_close_is_nothing() {
        assert!(closest_names("xyzzy", TOOLS, 3).is_empty());
        assert!(closest_names("", TOOLS, 3).is_empty());
    }
}
