//! The page `open_window` writes, opened in headless Chromium (Debian's `chromium`):
//! the script ran without errors, every node was drawn, the cycle is marked, a search
//! from the address finds what it should and centres the view on it, and a screenshot
//! is taken.
//!
//! Skips (passing, with a note on stderr) when no `chromium` is on the PATH; CI
//! installs it (`.ci/run`). The browser gets no network access beyond the file.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::mcp::{handshake, Client};
use serde_json::json;

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        })
        .map(String::from)
}

/// Runs headless Chromium on `url` with `extra` arguments and its own profile.
fn run(browser: &str, profile: &Path, url: &str, extra: &[&str]) -> Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--window-size=1400,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium")
}

/// The value of attribute `name` on the `<body>` tag of a dumped DOM.
fn body_attr(dom: &str, name: &str) -> Option<String> {
    let start = dom.find("<body")?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let key = format!("{name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(tag[at..at + tag[at..].find('"')?].to_string())
}

/// Console messages Chromium logged for the page (none are expected).
fn console_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(String::from)
        .collect()
}

#[test]
fn page_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: no chromium on the PATH (apt-get install chromium)");
        return;
    };
    let (dir, root) = common::fixture_copy("ts-app");
    let db = dir.path().join("ts.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let r = c.call("open_window", json!({}));
    assert_ne!(r["isError"], json!(true), "{r}");
    let stats = &r["structuredContent"]["stats"];
    let drawn = stats["nodesDrawn"].as_u64().unwrap();
    assert!(drawn > 10, "{stats}");
    assert_eq!(stats["cycleNodesDrawn"], 3, "the a → b → c → a cycle");
    let url = r["structuredContent"]["url"].as_str().unwrap().to_string();
    let profile = dir.path().join("chromium-profile");

    let out = run(
        &browser,
        &profile,
        &format!("{url}#q=cycle/"),
        &["--dump-dom"],
    );
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(body_attr(&dom, "data-errors"), None, "script errors");
    assert_eq!(
        body_attr(&dom, "data-rendered"),
        Some(drawn.to_string()),
        "nodes drawn"
    );
    assert_eq!(
        body_attr(&dom, "data-edges"),
        Some(stats["edgesDrawn"].to_string()),
        "edges drawn"
    );
    assert_eq!(
        body_attr(&dom, "data-hits"),
        Some("3".into()),
        "search from the address"
    );
    assert_eq!(
        dom.matches("class=\"node cyc hit\"").count(),
        3,
        "the cycle's files highlighted"
    );
    assert!(
        body_attr(&dom, "data-centred").is_some_and(|p| p.contains("cycle/")),
        "the view centred on the first match"
    );
    // It opens fitted, not zoomed in: the whole width of the drawing is in view.
    let open = body_attr(&dom, "data-open-width").expect("data-open-width");
    let (drawn, view) = open.split_once('/').unwrap();
    let (drawn, view): (u32, u32) = (drawn.parse().unwrap(), view.parse().unwrap());
    assert!(
        view > 0 && drawn <= view,
        "drawn {drawn} px in a view of {view} px"
    );
    assert_eq!(
        console_lines(&out.stderr),
        Vec::<String>::new(),
        "console messages"
    );

    let shot = dir.path().join("graph.png");
    let out = run(
        &browser,
        &profile,
        &url,
        &[&format!("--screenshot={}", shot.display())],
    );
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        console_lines(&out.stderr),
        Vec::<String>::new(),
        "console messages"
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        png.len() > 10_000,
        "a screenshot with a drawing, got {} bytes",
        png.len()
    );
}
