//! `open_window` and `export --format html`: the file-level dependency graph
//! as one self-contained HTML page — the SVG drawing, the styles and a small script
//! are all inlined, so the page needs no network and no other file.
//!
//! Layout is not ours: the `layout-rs` crate (a pure-Rust Sugiyama-style layered
//! layout, as Graphviz `dot` does: cycle breaking, ranking, crossing reduction,
//! placement, spline edges) places the nodes and routes the edges. This module maps
//! the graph onto it and renders its draw calls as SVG through [`SvgCanvas`], which
//! groups each node's shape with its label so the page's script can find them.
//!
//! What the page shows:
//! - nodes sized by PageRank (area grows with the score; Brin & Page 1998, damping
//!   0.85, as `graph::pagerank`), labelled with the shortest end of the path that no
//!   other drawn file shares (`json/__init__.py`, not nine `__init__.py`), full path
//!   on hover;
//! - files on a dependency cycle (a strongly connected component of two or more
//!   files) filled red, and edges inside such a component drawn red; the cycles
//!   themselves are listed in the side panel (one closed cycle per component, as
//!   `constellation_get_graph_summary` finds them);
//! - a search box that highlights matching paths, dims the rest and centres the view
//!   on the first match (also from the address: `graph.html#q=text`); clicking a node highlights its imports and
//!   importers; the wheel zooms and dragging pans.
//!
//! A graph larger than `max_nodes` is cut to its `max_nodes` files of highest
//! PageRank (and the edges among them); the page and the answer say so. A drawing
//! with more than [`FULL_LAYOUT_MAX_EDGES`] edges is laid out on a spanning forest of
//! its imports, the other edges drawn straight between the placed nodes: layout-rs's
//! connector chains and crossing optimizers make dense graphs take minutes otherwise
//! (figures in `bench/window_bench.sh` and the README).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::FileGraph;
use crate::tools::sandbox;
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// Files drawn when the caller gives no `maxNodes`.
pub const DEFAULT_MAX_NODES: usize = 300;
/// The largest `maxNodes` accepted (1,000 files of the Python standard library take
/// about 10 s to lay out; 2,000 take 80 s).
pub const MAX_MAX_NODES: usize = 1_000;
/// Drawings with at most this many edges are laid out with every edge; larger ones on
/// a spanning forest of their edges, the rest drawn straight (see [`render_html`] and
/// `bench/window_bench.sh`).
pub const FULL_LAYOUT_MAX_EDGES: usize = 300;
/// Where `open_window` writes the page, relative to the workspace root.
pub const WINDOW_PATH: &str = ".artifacts/graph.html";

/// Arguments of `open_window`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenWindowArgs {
    /// Draw at most this many files, those of highest PageRank (default 300, at most 1000).
    #[serde(default, rename = "maxNodes")]
    pub max_nodes: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
    /// Ignored (an editor column; the page opens in any browser).
    #[serde(default, rename = "viewColumn")]
    pub view_column: Option<i64>,
}

/// The answer of `open_window`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OpenWindowResponse {
    /// Absolute path of the HTML file written.
    pub path: String,
    /// The same as a `file://` URL.
    pub url: String,
    /// What the page shows, in numbers.
    pub stats: WindowStats,
}

/// What a rendered page holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WindowStats {
    /// Files in the graph and files drawn.
    pub nodes_total: usize,
    pub nodes_drawn: usize,
    /// Import edges in the graph and among the drawn files.
    pub edges_total: usize,
    pub edges_drawn: usize,
    /// Drawn files on a dependency cycle, and drawn edges inside a cycle's component.
    pub cycle_nodes_drawn: usize,
    pub cycle_edges_drawn: usize,
    /// Cycles listed in the side panel.
    pub cycles_listed: usize,
    /// True when files were left out because of `maxNodes`.
    pub truncated: bool,
    /// True when every edge went through the layered layout (drawings with at most
    /// [`FULL_LAYOUT_MAX_EDGES`] edges); false when the layout used a spanning forest
    /// and the other edges are drawn straight.
    pub full_layout: bool,
    /// Size of the page in bytes.
    pub bytes: usize,
    /// Time spent in layout and rendering, milliseconds.
    pub render_ms: u64,
}

