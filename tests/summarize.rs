//! `summarize` / `summarize_graph` on the fixtures: fields, budget ladder, formats and
//! every error code, through the real binary.

mod common;

use std::path::Path;

use serde_json::Value;

fn summarize(root: &Path, extra: &[&str]) -> std::process::Output {
    let db = root.parent().unwrap().join("s.db");
    let mut args = vec![
        "summarize",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::run(&args)
}

fn json(root: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let out = summarize(root, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn error(root: &Path, extra: &[&str]) -> String {
    let out = summarize(root, extra);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn defaults_fit_and_carry_every_field() {
    let (_d, root) = common::fixture_copy("py-pkg");
    let r = json(&root, &["--budget-tokens", "8000"]);
    for key in [
        "node_count",
        "edge_count",
        "avg_degree",
        "cycles_count",
        "critical_nodes_count",
    ] {
        assert!(r["graph_stats"][key].is_number(), "graph_stats.{key}: {r}");
    }
    assert_eq!(r["truncated"], false);
    assert_eq!(r["radius"], 1);
    assert!(r["tokens"].as_u64().unwrap() <= 8000);
    let top = r["top_nodes"].as_array().unwrap();
    assert!(!top.is_empty());
    // [[node_id, pr_score]], most central first.
    let scores: Vec<f64> = top.iter().map(|t| t[1].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(top[0][0].as_str().unwrap().contains(':'));
    assert!(r["communities"].is_array());
    assert!(r["community_edges"].is_array());
    assert!(r["path_examples"].is_array());
    assert!(r["kept_nodes"].as_u64().unwrap() >= top.len() as u64);
}

#[test]
fn small_budget_degrades_and_says_what_was_dropped() {
    let (_d, root) = common::fixture_copy("ts-app");
    let full = json(
        &root,
        &[
            "--budget-tokens",
            "100000",
            "--exclude-filter",
            "none/**",
            "--scope",
            "Full",
        ],
    );
    assert_eq!(full["truncated"], false);
    let r = json(
        &root,
        &[
            "--budget-tokens",
            "300",
            "--exclude-filter",
            "none/**",
            "--scope",
            "Full",
        ],
    );
    assert_eq!(r["truncated"], true);
    assert!(r["tokens"].as_u64().unwrap() <= 300, "{r}");
    let t = &r["truncation"];
    assert_eq!(
        t["top_nodes_total"],
        full["top_nodes"].as_array().unwrap().len()
    );
    let steps: Vec<&str> = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(!steps.is_empty());
    assert!(r["top_nodes"].as_array().unwrap().len() < full["top_nodes"].as_array().unwrap().len());

    // Radius 2 over budget: the first step is the radius.
    let r = json(
        &root,
        &[
            "--budget-tokens",
            "300",
            "--radius",
            "2",
            "--exclude-filter",
            "none/**",
        ],
    );
    assert_eq!(r["radius"], 1);
    assert_eq!(r["truncation"]["steps"][0], "radius 2 -> 1");
}

#[test]
fn error_codes() {
    let (_d, root) = common::fixture_copy("py-pkg");
    assert!(error(&root, &["--budget-tokens", "5"]).contains("budget_too_small:"));
    assert!(error(&root, &["--radius", "9"]).contains("radius_too_large:"));
    assert!(error(&root, &["--include-filter", "["]).contains("invalid_filter:"));
    assert!(error(&root, &["--language", "cobol"]).contains("invalid_filter:"));
    assert!(error(&root, &["--scope", "SeedOnly"]).contains("no_seeds:"));
    let e = error(&root, &["--seed", "no_such_symbol_anywhere"]);
    assert!(
        e.contains("no_seeds:") && e.contains("no_such_symbol_anywhere"),
        "{e}"
    );
    assert!(error(&root, &["--scope", "Everything"]).contains("invalid_argument:"));
}

#[test]
fn seeds_scope_the_kept_graph() {
    let (_d, root) = common::fixture_copy("py-pkg");
    let all = json(&root, &["--scope", "Full", "--budget-tokens", "20000"]);
    let seeded = json(
        &root,
        &[
            "--scope",
            "SeedOnly",
            "--seed",
            "shop/pricing.py",
            "--budget-tokens",
            "20000",
        ],
    );
    assert_eq!(
        seeded["seeds_preview"],
        serde_json::json!(["shop/pricing.py"])
    );
    let kept = seeded["kept_nodes"].as_u64().unwrap();
    assert!(
        kept > 1 && kept < all["kept_nodes"].as_u64().unwrap(),
        "{kept}"
    );
    // Personalized PageRank puts the seed first.
    assert_eq!(seeded["top_nodes"][0][0], "file:shop/pricing.py");
}

#[test]
fn summary_and_dot_formats() {
    let (_d, root) = common::fixture_copy("rust-crate");
    let out = summarize(&root, &["--format", "text"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(" nodes, ") && text.contains("Most central (PageRank):"),
        "{text}"
    );
    let out = summarize(&root, &["--format", "dot", "--top-k", "20"]);
    assert!(out.status.success());
    let dot = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dot.starts_with("digraph summary {") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
    // Valid Graphviz when Debian's graphviz is installed.
    if let Ok(mut child) = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(dot.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "dot rejected: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    }
}
