//! The `internal` judge: a deterministic rubric over the candidate's syntax trees
//! (tree-sitter) and the workspace index. Same candidate and index, same review.
//!
//! # Rubric
//! Five dimensions start at 100; each finding subtracts its severity's penalty
//! (blocker 100, major 80, minor 20), floored at 0. Overall is the weighted mean
//! ([`super::review::DIMENSIONS`]: correctness 0.30, completeness 0.20,
//! maintainability 0.20, safety 0.20, tests 0.10). The penalties are calibrated so
//! that one major finding in a 0.20 dimension alone (100 − 0.2·80 = 84) keeps a
//! candidate below the default threshold of 85, while a few minor ones do not.
//!
//! | dimension | finding | severity |
//! |---|---|---|
//! | correctness | syntax error (tree-sitter ERROR/MISSING node; also forces `reject`) | blocker |
//! | correctness | a bare call to a name defined neither in the candidate nor in the index, nor a builtin | major |
//! | completeness | `todo!()`, `unimplemented!()`, `raise NotImplementedError` outside a method, a `pass`/`...`-only body (not abstract, `@overload`, Protocol/ABC or test code), `throw new Error("not implemented")` | major |
//! | completeness | a `TODO`/`FIXME`/`XXX`/`HACK` comment; an empty function body | minor |
//! | maintainability | a function over 100 lines; cyclomatic complexity over 20 | major |
//! | maintainability | a function over 50 lines; complexity over 10; control flow nested over 4 deep | minor |
//! | safety | a hard-coded secret (password/token/key literal, AWS, GitHub, OpenAI, Slack key shapes, PEM private key) | blocker |
//! | safety | `.unwrap()`/`.expect()`/`panic!()` outside tests; `eval`/`exec`/`new Function`; a shell command built from strings | major |
//! | tests | the candidate adds or changes functions and touches no test (test function, test file, or a test path in the workspace diff) | major |
//!
//! Cyclomatic complexity is McCabe's: 1 + branches (`if`, `elif`, loops, `catch`/`except`,
//! each `match`/`switch` arm after the first, `&&`, `||`, `??`, `and`, `or`, ternaries,
//! comprehension `for`/`if`). Test code (Rust `#[test]`/`#[cfg(test)]` items, Python
//! `test_*` functions and `Test*` classes, JS `describe`/`it`/`test` callbacks, files
//! under `tests/` or named like tests) is exempt from the safety checks. Findings of a
//! diff are kept only where they touch its added lines.
//!
//! # Layout
//! One file per job, so each check can be read (and changed) alone:
//! [`finding`] (what a finding is and where it lands), [`parse`] (the tree-sitter
//! walk of one unit), [`secrets`] (hard-coded credentials, by line), [`visitors`]
//! (the per-language safety and completeness checks), [`functions`] (size, stubs and
//! emptiness of one function), [`complexity`] (McCabe and nesting), [`builtins`]
//! (names callable without a definition), [`score`] (findings to a judge output).
//! This file joins them: it asks the index about names once per candidate.

mod builtins;
mod complexity;
mod finding;
mod functions;
mod parse;
mod score;
mod secrets;
mod visitors;

use std::collections::HashSet;

#[cfg(test)]
use crate::lang::Language;

use super::candidates::Candidate;
#[cfg(test)]
use super::candidates::Unit;
use super::review::JudgeOutput;

use builtins::is_builtin;
use finding::push_if_changed;
pub use finding::{Dimension, Finding, Severity};
use parse::{analyze_unit, UnitFacts};
use score::score;

/// Which of the given names the workspace index defines, or why it cannot say.
pub type DefinedLookup<'a, E> = dyn Fn(&[String]) -> Result<HashSet<String>, E> + 'a;

/// Judges one candidate with a lookup that cannot fail (a name set in memory), for
/// the tests. See [`try_judge`].
#[cfg(test)]
pub fn judge(
    candidate: &Candidate,
    defined: &dyn Fn(&[String]) -> HashSet<String>,
    tests_touched_elsewhere: bool,
) -> JudgeOutput {
    match try_judge::<std::convert::Infallible>(
        candidate,
        &|names| Ok(defined(names)),
        tests_touched_elsewhere,
    ) {
        Ok(out) => out,
        Err(never) => match never {},
    }
}

