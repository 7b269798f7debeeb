//! The degradation ladder: render at the requested radius; when the text is over
//! budget, drop to radius 1, then apply the documented steps in order (top_k
//! 300/200/150, communities top-10/top-5, two path samples, five seeds), then halve
//! the lists in turn until the rendering fits or nothing is left to cut. Each step
//! applied is reported in `truncation.steps`.

use petgraph::graph::NodeIndex;

use crate::graph::SymbolGraph;
use crate::tools::ToolError;

use super::args::Params;
use super::compute::{compute, Full};
use super::render::{render, Cut};
use super::Rendered;

/// One degradation step: cuts a list and says what it did, or `None` when it has
/// nothing left to cut.
type LadderStep = dyn Fn(&mut Cut) -> Option<String>;

/// Renders the summary within `p.budget` tokens, cutting step by step.
///
/// Errors: `budget_too_small`, with the size of the smallest rendering.
pub(super) fn fit(
    g: &SymbolGraph,
    p: &Params,
    keep: &[bool],
    seeds: &[NodeIndex],
    filter_key: &str,
) -> Result<Rendered, ToolError> {
    // The documented degradation ladder, then further halving of the lists.
    let mut radius = p.radius;
    let mut full = compute(g, p, radius, keep, seeds, filter_key);
    // Cut sizes start at what the lists hold, so a step that would drop nothing is skipped.
    let initial = |full: &Full| Cut {
        top_k: p.top_k.min(full.top.len()),
        communities: p.max_communities.min(full.communities.len()),
        samples: p.max_nodes_per_community,
        paths: p.path_samples.min(full.paths.len()),
        seeds: full.seeds.len(),
    };
    let mut cut = initial(&full);
    let mut steps: Vec<String> = Vec::new();
    let mut out = render(g, &full, p, &cut, radius, &steps);
    let fits = |r: &Rendered| r.response.tokens <= p.budget;
    if fits(&out) {
        return Ok(out);
    }
    if radius >= 2 {
        steps.push(format!("radius {radius} -> 1"));
        radius = 1;
        full = compute(g, p, radius, keep, seeds, filter_key);
        cut = initial(&full);
        out = render(g, &full, p, &cut, radius, &steps);
        if fits(&out) {
            return Ok(out);
        }
    }
    let mut ladder: Vec<Box<LadderStep>> = Vec::new();
    for step in [300usize, 200, 150] {
        ladder.push(Box::new(move |c: &mut Cut| {
            (c.top_k > step).then(|| {
                let s = format!("top_k {} -> {step}", c.top_k);
                c.top_k = step;
                s
            })
        }));
    }
    for step in [10usize, 5] {
        ladder.push(Box::new(move |c: &mut Cut| {
            (c.communities > step).then(|| {
                let s = format!("communities top-{} -> top-{step}", c.communities.min(99));
                c.communities = step;
                s
            })
        }));
    }
    ladder.push(Box::new(|c: &mut Cut| {
        (c.paths > 2).then(|| {
            let s = format!("path_samples {} -> 2", c.paths);
            c.paths = 2;
            s
        })
    }));
    ladder.push(Box::new(|c: &mut Cut| {
        (c.seeds > 5).then(|| {
            c.seeds = 5;
            "seeds_preview cut to 5 (count kept)".to_string()
        })
    }));
    // Beyond the documented ladder: fewer samples per community, then halve the lists in
    // turn (top nodes keep at least 10 until communities and paths are gone), then empty
    // them.
    ladder.push(Box::new(|c: &mut Cut| {
        (c.samples > 3).then(|| {
            let s = format!("community samples {} -> 3", c.samples);
            c.samples = 3;
            s
        })
    }));
    for _ in 0..24 {
        ladder.push(Box::new(|c: &mut Cut| {
            if c.communities > 1 || c.top_k > 10 {
                if c.top_k > 10 && (c.top_k >= c.communities * 4 || c.communities <= 1) {
                    let n = (c.top_k / 2).max(10);
                    let s = format!("top_k {} -> {n}", c.top_k);
                    c.top_k = n;
                    Some(s)
                } else {
                    let n = c.communities / 2;
                    let s = format!("communities top-{} -> top-{n}", c.communities);
                    c.communities = n;
                    Some(s)
                }
            } else if c.paths > 0 {
                c.paths = 0;
                Some("path_samples -> 0".into())
            } else if c.communities > 0 {
                c.communities = 0;
                Some("communities -> 0".into())
            } else if c.seeds > 0 {
                c.seeds = 0;
                Some("seeds_preview -> 0 (count kept)".into())
            } else if c.top_k > 0 {
                let n = c.top_k / 2;
                let s = format!("top_k {} -> {n}", c.top_k);
                c.top_k = n;
                Some(s)
            } else {
                None
            }
        }));
    }
    for step in &ladder {
        if let Some(s) = step(&mut cut) {
            steps.push(s);
            out = render(g, &full, p, &cut, radius, &steps);
            if fits(&out) {
                return Ok(out);
            }
        }
    }
    Err(ToolError::BudgetTooSmall(format!(
        "the smallest summary takes {} tokens (cl100k_base) and budget_tokens is {}; raise budget_tokens to at least {}",
        out.response.tokens, p.budget, out.response.tokens
    )))
}