/// Writes the page for the workspace's current file graph to [`WINDOW_PATH`]
/// (atomically) and returns where it is.
///
/// Errors: `invalid_argument` for `maxNodes` of 0 or above [`MAX_MAX_NODES`];
/// `outside_workspace` when `.artifacts` is a link leading out of the root; `io_error`;
/// `internal` when the layout crate fails.
pub fn open_window(ws: &Workspace, args: &OpenWindowArgs) -> Result<OpenWindowResponse, ToolError> {
    let max_nodes = check_max_nodes(args.max_nodes)?;
    let graph = ws.file_graph()?;
    let title = ws
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ws.root().display().to_string());
    let (html, stats) = render_html(&graph, &title, max_nodes)?;
    let (dir, name) = WINDOW_PATH.rsplit_once('/').unwrap_or((".", WINDOW_PATH));
    let abs_dir = sandbox::create_dir_inside(ws.root(), dir)?;
    let target = sandbox::write_atomic(&abs_dir, name, html.as_bytes())?;
    let path = target.to_string_lossy().into_owned();
    Ok(OpenWindowResponse {
        url: format!("file://{path}"),
        path,
        stats,
    })
}

/// Validates `maxNodes`.
pub fn check_max_nodes(max_nodes: Option<usize>) -> Result<usize, ToolError> {
    let n = max_nodes.unwrap_or(DEFAULT_MAX_NODES);
    if n == 0 || n > MAX_MAX_NODES {
        return Err(ToolError::InvalidArgument(format!(
            "maxNodes must be between 1 and {MAX_MAX_NODES}, got {n}"
        )));
    }
    Ok(n)
}