/// Judges one candidate. `defined` answers which of the given names the workspace
/// index defines (asked once, with every suspect name); `tests_touched_elsewhere` is
/// true when the workspace diff touches a test file.
///
/// Errors: whatever `defined` returns. A lookup that fails is an error, never "no
/// names defined" (which would turn every call into an undefined-name finding).
pub fn try_judge<E>(
    candidate: &Candidate,
    defined: &DefinedLookup<'_, E>,
    tests_touched_elsewhere: bool,
) -> Result<JudgeOutput, E> {
    let facts: Vec<(usize, UnitFacts)> = candidate
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (i, analyze_unit(u)))
        .collect();
    let mut findings: Vec<Finding> = Vec::new();
    for (_, f) in &facts {
        findings.extend(f.findings.iter().cloned());
    }

    // Undefined names: bare calls to identifiers that appear nowhere else in the
    // candidate, are no builtin, and name no symbol of the index.
    let others: HashSet<&str> = facts
        .iter()
        .flat_map(|(_, f)| f.other_identifiers.iter().map(String::as_str))
        .collect();
    let mut suspects: Vec<(usize, String, u32)> = Vec::new();
    let mut seen = HashSet::new();
    for (i, f) in &facts {
        let lang = candidate.units[*i].language;
        for (name, line) in &f.bare_calls {
            if others.contains(name.as_str())
                || lang.is_some_and(|l| is_builtin(l, name))
                || !seen.insert(name.clone())
            {
                continue;
            }
            suspects.push((*i, name.clone(), *line));
        }
    }
    if !suspects.is_empty() {
        let names: Vec<String> = suspects.iter().map(|(_, n, _)| n.clone()).collect();
        let known = defined(&names)?;
        for (i, name, line) in suspects {
            if known.contains(&name) {
                continue;
            }
            let unit = &candidate.units[i];
            push_if_changed(
                &mut findings,
                unit,
                Finding {
                    path: unit.path.clone(),
                    line,
                    end_line: line,
                    dimension: Dimension::Correctness,
                    severity: Severity::Major,
                    message: format!(
                        "`{name}` is called but defined neither in the candidate nor anywhere in the index"
                    ),
                },
            );
        }
    }

    // Tests: changed functions with no test touched.
    let has_tests = tests_touched_elsewhere || facts.iter().any(|(_, f)| f.has_tests);
    if !has_tests {
        if let Some((i, (line, end))) = facts
            .iter()
            .find_map(|(i, f)| f.changes_functions.map(|span| (*i, span)))
        {
            findings.push(Finding {
                path: candidate.units[i].path.clone(),
                line,
                end_line: end,
                dimension: Dimension::Tests,
                severity: Severity::Major,
                message: "the candidate adds or changes functions but touches no test".into(),
            });
        }
    }

    findings.sort();
    findings.dedup();
    Ok(score(&candidate.label, findings))
}

