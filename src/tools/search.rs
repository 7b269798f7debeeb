//! `search_symbols`: full-text search over symbol names, qualified names, file paths and
//! signatures (the FTS5 table `symbol_search`, schema/010), ranked for people looking
//! for a definition.
//!
//! Ranking, in tiers (each tier above every score of the one below):
//! 1. exact: the name equals the query's last segment (case-insensitive); with a
//!    qualified query (`Shape::area`, `pkg.mod.f`) the segments must match too, which
//!    ranks higher still;
//! 2. prefix: the whole name starts with the query;
//! 3. fts: every query term matches a column (the last term as a prefix);
//! 4. fuzzy, only when no name matched the query or held all its words: names within
//!    edit distance 1-2 (optimal string alignment) of the query, found through the
//!    terms sharing its first or last half; above the weaker word matches.
//!
//! Within the prefix and fts tiers, hits rank by how the name holds the query's words,
//! in this order:
//! - the match level: 2 for each word that is a whole identifier part of the name, 1
//!   for a prefix word (the last, or one typed with `*`) that only begins a part
//!   (`response parse`: `parse_response` before `response_parser`);
//! - then fewer parts of the name that no word matches. Words are typed from the name
//!   meant, so the name they describe most completely is the likeliest: if two of the
//!   k parts of a name are typed, a given pair comes from it with chance 1/(k(k-1)),
//!   so `parse_response` (k = 2) before `parse_http_response` (k = 3);
//! - then the best copy of each name before its other copies (one binding repeated in
//!   40 platform modules), so the other names that match as well still show;
//! - then popularity and BM25 (name and identifier parts weigh most, then enclosing
//!   names, path, signature) together, as ties only: neither lifts a name over one
//!   that holds the words better.
//!
//! Each candidate (up to a cap, the best by BM25, which favours short names too) is
//! ranked by its name before any row is read, and only the shown rows are read.
//!
//! Within the exact and fuzzy tiers, popularity breaks ties: ln(1 + in-degree), the
//! number of resolved edges (calls, imports, bases) reaching the node. In-degree rather
//! than PageRank because it costs one index probe per candidate (kept for the
//! generation; one pass over the index when a query has more than 10,000 new
//! candidates), where PageRank needs the whole symbol graph loaded; over call graphs the
//! two order the top nodes alike.

use std::collections::HashSet;

use rusqlite::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::lang::identifiers::{name_token, split_identifier};
use crate::lang::Language;
use crate::store::symbol_search::{self as rows, InDegrees, ShownSymbol};

use super::symbol_names::{names_node, parse_name, NameQuery};
use super::symbol_summary::count_tokens;
use super::workspace::Workspace;
use super::ToolError;

/// Default `budget_tokens`.
pub const DEFAULT_BUDGET: usize = 3000;
/// Default `limit`.
pub const DEFAULT_LIMIT: usize = 20;
/// Largest `limit`.
pub const MAX_LIMIT: usize = 200;
/// Most exact-name candidates ranked per query.
const EXACT_CAP: usize = 100_000;
/// Most full-text candidates ranked per query (without a path filter), the best by BM25
/// (which favours short names too); only the shown ones are read whole.
const FTS_CAP: usize = 300;
/// Most full-text candidates read when a path glob filters them afterwards.
const FTS_CAP_FILTERED: usize = 3000;
/// Most names suggested by the typo fallback.
const FUZZY_NAMES: usize = 5;

/// The node kinds a `kind` filter accepts.
pub const KINDS: &[&str] = &[
    "file",
    "module",
    "function",
    "method",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
];