/// Escapes text for HTML and XML attribute values and text nodes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page for `g`: layout, SVG, side panel, script. Pure (no I/O).
///
/// Cost: PageRank and SCCs in O(V + E); the layout is the crate's (superlinear in the
/// nodes drawn).
pub fn render_html(
    g: &FileGraph,
    title: &str,
    max_nodes: usize,
) -> Result<(String, WindowStats), ToolError> {
    let started = Instant::now();
    let n = g.graph.node_count();
    let pr = g.pagerank();

    // Files drawn: all, or the max_nodes of highest PageRank (ties by path order).
    let mut order: Vec<NodeIndex> = g.graph.node_indices().collect();
    order.sort_by(|a, b| {
        pr[b.index()]
            .partial_cmp(&pr[a.index()])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.index().cmp(&b.index()))
    });
    let ranked = order.clone();
    order.truncate(max_nodes);
    order.sort();
    let drawn: HashMap<NodeIndex, usize> =
        order.iter().enumerate().map(|(i, &ix)| (ix, i)).collect();

    // Strongly connected components of the whole graph: an edge is on a cycle when
    // both ends are in the same non-trivial component.
    let mut comp = vec![usize::MAX; n];
    for (ci, c) in g.strong_components().iter().enumerate() {
        for &ix in c {
            comp[ix.index()] = ci;
        }
    }
    let on_cycle = |ix: NodeIndex| comp[ix.index()] != usize::MAX;
    let cycles = g.cycles();

    let max_pr = order
        .iter()
        .map(|ix| pr[ix.index()])
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);

    let labels = short_labels(&order.iter().map(|&ix| g.path(ix)).collect::<Vec<_>>());
    let mut vg = VisualGraph::new(Orientation::LeftToRight);
    let mut handles = Vec::with_capacity(order.len());
    let mut stats = WindowStats {
        nodes_total: n,
        nodes_drawn: order.len(),
        edges_total: g.graph.edge_count(),
        truncated: order.len() < n,
        cycles_listed: cycles.cycles.len(),
        ..WindowStats::default()
    };
    for (i, &ix) in order.iter().enumerate() {
        let path = g.path(ix);
        let score = pr[ix.index()];
        // Area proportional to PageRank: diameter grows with its square root.
        let d = 28.0 + 92.0 * (score / max_pr).sqrt();
        let cyc = on_cycle(ix);
        stats.cycle_nodes_drawn += usize::from(cyc);
        let fill = if cyc { 0xf4a3a3ff } else { 0xcfe3f7ff };
        let line = if cyc { 0xc0392bff } else { 0x2c6fbbff };
        let look = StyleAttr::new(Color::new(line), 2, Some(Color::new(fill)), 0, 11);
        let label = labels[i].as_str();
        let props = format!(
            "class=\"node{}\" data-i=\"{i}\" data-path=\"{}\" data-pr=\"{score:.6}\"",
            if cyc { " cyc" } else { "" },
            esc(path)
        );
        let el = Element::create_with_properties(
            ShapeKind::new_circle(label),
            look,
            Orientation::LeftToRight,
            Point::new(d, d),
            props,
        );
        handles.push(vg.add_node(el));
    }
    // The drawn edges, as (source, target, on a cycle) in drawn-node indices.
    let mut edges: Vec<(usize, usize, bool)> = Vec::new();
    for e in g.graph.edge_references() {
        let (Some(&a), Some(&b)) = (drawn.get(&e.source()), drawn.get(&e.target())) else {
            continue;
        };
        let cyc = on_cycle(e.source()) && comp[e.source().index()] == comp[e.target().index()];
        edges.push((a, b, cyc));
    }
    stats.edges_drawn = edges.len();
    stats.cycle_edges_drawn = edges.iter().filter(|e| e.2).count();
    let props = |a: usize, b: usize, cyc: bool, extra: &str| {
        format!(
            "class=\"edge{}{extra}\" data-from=\"{a}\" data-to=\"{b}\"",
            if cyc { " cyc" } else { "" }
        )
    };

    // Small drawings: every edge goes through the layered layout with its crossing
    // optimizers. layout-rs turns each edge spanning several layers into a chain of
    // connector nodes and its optimizers and placer are superlinear in the layer
    // width, so a dense graph (the Python standard library: 100 files, 410 imports)
    // takes minutes that way. Larger drawings are laid out on a spanning forest of
    // the imports (each edge spans one layer: no connectors), and the other edges are
    // drawn straight between the placed nodes.
    let full = edges.len() <= FULL_LAYOUT_MAX_EDGES;
    stats.full_layout = full;
    let in_layout: Vec<bool> = if full {
        vec![true; edges.len()]
    } else {
        spanning_forest(order.len(), &edges)
    };
    for (i, &(a, b, cyc)) in edges.iter().enumerate() {
        if !in_layout[i] {
            continue;
        }
        let mut arrow = Arrow::simple_with_properties("", props(a, b, cyc, ""));
        arrow.look = StyleAttr::new(
            Color::new(if cyc { 0xc0392bff } else { 0x8a9bb0ff }),
            if cyc { 2 } else { 1 },
            None,
            0,
            11,
        );
        vg.add_edge(arrow, handles[a], handles[b]);
    }

    let mut canvas = SvgCanvas::default();
    if !order.is_empty() {
        // The layout crate may panic on inputs it does not handle; that must not take
        // the server down with it.
        let laid_out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut c = SvgCanvas::default();
            vg.do_it(false, false, false, &mut c);
            (c, vg)
        }));
        let (c, vg) = laid_out.map_err(|_| {
            ToolError::Internal("the layout of the graph failed (layout-rs panicked)".into())
        })?;
        canvas = c;
        for (i, &(a, b, cyc)) in edges.iter().enumerate() {
            if in_layout[i] {
                continue;
            }
            let (pa, pb) = (vg.pos(handles[a]), vg.pos(handles[b]));
            canvas.straight_edge(
                (pa.center(), pa.size(false).x / 2.0),
                (pb.center(), pb.size(false).x / 2.0),
                &props(a, b, cyc, " extra"),
                if cyc { "#c0392b" } else { "#8a9bb0" },
            );
        }
    }
    let svg = canvas.finish();

    let mut side = String::new();
    let _ = write!(
        side,
        "<p>{} of {} files, {} of {} imports drawn{}.</p>",
        stats.nodes_drawn,
        stats.nodes_total,
        stats.edges_drawn,
        stats.edges_total,
        if stats.truncated {
            " (the files of highest PageRank)"
        } else {
            ""
        }
    );
    let _ = write!(side, "<h2>Cycles ({})</h2>", cycles.components);
    if cycles.cycles.is_empty() {
        side.push_str("<p>No circular dependency.</p>");
    } else {
        side.push_str("<ol class=\"cycles\">");
        for c in &cycles.cycles {
            let names: Vec<String> = c.iter().map(|&ix| esc(g.path(ix))).collect();
            let _ = write!(side, "<li>{}</li>", names.join(" → "));
        }
        side.push_str("</ol>");
    }
    side.push_str("<h2>Top files by PageRank</h2><ol class=\"top\">");
    for &ix in ranked.iter().take(15) {
        let _ = write!(
            side,
            "<li><a href=\"#\" data-path=\"{p}\">{p}</a> <small>{:.4}</small></li>",
            pr[ix.index()],
            p = esc(g.path(ix))
        );
    }
    side.push_str("</ol>");

    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} — Constellation file graph</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <aside>\n<h1>{title}</h1>\n<input id=\"search\" type=\"search\" placeholder=\"Search files…\" autocomplete=\"off\">\n\
         <p id=\"hits\"></p>\n<p><button id=\"fit-all\">Fit all</button> <button id=\"fit-width\">Fit width</button></p>\n{side}\n<p class=\"legend\"><span class=\"dot\"></span> file (size: PageRank) \
         <span class=\"dot cyc\"></span> on a cycle</p>\n</aside>\n\
         <main id=\"view\">{svg}</main>\n<div id=\"tip\"></div>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        title = esc(title),
    );
    stats.render_ms = started.elapsed().as_millis() as u64;
    stats.bytes = html.len();
    Ok((html, stats))
}