/// True for paths that hold tests by convention.
pub fn is_test_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    p.split('/')
        .rev()
        .skip(1)
        .any(|seg| matches!(seg, "tests" | "test" | "__tests__" | "spec"))
        || name.starts_with("test_")
        || name.ends_with("_test.rs")
        || name.ends_with("_test.py")
        || name.ends_with("_tests.rs")
        || [".test.", ".spec."].iter().any(|m| name.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(path: &str, text: &str) -> Candidate {
        Candidate {
            label: "code block 1".into(),
            units: vec![Unit {
                path: path.into(),
                language: Language::from_path(path),
                text: text.into(),
                first_line: 1,
                changed: None,
                fragment: false,
            }],
        }
    }

    fn comments(c: &Candidate) -> Vec<String> {
        judge(c, &|_| HashSet::new(), false)
            .inline
            .iter()
            .map(|i| format!("{}:{} {}", i.path, i.line, i.comment))
            .collect()
    }

    #[test]
    fn complexity_counts_branches() {
        let c = unit(
            "a.py",
            "def f(x):\n    if x and x > 1:\n        return 1\n    elif x:\n        return 2\n    for i in range(3):\n        pass\n    return [y for y in x if y]\n\ndef test_f():\n    assert f(1)\n",
        );
        // 1 + if + and + elif + for + comprehension for + comprehension if = 7: no finding.
        assert_eq!(comments(&c), Vec::<String>::new());
    }

    #[test]
    fn nesting_and_else_if_chains() {
        let deep = "fn f(x: i32) -> i32 {\n    if x > 0 {\n        for _ in 0..x {\n            while x > 1 {\n                loop {\n                    if x == 3 { return 1; }\n                    break;\n                }\n            }\n        }\n    }\n    0\n}\n#[test]\nfn t() { assert_eq!(f(0), 0); }\n";
        assert_eq!(
            comments(&unit("a.rs", deep)),
            vec!["a.rs:1 minor maintainability: `f` nests control flow 5 deep (over 4)"]
        );
        let chain = "fn g(x: i32) -> i32 {\n    if x == 1 { 1 } else if x == 2 { 2 } else if x == 3 { 3 } else if x == 4 { 4 } else if x == 5 { 5 } else { 0 }\n}\n#[test]\nfn t() { assert_eq!(g(1), 1); }\n";
        assert_eq!(comments(&unit("a.rs", chain)), Vec::<String>::new());
    }

    #[test]
    fn undefined_names_ask_the_index() {
        let c = unit(
            "a.py",
            "def f(x):\n    return helper(x) + len(x)\n\ndef test_f():\n    assert f([])\n",
        );
        let out = judge(&c, &|_| HashSet::new(), false);
        assert_eq!(out.inline.len(), 1);
        assert!(out.inline[0].comment.contains("`helper` is called"));
        let out = judge(&c, &|names| names.iter().cloned().collect(), false);
        assert!(out.inline.is_empty());
        assert_eq!(out.overall, 100);
    }

    #[test]
    fn secrets_and_shells() {
        let c = unit(
            "s.py",
            "import subprocess\nAPI_KEY = \"abcd1234efgh5678\"\ndef run(cmd):\n    subprocess.run(cmd, shell=True)\n\ndef test_run():\n    run(['true'])\n",
        );
        assert_eq!(
            comments(&c),
            vec![
                "s.py:2 blocker safety: hard-coded secret (a credential assigned a literal): load it from the environment or a secret store",
                "s.py:4 major safety: `subprocess.run(..., shell=True)` runs a shell command: pass an argument list without shell=True",
            ]
        );
        let js = unit(
            "x.js",
            "function f(s) { return eval(s); }\nfunction g() {}\n",
        );
        assert_eq!(
            comments(&js),
            vec![
                "x.js:1 major safety: `eval()` runs code built at run time",
                "x.js:1 major tests: the candidate adds or changes functions but touches no test",
                "x.js:2 minor completeness: `g` has an empty body",
            ]
        );
    }

    #[test]
    fn findings_outside_changed_lines_are_dropped() {
        let mut c = unit("a.rs", "fn f(x: Option<u8>) -> u8 {\n    x.unwrap()\n}\nfn g(x: Option<u8>) -> u8 {\n    x.expect(\"x\")\n}\n");
        c.units[0].changed = Some(vec![(5, 5)]);
        let got = comments(&c);
        assert_eq!(
            got,
            vec![
                "a.rs:4 major tests: the candidate adds or changes functions but touches no test",
                "a.rs:5 major safety: `.expect()` outside tests panics on None/Err: return or map the error instead",
            ]
        );
    }

    #[test]
    fn python_declarations_are_not_stubs() {
        let c = unit(
            "p.py",
            "from typing import Protocol, overload\nclass Reader(Protocol):\n    def read(self) -> bytes: ...\nclass Base:\n    def hook(self):\n        raise NotImplementedError\n    @overload\n    def f(self, x: int) -> int: ...\n    def g(self):\n        pass\ndef h():\n    raise NotImplementedError\nclass TestX:\n    def helper(self):\n        pass\n",
        );
        assert_eq!(
            comments(&c),
            vec![
                // (TestX is test code, so no tests finding.)
                "p.py:9 major completeness: `g` has only `pass`/`...` for a body: a stub",
                "p.py:12 major completeness: raises NotImplementedError: the function is a stub",
            ]
        );
    }

    #[test]
    fn a_failed_index_lookup_is_an_error_not_undefined_names() {
        let c = unit(
            "a.py",
            "def f(x):\n    return helper(x)\n\ndef test_f():\n    assert f([])\n",
        );
        let out = try_judge(&c, &|_| Err("database is locked"), false);
        assert_eq!(out.unwrap_err(), "database is locked");
        // Nothing to ask: the lookup is not called, so it cannot fail the review.
        let clean = unit(
            "b.py",
            "def g():\n    return len([])\n\ndef test_g():\n    assert g() == 0\n",
        );
        assert_eq!(
            try_judge(&clean, &|_| Err("unused"), false)
                .unwrap()
                .overall,
            100
        );
    }

    #[test]
    fn test_paths() {
        assert!(is_test_path("tests/a.rs"));
        assert!(is_test_path("pkg/test_x.py"));
        assert!(is_test_path("src/a.test.ts"));
        assert!(!is_test_path("src/testing.rs"));
        assert!(!is_test_path("tests"));
    }
}