/// Arguments of `search_symbols`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// A name, words of one, a qualified name or a path.
    pub query: String,
    /// function, method, class, ...
    pub kind: Option<String>,
    /// python, rust, typescript, ...
    pub language: Option<String>,
    /// Glob of the files to search.
    pub path: Option<String>,
    /// Default 20, at most 200.
    pub limit: Option<usize>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// One search hit.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SearchHit {
    /// `nodes.id` (valid for this index generation).
    pub node_id: i64,
    /// The node key (`func:src/a.rs::Shape::area`), stable across runs.
    pub key: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    /// Root-relative path of the defining file.
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: Option<String>,
    /// Ranking score (higher first; comparable within one answer only).
    pub score: f64,
    /// How the hit matched: `exact` (the name, or the qualified name), `prefix` (the
    /// name starts with the query), `fts` (words of the query), `fuzzy` (a name within
    /// edit distance 1-2 of the query, when no name matched it or held all its words).
    #[serde(rename = "match")]
    pub match_kind: String,
}

/// The answer of `search_symbols`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SearchAnswer {
    pub query: String,
    /// The hits, best first.
    pub hits: Vec<SearchHit>,
    /// Hits found in all (the shown ones included); a lower bound when `more_may_exist`.
    pub total: usize,
    /// True when hits were left out (by `limit` or by `budget_tokens`).
    pub truncated: bool,
    /// How many found hits were left out.
    pub more: usize,
    /// True when further matches may exist beyond `total`: the search stopped at a
    /// candidate cap, or the exact names filled `limit` and longer names were not looked
    /// up.
    pub more_may_exist: bool,
    /// True when no name matched the query (or held all its words) and names close to
    /// it were added: hits with match `fuzzy`.
    pub fuzzy: bool,
    /// The close names the typo fallback found ("did you mean").
    pub did_you_mean: Vec<String>,
    /// What was cut and how to get the rest, when something was.
    pub note: Option<String>,
    /// Tokens of this answer (cl100k_base), approximately.
    pub tokens: usize,
}

/// A candidate before rendering.
struct Scored {
    row: ShownSymbol,
    score: f64,
    match_kind: &'static str,
}

/// A prefix or words candidate, ranked by its name before its row is read.
struct Candidate<'a> {
    score: f64,
    /// The score it has when a better copy of its name comes first.
    further_copy: f64,
    id: i64,
    name: &'a str,
    is_prefix: bool,
    /// Whether the name starts with the query or holds all its words.
    holds_all: bool,
}

/// What the query asks for, parsed once.
struct Parsed {
    /// The name query (`Shape::area` → segments `Shape`, `area`).
    name: NameQuery,
    /// The whole-name token of the last segment (`parsehttpresponse`).
    token: Option<String>,
    /// Lowercase identifier parts of the whole query, with whether each is a prefix.
    terms: Vec<(String, bool)>,
}

fn parse_query(query: &str) -> Parsed {
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut terms: Vec<(String, bool)> = Vec::new();
    for w in &words {
        let explicit = w.ends_with('*');
        let parts = split_identifier(w.trim_end_matches('*'));
        let n = parts.len();
        for (i, p) in parts.into_iter().enumerate() {
            terms.push((p, explicit && i + 1 == n));
        }
    }
    // The last term is always a prefix: people type names from the start.
    if let Some(last) = terms.last_mut() {
        last.1 = true;
    }
    let single = (words.len() == 1).then(|| words[0].trim_end_matches('*'));
    let name = single.map(parse_name).unwrap_or(NameQuery {
        path: None,
        segments: Vec::new(),
    });
    let token = single.and_then(|w| {
        let last = if w.contains("::") || !w.contains('/') {
            name.segments.last().map(String::as_str).unwrap_or(w)
        } else {
            w
        };
        let t = name_token(last);
        (!t.trim_matches('_').is_empty()).then_some(t)
    });
    Parsed { name, token, terms }
}

/// An FTS5 string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// `search_symbols`: see the module docs for the ranking.
///
/// Errors: `invalid_argument` for an empty query or a `limit` of 0 or above 200;
/// `invalid_filter` for an unknown kind or language or a glob that does not compile;
/// `budget_too_small`; `database_error`.
pub fn search_symbols(ws: &Workspace, args: &SearchArgs) -> Result<SearchAnswer, ToolError> {
    // In-degrees first: the generation they belong to is read on a pooled connection,
    // and a call that held one while waiting for another could exhaust the pool with a
    // few others doing the same (every call stalled for the pool's 30 s timeout under 16
    // clients).
    let degrees = ws.in_degrees()?;
    let conn = ws.store().conn()?;
    search(&conn, &degrees, args)
}