/// A spanning forest of the directed edges over `n` nodes: breadth-first from every
/// node nothing points to (in index order), then from any node not reached yet. Returns
/// which edges are tree edges. Every node reached has one tree edge in, so each tree
/// edge spans exactly one layer of a layered layout. Cost: O(V + E).
fn spanning_forest(n: usize, edges: &[(usize, usize, bool)]) -> Vec<bool> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    let mut has_in = vec![false; n];
    for (i, &(a, b, _)) in edges.iter().enumerate() {
        out[a].push((b, i));
        has_in[b] = true;
    }
    let mut tree = vec![false; edges.len()];
    let mut seen = vec![false; n];
    let starts = (0..n).filter(|&v| !has_in[v]).chain(0..n);
    for s in starts {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for &(v, i) in &out[u] {
                if !seen[v] {
                    seen[v] = true;
                    tree[i] = true;
                    queue.push_back(v);
                }
            }
        }
    }
    tree
}

/// A label per path (root-relative, `/` separators): its shortest suffix of whole
/// components that no other path of `paths` ends with (`a/x.py` and `b/x.py` are
/// `a/x.py` and `b/x.py`, a lone `c/y.py` is `y.py`); a path that is a suffix of
/// another keeps all of itself. Cost: O(paths × depth) map lookups.
fn short_labels(paths: &[&str]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = paths.iter().map(|p| p.split('/').collect()).collect();
    let depth = parts.iter().map(Vec::len).max().unwrap_or(0);
    let suffix = |c: &[&str], k: usize| c[c.len().saturating_sub(k)..].join("/");
    let mut labels: Vec<Option<String>> = vec![None; paths.len()];
    for k in 1..=depth {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for c in &parts {
            *counts.entry(suffix(c, k)).or_insert(0) += 1;
        }
        for (i, c) in parts.iter().enumerate() {
            if labels[i].is_none() {
                let s = suffix(c, k);
                if counts[&s] == 1 || k >= c.len() {
                    labels[i] = Some(s);
                }
            }
        }
    }
    labels.into_iter().map(Option::unwrap_or_default).collect()
}

/// A [`RenderBackend`] that writes SVG: each node's shape and label in one `<g>`
/// carrying the node's attributes, edges as `<path>`s with theirs.
#[derive(Default)]
struct SvgCanvas {
    body: String,
    clips: String,
    width: f64,
    height: f64,
    open_group: bool,
    clip_count: usize,
}

impl SvgCanvas {
    fn grow(&mut self, p: Point) {
        self.width = self.width.max(p.x + 10.0);
        self.height = self.height.max(p.y + 10.0);
    }

    fn close_group(&mut self) {
        if self.open_group {
            self.body.push_str("</g>\n");
            self.open_group = false;
        }
    }

    /// A straight edge between two placed circles `(center, radius)`, from rim to rim.
    fn straight_edge(&mut self, from: (Point, f64), to: (Point, f64), props: &str, color: &str) {
        let (a, b) = (from.0, to.0);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len = (dx * dx + dy * dy).sqrt().max(f64::EPSILON);
        let (ux, uy) = (dx / len, dy / len);
        let _ = writeln!(
            self.body,
            "<path {props} d=\"M {:.1} {:.1} L {:.1} {:.1}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1\" marker-end=\"url(#arrow)\"/>",
            a.x + ux * from.1,
            a.y + uy * from.1,
            b.x - ux * to.1,
            b.y - uy * to.1
        );
    }

    fn color(c: &Color) -> String {
        let hex = c.to_web_color();
        // #rrggbbaa -> #rrggbb plus opacity, for older renderers.
        hex[..7].to_string()
    }

    fn finish(mut self) -> String {
        self.close_group();
        format!(
            "<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
             viewBox=\"0 0 {w:.1} {h:.1}\">\n<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"6\" \
             refX=\"8\" refY=\"3\" orient=\"auto-start-reverse\"><path d=\"M0,0 L8,3 L0,6 z\" fill=\"#6b7c93\"/></marker>{clips}</defs>\n\
             <g id=\"edges\"></g>\n{body}</svg>",
            w = self.width.max(1.0),
            h = self.height.max(1.0),
            clips = self.clips,
            body = self.body
        )
    }
}

impl RenderBackend for SvgCanvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
        clip: Option<ClipHandle>,
    ) {
        self.close_group();
        self.grow(Point::new(xy.x + size.x, xy.y + size.y));
        let fill = look
            .fill_color
            .map(|c| Self::color(&c))
            .unwrap_or_else(|| "none".into());
        let clip = clip
            .map(|c| format!(" clip-path=\"url(#c{c})\""))
            .unwrap_or_default();
        let _ = writeln!(
            self.body,
            "<rect {} x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"{}\" rx=\"{}\"{clip}/>",
            properties.unwrap_or_default(),
            xy.x,
            xy.y,
            size.x,
            size.y,
            Self::color(&look.line_color),
            look.line_width,
            look.rounded
        );
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.close_group();
        self.grow(start);
        self.grow(stop);
        let _ = writeln!(
            self.body,
            "<line {} x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"{}\"/>",
            properties.unwrap_or_default(),
            start.x,
            start.y,
            stop.x,
            stop.y,
            Self::color(&look.line_color),
            look.line_width
        );
    }

    fn draw_circle(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.close_group();
        self.grow(Point::new(xy.x + size.x / 2.0, xy.y + size.y / 2.0));
        let fill = look
            .fill_color
            .map(|c| Self::color(&c))
            .unwrap_or_else(|| "none".into());
        // The group stays open for the label layout-rs draws next.
        let _ = writeln!(
            self.body,
            "<g {}>\n<ellipse cx=\"{:.1}\" cy=\"{:.1}\" rx=\"{:.1}\" ry=\"{:.1}\" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"{}\"/>",
            properties.unwrap_or_default(),
            xy.x,
            xy.y,
            size.x / 2.0,
            size.y / 2.0,
            Self::color(&look.line_color),
            look.line_width
        );
        self.open_group = true;
    }

    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        self.grow(Point::new(xy.x + text.len() as f64 * 3.5, xy.y));
        let _ = writeln!(
            self.body,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}</text>",
            xy.x,
            xy.y,
            look.font_size,
            esc(text)
        );
        self.close_group();
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        self.close_group();
        if path.len() < 2 {
            return;
        }
        for (a, b) in path {
            self.grow(*a);
            self.grow(*b);
        }
        // layout-rs gives (point, control point) pairs: M p0 C c0, c1 p1 then S c p ...
        let mut d = format!(
            "M {:.1} {:.1} C {:.1} {:.1}, {:.1} {:.1}, {:.1} {:.1}",
            path[0].0.x,
            path[0].0.y,
            path[0].1.x,
            path[0].1.y,
            path[1].0.x,
            path[1].0.y,
            path[1].1.x,
            path[1].1.y
        );
        for (c, p) in path.iter().skip(2) {
            let _ = write!(d, " S {:.1} {:.1}, {:.1} {:.1}", c.x, c.y, p.x, p.y);
        }
        let _ = writeln!(
            self.body,
            "<path {} d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}{}{}/>",
            properties.unwrap_or_default(),
            Self::color(&look.line_color),
            look.line_width,
            if dashed {
                " stroke-dasharray=\"5,5\""
            } else {
                ""
            },
            // An edge reversed to break a cycle keeps its arrowhead at its target.
            if head.0 {
                " marker-start=\"url(#arrow)\""
            } else {
                ""
            },
            if head.1 {
                " marker-end=\"url(#arrow)\""
            } else {
                ""
            }
        );
    }

    fn create_clip(&mut self, xy: Point, size: Point, rounded_px: usize) -> ClipHandle {
        let id = self.clip_count;
        self.clip_count += 1;
        let _ = write!(
            self.clips,
            "<clipPath id=\"c{id}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"{rounded_px}\"/></clipPath>",
            xy.x, xy.y, size.x, size.y
        );
        id
    }
}