/// [`search_symbols`] on a connection, with the in-degrees of the nodes (read as the
/// candidates need them, and kept in `degrees`).
pub fn search(
    conn: &Connection,
    degrees: &InDegrees,
    args: &SearchArgs,
) -> Result<SearchAnswer, ToolError> {
    let query = args.query.trim();
    if query.is_empty() || query.chars().all(|c| !c.is_alphanumeric()) {
        return Err(ToolError::InvalidArgument(
            "query is empty; give a name, words of a name, or a qualified name".into(),
        ));
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ToolError::InvalidArgument(format!(
            "limit {limit} is outside 1-{MAX_LIMIT}"
        )));
    }
    let budget = args.budget_tokens.unwrap_or(DEFAULT_BUDGET);
    let mut filters = String::new();
    if let Some(k) = &args.kind {
        if !KINDS.contains(&k.as_str()) {
            return Err(ToolError::InvalidFilter(format!(
                "unknown kind {k:?}; one of {}",
                KINDS.join(", ")
            )));
        }
        filters.push_str(&format!(" AND kind:{}", quoted(k)));
    }
    if let Some(l) = &args.language {
        if Language::from_name(l).is_none() {
            return Err(ToolError::InvalidFilter(format!(
                "unknown language {l:?}; one of rust, python, javascript, typescript, tsx, go, java, c, cpp"
            )));
        }
        filters.push_str(&format!(" AND language:{}", quoted(l)));
    }
    let glob = match &args.path {
        Some(p) => Some(
            globset::GlobBuilder::new(p)
                .literal_separator(true)
                .build()
                .map_err(|e| ToolError::InvalidFilter(format!("glob {p:?} is not valid: {e}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    let path_ok = |p: &str| glob.as_ref().is_none_or(|g| g.is_match(p));
    // Popularity: ln(1 + in-degree), of candidates whose in-degrees are loaded first.
    let pop = |id: i64| f64::from(degrees.get(id)).ln_1p();

    let parsed = parse_query(query);
    let mut found: Vec<Scored> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    // The row of a candidate not shown yet whose file passes the path filter, marked as
    // shown; `None` for any other.
    let unseen_row = |id: i64, seen: &mut HashSet<i64>| -> Result<Option<ShownSymbol>, ToolError> {
        if seen.contains(&id) {
            return Ok(None);
        }
        match rows::symbol_by_id(conn, id)? {
            Some(row) if path_ok(&row.path) => {
                seen.insert(id);
                Ok(Some(row))
            }
            _ => Ok(None),
        }
    };
    let mut capped = false;
    // Whether some hit has the query's name, starts with it, or holds all its words;
    // without one, the names close to the query are added (typo fallback).
    let mut strong = false;
    // How many candidates were found but not read (exact matches beyond what is shown).
    let mut unread = 0usize;

    // 1. exact names
    if let Some(token) = &parsed.token {
        let ids = rows::matching_ids(conn, &format!("name:{}{filters}", quoted(token)), EXACT_CAP)?;
        capped |= ids.len() >= EXACT_CAP;
        let qualified = parsed.name.segments.len() > 1 || parsed.name.path.is_some();
        // The name as typed, case included, before other spellings of it, then by
        // popularity: both known before any row is read.
        let as_typed: HashSet<i64> = match parsed.name.segments.last() {
            Some(n) => rows::ids_named(conn, n)?.into_iter().collect(),
            None => HashSet::new(),
        };
        degrees.load(conn, ids.iter().copied())?;
        let mut ranked: Vec<(f64, i64)> = ids
            .iter()
            .map(|&id| {
                (
                    pop(id) + if as_typed.contains(&id) { 100.0 } else { 0.0 },
                    id,
                )
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // A qualified query ranks by whether the segments match, so it reads every
        // candidate (up to a cap); a bare name reads only what it shows.
        let want = if qualified { 5000 } else { limit };
        let mut taken = 0;
        for (i, &(p, id)) in ranked.iter().enumerate() {
            if taken >= want {
                unread = ranked.len() - i;
                break;
            }
            let Some(row) = unseen_row(id, &mut seen)? else {
                continue;
            };
            taken += 1;
            strong = true;
            let full = qualified
                && names_node(
                    &parsed.name,
                    &row.path,
                    &row.qualified_name,
                    &row.kind,
                    true,
                );
            found.push(Scored {
                score: if full { 4000.0 } else { 2000.0 } + p,
                match_kind: "exact",
                row,
            });
        }
    }

    // 2. and 3. prefixes and words, when the exact names do not fill the answer (when
    // they do, longer names may match too: said by `more_may_exist`)
    if found.len() >= limit {
        capped = true;
    } else if !parsed.terms.is_empty() {
        // A one-character prefix (`r*` of `strtok_r`, `0*` of `v0_0_1`) beside other
        // words narrows nothing and is the slowest FTS5 query there is (the prefix
        // indexes start at two characters: every term of that letter is read), so it is
        // matched as a whole word then; alone it stays a prefix.
        let single_term = parsed.terms.len() == 1;
        let expr_with = |short_prefix: bool| {
            parsed
                .terms
                .iter()
                .map(|(t, prefix)| {
                    let n = t.chars().count();
                    let star = *prefix && (n >= 3 || (short_prefix && (n >= 2 || single_term)));
                    format!("{}{}", quoted(t), if star { "*" } else { "" })
                })
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        let expr = expr_with(true);
        // Over paths and signatures an implicit prefix of one or two letters matches
        // nearly everything (`sr*`: every `src`): whole words there, unless the `*` was
        // typed.
        let wide_expr = expr_with(query.ends_with('*'));
        // Words of the name first; the other columns (enclosing names, path,
        // signature) only when those do not fill the answer: a narrower match is both
        // the better hit and the cheaper query.
        let cap = if glob.is_some() {
            FTS_CAP_FILTERED
        } else {
            FTS_CAP
        };
        // The whole name as a prefix too (`snake_c` for `snake_case`, whose last part is
        // then no prefix of its own): one term of the `name` column, cheap at any length
        // from two characters.
        let words_or_name = match parsed.token.as_deref() {
            Some(t) if t.chars().count() >= 2 && !single_term => {
                format!("(({{name parts}} : ({expr})) OR (name : {}*))", quoted(t))
            }
            _ => format!("({{name parts}} : ({expr}))"),
        };
        let mut ids = rows::ranked_names(conn, &format!("{words_or_name}{filters}"), cap)?;
        if ids.len() < limit.max(10) {
            let named: HashSet<i64> = ids.iter().map(|x| x.0).collect();
            let wide = rows::ranked_names(
                conn,
                &format!("{{name parts scope path signature}} : ({wide_expr}){filters}"),
                cap,
            )?;
            ids.extend(wide.into_iter().filter(|x| !named.contains(&x.0)));
        }
        capped |= ids.len() >= cap;
        // Every candidate is ranked by its name before any row is read; then rows are
        // read best first, only as many as the answer shows (all of them when a path
        // glob may still reject some).
        let best = ids.iter().map(|x| x.2).fold(1e-9, f64::max);
        let prefix_token = parsed.token.as_deref();
        degrees.load(conn, ids.iter().map(|(id, _, _)| *id))?;
        let mut ranked: Vec<Candidate> = Vec::with_capacity(ids.len());
        for (id, name, bm25) in &ids {
            if seen.contains(id) {
                continue;
            }
            let m = name_match(&parsed.terms, name);
            let is_prefix = prefix_token.is_some_and(|t| name_token(name).starts_with(t));
            let holds_all = is_prefix || m.whole + m.prefix == parsed.terms.len();
            let score = |first| {
                fts_score(
                    &m,
                    parsed.terms.len(),
                    is_prefix,
                    first,
                    pop(*id),
                    bm25 / best,
                )
            };
            ranked.push(Candidate {
                score: score(true),
                further_copy: score(false),
                id: *id,
                name,
                is_prefix,
                holds_all,
            });
        }
        let order =
            |a: &Candidate, b: &Candidate| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id));
        ranked.sort_by(order);
        // Copies of a name (one binding generated per platform, one method per impl)
        // match alike: the best of each goes first, the others after the names that
        // match as well.
        let mut names_seen: HashSet<&str> = HashSet::new();
        for c in &mut ranked {
            if !names_seen.insert(c.name) {
                c.score = c.further_copy;
            }
        }
        ranked.sort_by(order);
        let want = if glob.is_some() {
            usize::MAX
        } else {
            strong |= ranked.iter().any(|c| c.holds_all);
            limit.saturating_sub(found.len())
        };
        let mut taken = 0;
        for (i, c) in ranked.iter().enumerate() {
            if taken >= want {
                unread += ranked.len() - i;
                break;
            }
            let Some(row) = unseen_row(c.id, &mut seen)? else {
                continue;
            };
            taken += 1;
            strong |= c.holds_all;
            found.push(Scored {
                score: c.score,
                match_kind: if c.is_prefix { "prefix" } else { "fts" },
                row,
            });
        }
    }

    // 4. typo fallback: names close to the query when nothing matched its name or all
    // its words; the best of each close name first, so several names show.
    let mut did_you_mean = Vec::new();
    let mut fuzzy = false;
    if !strong {
        if let Some(token) = &parsed.token {
            for (name_tok, distance) in close_names(conn, token)? {
                let ids = rows::matching_ids(
                    conn,
                    &format!("name:{}{filters}", quoted(&name_tok)),
                    EXACT_CAP,
                )?;
                degrees.load(conn, ids.iter().copied())?;
                let mut ranked: Vec<(f64, i64)> = ids.iter().map(|&id| (pop(id), id)).collect();
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let mut taken = 0;
                for (p, id) in ranked {
                    if taken >= limit {
                        unread += 1;
                        continue;
                    }
                    let Some(row) = unseen_row(id, &mut seen)? else {
                        continue;
                    };
                    if taken == 0 {
                        did_you_mean.push(row.name.clone());
                    }
                    fuzzy = true;
                    found.push(Scored {
                        score: 100.0 - 20.0 * distance as f64 - 5.0 * taken as f64 + p,
                        match_kind: "fuzzy",
                        row,
                    });
                    taken += 1;
                }
            }
        }
    }

    found.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.row.path.cmp(&b.row.path))
            .then(a.row.id.cmp(&b.row.id))
    });
    let total = found.len() + unread;
    let hits: Vec<SearchHit> = found
        .into_iter()
        .take(limit)
        .map(|s| SearchHit {
            node_id: s.row.id,
            key: s.row.key,
            kind: s.row.kind,
            name: s.row.name,
            qualified_name: s.row.qualified_name,
            path: s.row.path,
            start_line: s.row.start_line,
            end_line: s.row.end_line,
            signature: s.row.signature,
            score: (s.score * 1000.0).round() / 1000.0,
            match_kind: s.match_kind.to_string(),
        })
        .collect();
    let mut answer = SearchAnswer {
        query: query.to_string(),
        hits,
        total,
        truncated: false,
        more: 0,
        more_may_exist: capped,
        fuzzy,
        did_you_mean,
        note: None,
        tokens: 0,
    };
    fit_hits(&mut answer, limit, budget)?;
    Ok(answer)
}

/// How a name holds the words of a query (step 3 of the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NameMatch {
    /// Query words that are whole parts of the name.
    whole: usize,
    /// Prefix words (the last one, or one typed with `*`) that only begin a part.
    prefix: usize,
    /// Parts of the name that no query word matches.
    extra: usize,
}

/// The [`NameMatch`] of `name` for the query `terms` (lowercase parts, with whether
/// each may match as a prefix).
fn name_match(terms: &[(String, bool)], name: &str) -> NameMatch {
    let parts = split_identifier(name);
    let mut used = vec![false; parts.len()];
    let (mut whole, mut prefix) = (0, 0);
    for (term, may_prefix) in terms {
        let mut is_whole = false;
        let mut begins = false;
        for (part, used) in parts.iter().zip(used.iter_mut()) {
            if part == term {
                is_whole = true;
                *used = true;
            } else if *may_prefix && part.starts_with(term.as_str()) {
                begins = true;
                *used = true;
            }
        }
        if is_whole {
            whole += 1;
        } else if begins {
            prefix += 1;
        }
    }
    NameMatch {
        whole,
        prefix,
        extra: used.iter().filter(|u| !**u).count(),
    }
}

/// The score of a prefix or words hit (step 3 of the module docs), for a query of
/// `terms` words: a lexicographic order folded into one number from 0 to 60 (plus 500
/// for a prefix of the whole name). First the match level (2 per whole word, 1 per
/// prefix word; steps of 20), then fewer other parts (steps of 1, counted up to 19),
/// then the first copy of a name before the others (0.5), then `popularity + bm25` (the
/// BM25 score over the best one's, at most 1) squashed below 0.5.
fn fts_score(
    m: &NameMatch,
    terms: usize,
    is_prefix: bool,
    first_of_name: bool,
    popularity: f64,
    bm25: f64,
) -> f64 {
    let level = (2 * m.whole + m.prefix) as f64;
    let soft = popularity + bm25;
    let key = 20.0 * level
        + (19 - m.extra.min(19)) as f64
        + if first_of_name { 0.5 } else { 0.0 }
        + 0.49 * soft / (1.0 + soft);
    let base = if is_prefix { 500.0 } else { 0.0 };
    base + 60.0 * key / (40 * terms.max(1) + 20) as f64
}

/// Cuts `answer.hits` until its JSON fits `budget` tokens; fills `truncated`, `more`,
/// `note` and `tokens`.
fn fit_hits(answer: &mut SearchAnswer, limit: usize, budget: usize) -> Result<(), ToolError> {
    let all = answer.hits.len();
    loop {
        let shown = answer.hits.len();
        answer.more = answer.total.saturating_sub(shown);
        answer.truncated = answer.more > 0 || answer.more_may_exist;
        answer.note = if shown < all {
            Some(format!(
                "{} more hit(s) did not fit budget_tokens {budget}: raise budget_tokens, or narrow the search with kind, language or path",
                answer.more
            ))
        } else if answer.truncated {
            Some(format!(
                "{}{} more hit(s): raise limit (now {limit}, max {MAX_LIMIT}) or narrow the search with kind, language or path",
                if answer.more_may_exist { "at least " } else { "" },
                answer.more
            ))
        } else {
            None
        };
        answer.tokens = 0;
        let text =
            serde_json::to_string(&answer).map_err(|e| ToolError::Internal(e.to_string()))?;
        let tokens = count_tokens(&text) + 8;
        answer.tokens = tokens;
        if tokens <= budget {
            return Ok(());
        }
        if shown == 0 {
            return Err(ToolError::BudgetTooSmall(format!(
                "the smallest answer takes {tokens} tokens (cl100k_base); raise budget_tokens to at least {tokens}"
            )));
        }
        // Tokens per hit are about even: cut to the share that fits, at least one less.
        let keep = (shown * budget / tokens).min(shown - 1);
        answer.hits.truncate(keep);
    }
}

/// Names (whole-name tokens) within edit distance 1 (names under 5 characters) or 2 of
/// `token`, closest first, at most [`FUZZY_NAMES`]. A name one or two edits away
/// shares the first or the last half of `token` unless the edits fall in both halves,
/// so the candidates are the terms that start with its first half and those that end
/// with its last half (the reversed names, column `rname`).
fn close_names(conn: &Connection, token: &str) -> Result<Vec<(String, usize)>, ToolError> {
    let chars: Vec<char> = token.chars().collect();
    if chars.len() < 3 {
        return Ok(Vec::new());
    }
    let max = if chars.len() < 5 { 1 } else { 2 };
    let half = chars.len() / 2;
    let head: String = chars[..half.max(2)].iter().collect();
    let tail: String = chars[half.min(chars.len() - 2)..].iter().rev().collect();
    let mut candidates: Vec<String> =
        rows::terms_in_range(conn, "name", &head, &format!("{head}\u{10FFFF}"), 50_000)?;
    candidates.extend(
        rows::terms_in_range(conn, "rname", &tail, &format!("{tail}\u{10FFFF}"), 50_000)?
            .into_iter()
            .map(|t| t.chars().rev().collect::<String>()),
    );
    let mut close: Vec<(String, usize)> = candidates
        .into_iter()
        .filter(|c| c.chars().count().abs_diff(chars.len()) <= max)
        .map(|c| {
            let d = strsim::osa_distance(&c, token);
            (c, d)
        })
        .filter(|(_, d)| *d >= 1 && *d <= max)
        .collect();
    close.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    close.dedup_by(|a, b| a.0 == b.0);
    close.truncate(FUZZY_NAMES);
    Ok(close)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(query: &str) -> Vec<(String, bool)> {
        parse_query(query).terms
    }

    fn m(whole: usize, prefix: usize, extra: usize) -> NameMatch {
        NameMatch {
            whole,
            prefix,
            extra,
        }
    }

    #[test]
    fn name_match_counts_whole_words_prefix_words_and_other_parts() {
        let q = terms("response parse");
        assert_eq!(q, [("response".into(), false), ("parse".into(), true)]);
        assert_eq!(name_match(&q, "parse_response"), m(2, 0, 0));
        assert_eq!(name_match(&q, "parseHTTPResponse"), m(2, 0, 1));
        assert_eq!(name_match(&q, "response_parser"), m(1, 1, 0));
        // Only the last word (or one typed with `*`) may be a prefix.
        assert_eq!(name_match(&q, "responses_parse"), m(1, 0, 1));
        assert_eq!(
            name_match(&terms("resp* parse"), "responses_parse"),
            m(1, 1, 0)
        );
        // A repeated part is matched wherever it occurs.
        assert_eq!(
            name_match(&terms("bindgen ty"), "uffd_msg__bindgen_ty_1__bindgen_ty_4"),
            m(2, 0, 4)
        );
        assert_eq!(name_match(&q, "unrelated"), m(0, 0, 1));
    }

    #[test]
    fn fts_score_orders_level_then_other_parts_then_first_copy_then_popularity() {
        let s = |m: NameMatch, first: bool, pop: f64| fts_score(&m, 2, false, first, pop, 0.5);
        // Whole words beat a prefix word, whatever the other parts or the popularity.
        assert!(s(m(2, 0, 19), false, 0.0) > s(m(1, 1, 0), true, 20.0));
        // Fewer other parts beat popularity and being the first copy of a name.
        assert!(s(m(2, 0, 1), false, 0.0) > s(m(2, 0, 2), true, 20.0));
        // Beyond 19 other parts the count no longer orders.
        assert_eq!(s(m(2, 0, 19), true, 1.0), s(m(2, 0, 30), true, 1.0));
        // The first copy of a name beats a more popular further copy of another.
        assert!(s(m(2, 0, 1), true, 0.0) > s(m(2, 0, 1), false, 20.0));
        // Then popularity and BM25 order.
        assert!(s(m(2, 0, 1), true, 1.0) > s(m(2, 0, 1), true, 0.0));
        assert!(fts_score(&m(2, 0, 1), 2, false, true, 0.0, 1.0) > s(m(2, 0, 1), true, 0.0));
        // Words hits score from 0 to 60, prefix hits 500 more.
        assert!(s(m(2, 0, 0), true, 1e9) < 60.0);
        assert!(s(m(0, 0, 30), false, 0.0) >= 0.0);
        assert!(fts_score(&m(0, 0, 30), 2, true, false, 0.0, 0.0) >= 500.0);
    }
}