/// The page's styles.
const STYLE: &str = r#"
* { box-sizing: border-box; }
body { margin: 0; font: 13px system-ui, sans-serif; display: flex; height: 100vh; color: #1d2733; }
aside { width: 320px; padding: 12px; border-right: 1px solid #d5dde6; overflow: auto; background: #f7f9fb; }
aside h1 { font-size: 16px; margin: 0 0 8px; word-break: break-all; }
aside h2 { font-size: 13px; margin: 14px 0 4px; }
aside ol { padding-left: 20px; margin: 0; }
aside li { margin: 2px 0; word-break: break-all; }
#search { width: 100%; padding: 6px 8px; font-size: 13px; border: 1px solid #9fb0c3; border-radius: 4px; }
#hits { min-height: 1em; color: #5a6b7d; margin: 4px 0; }
main { flex: 1; overflow: hidden; cursor: grab; position: relative; background: #fff; }
main.drag { cursor: grabbing; }
#graph { transform-origin: 0 0; }
.node { cursor: pointer; }
.node text { pointer-events: none; fill: #1d2733; }
.edge { opacity: .75; }
.dim { opacity: .12; }
.hit ellipse { stroke: #e67e00; stroke-width: 5; }
.sel ellipse { stroke: #111; stroke-width: 4; }
.edge.near { opacity: 1; stroke-width: 3; }
#tip { position: fixed; pointer-events: none; background: #1d2733; color: #fff; padding: 4px 8px; border-radius: 4px; display: none; font-size: 12px; }
.legend .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; background: #cfe3f7; border: 2px solid #2c6fbb; vertical-align: middle; }
.legend .dot.cyc { background: #f4a3a3; border-color: #c0392b; }
"#;

/// The page's script: search, selection, tooltip, zoom and pan. It marks the body with
/// `data-rendered` (nodes drawn) once it ran, `data-errors` if a script error
/// happened, `data-open-width` (`drawn/view` pixels at open) and `data-centred` (the
/// path a search centred on), so a headless browser can check the page.
const SCRIPT: &str = r#"
(function () {
  var errors = 0;
  window.addEventListener('error', function () { errors++; document.body.dataset.errors = String(errors); });
  var svg = document.getElementById('graph');
  var view = document.getElementById('view');
  var nodes = Array.prototype.slice.call(svg.querySelectorAll('g.node'));
  var edges = Array.prototype.slice.call(svg.querySelectorAll('path.edge'));
  var tip = document.getElementById('tip');
  var hits = document.getElementById('hits');
  // Edges under the nodes.
  var edgeLayer = document.getElementById('edges');
  edges.forEach(function (e) { edgeLayer.appendChild(e); });
  function clear() {
    nodes.forEach(function (n) { n.classList.remove('hit', 'dim', 'sel'); });
    edges.forEach(function (e) { e.classList.remove('dim', 'near'); });
  }
  function search(q) {
    clear();
    q = q.trim().toLowerCase();
    if (!q) { hits.textContent = ''; return []; }
    var found = nodes.filter(function (n) { return n.dataset.path.toLowerCase().indexOf(q) >= 0; });
    nodes.forEach(function (n) { n.classList.add(found.indexOf(n) >= 0 ? 'hit' : 'dim'); });
    edges.forEach(function (e) { e.classList.add('dim'); });
    hits.textContent = found.length + ' of ' + nodes.length + ' files match';
    // Bring the first match into the middle of the view.
    if (found.length) { center(found[0]); document.body.dataset.centred = found[0].dataset.path; }
    return found;
  }
  function select(n) {
    clear();
    var i = n.dataset.i, near = {};
    near[i] = true;
    edges.forEach(function (e) {
      if (e.dataset.from === i || e.dataset.to === i) {
        e.classList.add('near'); near[e.dataset.from] = true; near[e.dataset.to] = true;
      } else { e.classList.add('dim'); }
    });
    nodes.forEach(function (m) { if (!near[m.dataset.i]) m.classList.add('dim'); });
    n.classList.add('sel');
    hits.textContent = n.dataset.path;
  }
  var scale = 1, tx = 0, ty = 0;
  function apply() { svg.style.transform = 'translate(' + tx + 'px,' + ty + 'px) scale(' + scale + ')'; }
  function center(n) {
    var el = n.querySelector('ellipse');
    var cx = parseFloat(el.getAttribute('cx')), cy = parseFloat(el.getAttribute('cy'));
    tx = view.clientWidth / 2 - cx * scale; ty = view.clientHeight / 2 - cy * scale; apply();
  }
  var box = document.getElementById('search');
  box.addEventListener('input', function () { search(box.value); });
  box.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter') { search(box.value); }
  });
  document.querySelectorAll('aside a[data-path]').forEach(function (a) {
    a.addEventListener('click', function (ev) {
      ev.preventDefault();
      var n = nodes.filter(function (m) { return m.dataset.path === a.dataset.path; })[0];
      if (n) { select(n); center(n); } else { box.value = a.dataset.path; search(a.dataset.path); }
    });
  });
  nodes.forEach(function (n) {
    n.addEventListener('click', function (ev) { ev.stopPropagation(); select(n); });
    n.addEventListener('mousemove', function (ev) {
      tip.style.display = 'block'; tip.style.left = (ev.clientX + 12) + 'px'; tip.style.top = (ev.clientY + 12) + 'px';
      tip.textContent = n.dataset.path + '  (PageRank ' + n.dataset.pr + ')';
    });
    n.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  });
  // Fit the drawing into the view; a drawing too tall to fit legibly is fitted to the
  // width and starts at the top (drag or wheel to see the rest).
  var w = parseFloat(svg.getAttribute('width')) || 1, h = parseFloat(svg.getAttribute('height')) || 1;
  function fit(all) {
    scale = Math.min(1, view.clientWidth / w, all ? view.clientHeight / h : Infinity);
    tx = 0; ty = 0; apply();
  }
  fit(Math.min(view.clientWidth / w, view.clientHeight / h) >= 0.4);
  // For a headless check: the drawing's width on screen against the view's, at open.
  document.body.dataset.openWidth = String(Math.round(w * scale)) + '/' + String(view.clientWidth);
  document.getElementById('fit-all').addEventListener('click', function () { fit(true); });
  document.getElementById('fit-width').addEventListener('click', function () { fit(false); });
  view.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var r = view.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
    var k = ev.deltaY < 0 ? 1.15 : 1 / 1.15;
    tx = mx - (mx - tx) * k; ty = my - (my - ty) * k; scale *= k; apply();
  }, { passive: false });
  var drag = null;
  view.addEventListener('mousedown', function (ev) { drag = [ev.clientX - tx, ev.clientY - ty]; view.classList.add('drag'); });
  window.addEventListener('mouseup', function () { drag = null; view.classList.remove('drag'); });
  window.addEventListener('mousemove', function (ev) { if (drag) { tx = ev.clientX - drag[0]; ty = ev.clientY - drag[1]; apply(); } });
  view.addEventListener('click', function () { clear(); hits.textContent = ''; });
  // A search can be given in the address: page.html#q=text.
  var m = /[#&]q=([^&]*)/.exec(location.hash);
  if (m) { box.value = decodeURIComponent(m[1]); document.body.dataset.hits = String(search(box.value).length); }
  document.body.dataset.rendered = String(nodes.length);
  document.body.dataset.edges = String(edges.length);
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::graph::{FileGraphRows, FileRow};

    fn graph() -> FileGraph {
        let row = |id: i64, p: &str| FileRow {
            id,
            path: p.into(),
            language: Some("typescript".into()),
        };
        FileGraph::from_rows(&FileGraphRows {
            files: vec![
                row(1, "a.ts"),
                row(2, "b.ts"),
                row(3, "c.ts"),
                row(4, "d<x>.ts"),
            ],
            imports: vec![(1, 2), (2, 1), (3, 1), (4, 3)],
            generation: 1,
        })
    }

    #[test]
    fn labels_are_the_shortest_unique_ends_of_the_paths() {
        let got = short_labels(&[
            "json/__init__.py",
            "email/__init__.py",
            "email/mime/text.py",
            "os.py",
            "x/os.py",
            "lib/json/__init__.py",
        ]);
        assert_eq!(
            got,
            [
                "json/__init__.py",
                "email/__init__.py",
                "text.py",
                "os.py",
                "x/os.py",
                "lib/json/__init__.py",
            ]
        );
    }

    #[test]
    fn page_draws_every_node_and_marks_the_cycle() {
        let (html, stats) = render_html(&graph(), "t", 10).unwrap();
        assert_eq!(stats.nodes_drawn, 4);
        assert_eq!(stats.edges_drawn, 4);
        assert_eq!(stats.cycle_nodes_drawn, 2);
        assert_eq!(stats.cycle_edges_drawn, 2);
        assert!(!stats.truncated);
        assert_eq!(html.matches("<g class=\"node").count(), 4);
        assert_eq!(html.matches("<g class=\"node cyc\"").count(), 2);
        assert_eq!(html.matches("class=\"edge cyc\"").count(), 2);
        assert_eq!(html.matches("<path class=\"edge").count(), 4);
        assert!(
            html.contains("data-path=\"d&lt;x&gt;.ts\""),
            "paths are escaped"
        );
        assert!(html.contains("a.ts → b.ts → a.ts"));
        assert!(
            !html.contains("src=\"http") && !html.contains("href=\"http"),
            "nothing loaded from the network"
        );
        assert!(!html.contains("<script src"));
    }

    #[test]
    fn cap_keeps_the_highest_pagerank() {
        let (html, stats) = render_html(&graph(), "t", 2).unwrap();
        assert!(stats.truncated);
        assert_eq!(stats.nodes_drawn, 2);
        // a.ts and b.ts carry the cycle and everything flows into them.
        assert!(html.contains("data-path=\"a.ts\"") && html.contains("data-path=\"b.ts\""));
        assert!(!html.contains("<g class=\"node\" data-i=\"0\" data-path=\"c.ts\""));
        assert_eq!(
            check_max_nodes(Some(0)).unwrap_err().code(),
            "invalid_argument"
        );
    }

    #[test]
    fn spanning_forest_has_one_tree_edge_into_each_reached_node() {
        // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 3, 3 -> 1 (cycle 1-2-3), 4 alone with 5 -> 4.
        let edges = [
            (0, 1, false),
            (0, 2, false),
            (1, 2, true),
            (2, 3, true),
            (3, 1, true),
            (5, 4, false),
        ];
        let tree = spanning_forest(6, &edges);
        assert_eq!(tree, vec![true, true, false, true, false, true]);
    }

    #[test]
    fn dense_graphs_use_the_forest_and_still_draw_every_edge() {
        // 40 files, each importing the next 10: 355 edges, above FULL_LAYOUT_MAX_EDGES.
        let files: Vec<FileRow> = (0..40)
            .map(|i| FileRow {
                id: i + 1,
                path: format!("m{i:02}.py"),
                language: Some("python".into()),
            })
            .collect();
        let mut imports = Vec::new();
        for i in 0..40i64 {
            for j in i + 1..(i + 11).min(40) {
                imports.push((i + 1, j + 1));
            }
        }
        let g = FileGraph::from_rows(&FileGraphRows {
            files,
            imports: imports.clone(),
            generation: 1,
        });
        let (html, stats) = render_html(&g, "dense", 100).unwrap();
        assert!(imports.len() > FULL_LAYOUT_MAX_EDGES);
        assert!(!stats.full_layout);
        assert_eq!(stats.edges_drawn, imports.len());
        assert_eq!(html.matches("<path class=\"edge").count(), imports.len());
        assert_eq!(
            html.matches("<path class=\"edge extra\"").count(),
            imports.len() - 39
        );
        assert_eq!(html.matches("<g class=\"node").count(), 40);
    }

    #[test]
    fn empty_graph_renders() {
        let g = FileGraph::from_rows(&FileGraphRows::default());
        let (html, stats) = render_html(&g, "empty", 10).unwrap();
        assert_eq!(stats.nodes_drawn, 0);
        assert!(html.contains("<svg"));
    }
}
