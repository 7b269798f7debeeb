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

use std::collections::{BTreeSet, HashSet};
use std::sync::OnceLock;

use regex::Regex;
use tree_sitter::{Node, Parser};

use crate::lang::Language;

use super::candidates::{Candidate, Unit};
use super::review::{weighted_overall, DimensionScore, InlineComment, JudgeOutput, DIMENSIONS};

/// A rubric dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    Correctness,
    Completeness,
    Maintainability,
    Safety,
    Tests,
}

impl Dimension {
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Correctness => "correctness",
            Dimension::Completeness => "completeness",
            Dimension::Maintainability => "maintainability",
            Dimension::Safety => "safety",
            Dimension::Tests => "tests",
        }
    }
}

/// How much a finding costs its dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Blocker,
    Major,
    Minor,
}

impl Severity {
    /// Points subtracted from the dimension's 100.
    pub fn penalty(self) -> u32 {
        match self {
            Severity::Blocker => 100,
            Severity::Major => 80,
            Severity::Minor => 20,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Major => "major",
            Severity::Minor => "minor",
        }
    }
}

/// One problem found, with the lines it spans (file numbering, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub path: String,
    pub line: u32,
    pub end_line: u32,
    pub dimension: Dimension,
    pub severity: Severity,
    pub message: String,
}

impl Finding {
    /// The inline comment: `SEVERITY DIMENSION: MESSAGE`.
    pub fn comment(&self) -> String {
        format!(
            "{} {}: {}",
            self.severity.name(),
            self.dimension.name(),
            self.message
        )
    }
}

/// Most syntax errors reported per unit (the first ones; one is enough to reject).
const MAX_SYNTAX_ERRORS: usize = 5;

/// What one unit's syntax tree says, before the index is asked about names.
#[derive(Debug, Default)]
struct UnitFacts {
    findings: Vec<Finding>,
    /// Bare calls (`f(x)`): name, line.
    bare_calls: Vec<(String, u32)>,
    /// Identifiers seen anywhere but as the callee of a bare call (definitions,
    /// parameters, imports, variables, arguments).
    other_identifiers: HashSet<String>,
    /// The unit has test code.
    has_tests: bool,
    /// The unit defines or changes non-test functions.
    changes_functions: Option<(u32, u32)>,
}

/// Judges one candidate. `defined` answers which names the workspace index defines;
/// `tests_touched_elsewhere` is true when the workspace diff touches a test file.
pub fn judge(
    candidate: &Candidate,
    defined: &dyn Fn(&[String]) -> HashSet<String>,
    tests_touched_elsewhere: bool,
) -> JudgeOutput {
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
        let known = defined(&names);
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
    score(&candidate.label, findings)
}

/// Scores the findings into a judge output.
fn score(label: &str, findings: Vec<Finding>) -> JudgeOutput {
    let dimensions: Vec<DimensionScore> = DIMENSIONS
        .iter()
        .map(|(name, _)| {
            let lost: u32 = findings
                .iter()
                .filter(|f| f.dimension.name() == *name)
                .map(|f| f.severity.penalty())
                .sum();
            DimensionScore {
                name: name.to_string(),
                score: 100u32.saturating_sub(lost),
            }
        })
        .collect();
    let overall = weighted_overall(&dimensions);
    let parse_errors = findings
        .iter()
        .any(|f| f.dimension == Dimension::Correctness && f.severity == Severity::Blocker);
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let summary = format!(
        "internal rubric on {label}: {overall}/100 ({}); {} findings: {} blocker, {} major, {} minor.",
        dimensions
            .iter()
            .map(|d| format!("{} {}", d.name, d.score))
            .collect::<Vec<_>>()
            .join(", "),
        findings.len(),
        count(Severity::Blocker),
        count(Severity::Major),
        count(Severity::Minor),
    );
    let inline = findings
        .iter()
        .map(|f| InlineComment {
            path: f.path.clone(),
            line: f.line,
            comment: f.comment(),
        })
        .collect();
    let citations: BTreeSet<String> = findings
        .iter()
        .map(|f| format!("repo://{}:{}-{}", f.path, f.line, f.end_line))
        .collect();
    JudgeOutput {
        overall,
        dimensions,
        inline,
        citations: citations.into_iter().collect(),
        summary,
        proposed_diff: None,
        parse_errors,
    }
}

/// Adds `f` unless the unit is limited to changed lines that `f` does not touch.
fn push_if_changed(out: &mut Vec<Finding>, unit: &Unit, f: Finding) {
    if touches_changed(unit, f.line, f.end_line) {
        out.push(f);
    }
}

fn touches_changed(unit: &Unit, line: u32, end: u32) -> bool {
    match &unit.changed {
        None => true,
        Some(ranges) => ranges.iter().any(|&(a, b)| line <= b && end >= a),
    }
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

/// The text-level checks (secrets, marker comments for unparsed languages).
fn secret_patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            (
                r#"(?i)\b(password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key|client[_-]?secret)\b["']?\s*[:=]\s*["'][^"'\s]{8,}["']"#,
                "a credential assigned a literal",
            ),
            (r"\bAKIA[0-9A-Z]{16}\b", "an AWS access key id"),
            (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a PEM private key"),
            (r"\bsk-[A-Za-z0-9_-]{20,}", "an API secret key (sk-...)"),
            (r"\bgh[pousr]_[A-Za-z0-9]{30,}", "a GitHub token"),
            (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "a Slack token"),
        ]
        .into_iter()
        .filter_map(|(re, what)| Regex::new(re).ok().map(|r| (r, what)))
        .collect()
    })
}

fn marker_comment() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\b(TODO|FIXME|XXX|HACK)\b").expect("valid regex"))
}

fn line_comment_marker() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(#|//|/\*|^\s*\*|--)\s*.*?\b(TODO|FIXME|XXX|HACK)\b").expect("valid regex")
    })
}

/// Everything one unit's syntax tree (or text) says.
fn analyze_unit(unit: &Unit) -> UnitFacts {
    let mut facts = UnitFacts::default();
    let test_file = is_test_path(&unit.path);
    facts.has_tests = test_file;

    // Secrets, by line, in any language.
    for (row, line) in unit.text.lines().enumerate() {
        for (re, what) in secret_patterns() {
            if re.is_match(line) {
                let l = unit.first_line + row as u32;
                push_if_changed(
                    &mut facts.findings,
                    unit,
                    Finding {
                        path: unit.path.clone(),
                        line: l,
                        end_line: l,
                        dimension: Dimension::Safety,
                        severity: Severity::Blocker,
                        message: format!(
                            "hard-coded secret ({what}): load it from the environment or a secret store"
                        ),
                    },
                );
                break;
            }
        }
    }

    let Some(lang) = unit.language else {
        // Not a language we parse: marker comments by line only.
        for (row, line) in unit.text.lines().enumerate() {
            if let Some(c) = line_comment_marker().captures(line) {
                let l = unit.first_line + row as u32;
                let marker = c.get(2).map_or("TODO", |m| m.as_str());
                push_if_changed(&mut facts.findings, unit, marker_finding(unit, l, marker));
            }
        }
        return facts;
    };

    let mut parser = Parser::new();
    if parser.set_language(&crate::lang::grammar(lang)).is_err() {
        return facts;
    }
    let Some(tree) = parser.parse(unit.text.as_bytes(), None) else {
        return facts;
    };
    let mut walker = Walker {
        unit,
        lang,
        src: unit.text.as_bytes(),
        facts,
        test_file,
        syntax_errors: 0,
    };
    walker.walk(tree.root_node());
    walker.facts
}

fn marker_finding(unit: &Unit, line: u32, marker: &str) -> Finding {
    Finding {
        path: unit.path.clone(),
        line,
        end_line: line,
        dimension: Dimension::Completeness,
        severity: Severity::Minor,
        message: format!("`{marker}` comment: unfinished work"),
    }
}

struct Walker<'a> {
    unit: &'a Unit,
    lang: Language,
    src: &'a [u8],
    facts: UnitFacts,
    test_file: bool,
    syntax_errors: usize,
}

/// Function-like node kinds per language.
fn is_function(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => kind == "function_item",
        Language::Python => kind == "function_definition",
        _ => matches!(
            kind,
            "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "generator_function_declaration"
                | "generator_function"
        ),
    }
}

/// Node kinds that open a nesting level of control flow.
fn is_nesting(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => matches!(
            kind,
            "if_expression"
                | "while_expression"
                | "for_expression"
                | "loop_expression"
                | "match_expression"
        ),
        Language::Python => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
        ),
        _ => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "for_in_statement"
                | "while_statement"
                | "do_statement"
                | "switch_statement"
                | "try_statement"
        ),
    }
}

impl<'a> Walker<'a> {
    fn text(&self, n: Node) -> &'a str {
        n.utf8_text(self.src).unwrap_or("")
    }

    fn line(&self, n: Node) -> u32 {
        self.unit.first_line + n.start_position().row as u32
    }

    fn end_line(&self, n: Node) -> u32 {
        self.unit.first_line + n.end_position().row as u32
    }

    fn add(&mut self, n: Node, dimension: Dimension, severity: Severity, message: String) {
        let f = Finding {
            path: self.unit.path.clone(),
            line: self.line(n),
            end_line: self.end_line(n),
            dimension,
            severity,
            message,
        };
        push_if_changed(&mut self.facts.findings, self.unit, f);
    }

    /// Iterative pre-order walk; `in_test` is tracked per node on the stack.
    fn walk(&mut self, root: Node<'a>) {
        let mut stack: Vec<(Node<'a>, bool)> = vec![(root, self.test_file)];
        let mut cursor = root.walk();
        while let Some((n, in_test)) = stack.pop() {
            if n.is_error() || n.is_missing() {
                self.syntax_error(n);
                if n.is_error() {
                    // Its children are the error's text, not code to judge.
                    continue;
                }
            }
            let in_test = in_test || self.is_test_item(n);
            // Test code counts as touched when it lies in the changed lines.
            if in_test
                && !self.facts.has_tests
                && self.is_test_item(n)
                && touches_changed(self.unit, self.line(n), self.end_line(n))
            {
                self.facts.has_tests = true;
            }
            self.visit(n, in_test);
            let children: Vec<Node<'a>> = n.children(&mut cursor).collect();
            for c in children.into_iter().rev() {
                stack.push((c, in_test));
            }
        }
    }

    fn syntax_error(&mut self, n: Node) {
        if self.unit.fragment {
            return;
        }
        self.syntax_errors += 1;
        if self.syntax_errors > MAX_SYNTAX_ERRORS {
            return;
        }
        let message = if n.is_missing() {
            format!("syntax error: missing `{}`", n.kind())
        } else {
            let snippet: String = self
                .text(n)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(30)
                .collect();
            format!("syntax error: cannot parse `{snippet}`")
        };
        // A syntax error is reported even outside a diff's changed lines: the file
        // as a whole no longer parses.
        self.facts.findings.push(Finding {
            path: self.unit.path.clone(),
            line: self.line(n),
            end_line: self.line(n),
            dimension: Dimension::Correctness,
            severity: Severity::Blocker,
            message,
        });
    }

    /// True for a node that is test code by itself (a test function, module or suite).
    fn is_test_item(&self, n: Node) -> bool {
        match self.lang {
            Language::Rust => {
                if !matches!(n.kind(), "function_item" | "mod_item") {
                    return false;
                }
                let mut prev = n.prev_named_sibling();
                while let Some(p) = prev {
                    match p.kind() {
                        "attribute_item" => {
                            let t = self.text(p);
                            if t.contains("test") {
                                return true;
                            }
                        }
                        "line_comment" | "block_comment" => {}
                        _ => break,
                    }
                    prev = p.prev_named_sibling();
                }
                false
            }
            Language::Python => match n.kind() {
                "function_definition" => self.name_of(n).starts_with("test"),
                "class_definition" => self.name_of(n).starts_with("Test"),
                _ => false,
            },
            _ => {
                n.kind() == "call_expression"
                    && n.child_by_field_name("function")
                        .is_some_and(|f| matches!(self.text(f), "describe" | "it" | "test"))
            }
        }
    }

    fn name_of(&self, n: Node) -> String {
        if let Some(name) = n.child_by_field_name("name") {
            return self.text(name).to_string();
        }
        // `const f = () => ...`: the declarator's name.
        if let Some(p) = n.parent().filter(|p| p.kind() == "variable_declarator") {
            if let Some(name) = p.child_by_field_name("name") {
                return self.text(name).to_string();
            }
        }
        "<anonymous>".to_string()
    }

    fn visit(&mut self, n: Node<'a>, in_test: bool) {
        let kind = n.kind();
        if kind.contains("comment") {
            if let Some(m) = marker_comment().captures(self.text(n)) {
                let marker = m.get(1).map_or("TODO", |m| m.as_str()).to_string();
                let f = marker_finding(self.unit, self.line(n), &marker);
                push_if_changed(&mut self.facts.findings, self.unit, f);
            }
            return;
        }
        if kind == "identifier" {
            let is_bare_callee = n.parent().is_some_and(|p| {
                matches!(p.kind(), "call_expression" | "call")
                    && p.child_by_field_name("function") == Some(n)
            });
            let name = self.text(n).to_string();
            if is_bare_callee {
                let line = self.line(n);
                if touches_changed(self.unit, line, line) {
                    self.facts.bare_calls.push((name, line));
                }
            } else {
                self.facts.other_identifiers.insert(name);
            }
            return;
        }
        if is_function(self.lang, kind) {
            self.function(n, in_test);
        }
        match self.lang {
            Language::Rust => self.visit_rust(n, in_test),
            Language::Python => self.visit_python(n, in_test),
            _ => self.visit_js(n, in_test),
        }
    }

    fn visit_rust(&mut self, n: Node<'a>, in_test: bool) {
        match n.kind() {
            "macro_invocation" => {
                let name = n
                    .child_by_field_name("macro")
                    .map(|m| self.text(m))
                    .unwrap_or("");
                let name = name.rsplit("::").next().unwrap_or(name);
                match name {
                    "todo" | "unimplemented" => self.add(
                        n,
                        Dimension::Completeness,
                        Severity::Major,
                        format!("`{name}!()` left in: this path panics when reached"),
                    ),
                    "panic" if !in_test => self.add(
                        n,
                        Dimension::Safety,
                        Severity::Major,
                        "`panic!()` outside tests: return an error instead".into(),
                    ),
                    _ => {}
                }
            }
            "call_expression" if !in_test => {
                let Some(f) = n.child_by_field_name("function") else {
                    return;
                };
                if f.kind() == "field_expression" {
                    if let Some(field) = f.child_by_field_name("field") {
                        let m = self.text(field);
                        if m == "unwrap" || m == "expect" {
                            self.add(
                                field,
                                Dimension::Safety,
                                Severity::Major,
                                format!("`.{m}()` outside tests panics on None/Err: return or map the error instead"),
                            );
                        }
                    }
                } else if self.text(f).ends_with("Command::new") {
                    let first = n
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .map(|a| self.text(a).trim_matches('"').to_string())
                        .unwrap_or_default();
                    if matches!(first.as_str(), "sh" | "bash" | "zsh" | "cmd" | "powershell") {
                        self.add(
                            n,
                            Dimension::Safety,
                            Severity::Major,
                            format!("`Command::new(\"{first}\")` runs a shell: call the program with its arguments instead"),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn visit_python(&mut self, n: Node<'a>, in_test: bool) {
        match n.kind() {
            // In a method, `raise NotImplementedError` is the abstract-method idiom.
            "raise_statement"
                if self.text(n).contains("NotImplementedError")
                    && !in_test
                    && self.python_class_of(n).is_none() =>
            {
                self.add(
                    n,
                    Dimension::Completeness,
                    Severity::Major,
                    "raises NotImplementedError: the function is a stub".into(),
                )
            }
            "call" if !in_test => {
                let Some(f) = n.child_by_field_name("function") else {
                    return;
                };
                let callee = self.text(f);
                match callee {
                    "eval" | "exec" => self.add(
                        n,
                        Dimension::Safety,
                        Severity::Major,
                        format!("`{callee}()` runs code built at run time"),
                    ),
                    "os.system" | "os.popen" => self.add(
                        n,
                        Dimension::Safety,
                        Severity::Major,
                        format!("`{callee}()` runs a shell command built from a string: pass an argument list to subprocess.run instead"),
                    ),
                    _ if callee.starts_with("subprocess.") => {
                        let shell = n.child_by_field_name("arguments").is_some_and(|a| {
                            let mut c = a.walk();
                            let found = a.named_children(&mut c).any(|arg| {
                                arg.kind() == "keyword_argument"
                                    && self.text(arg).replace(' ', "") == "shell=True"
                            });
                            found
                        });
                        if shell {
                            self.add(
                                n,
                                Dimension::Safety,
                                Severity::Major,
                                format!("`{callee}(..., shell=True)` runs a shell command: pass an argument list without shell=True"),
                            );
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn visit_js(&mut self, n: Node<'a>, in_test: bool) {
        match n.kind() {
            "throw_statement"
                if self
                    .text(n)
                    .to_ascii_lowercase()
                    .contains("not implemented") =>
            {
                self.add(
                    n,
                    Dimension::Completeness,
                    Severity::Major,
                    "throws a \"not implemented\" error: a stub".into(),
                )
            }
            "new_expression"
                if !in_test
                    && n.child_by_field_name("constructor")
                        .is_some_and(|c| self.text(c) == "Function") =>
            {
                self.add(
                    n,
                    Dimension::Safety,
                    Severity::Major,
                    "`new Function()` runs code built at run time".into(),
                );
            }
            "call_expression" if !in_test => {
                let Some(f) = n.child_by_field_name("function") else {
                    return;
                };
                let callee = self.text(f);
                if callee == "eval" {
                    self.add(
                        n,
                        Dimension::Safety,
                        Severity::Major,
                        "`eval()` runs code built at run time".into(),
                    );
                    return;
                }
                let last = callee.rsplit('.').next().unwrap_or(callee);
                if matches!(last, "exec" | "execSync") && f.kind() != "identifier"
                    || callee == "execSync"
                {
                    let built = n
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .is_some_and(|a| {
                            matches!(a.kind(), "template_string" | "binary_expression")
                        });
                    if built {
                        self.add(
                            n,
                            Dimension::Safety,
                            Severity::Major,
                            format!("`{callee}()` with a command built from strings runs a shell: use execFile/spawn with an argument list"),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// Size, complexity, nesting, stubs and emptiness of one function.
    fn function(&mut self, n: Node<'a>, in_test: bool) {
        let name = self.name_of(n);
        let (start, end) = (self.line(n), self.end_line(n));
        if !in_test
            && touches_changed(self.unit, start, end)
            && self.facts.changes_functions.is_none()
        {
            self.facts.changes_functions = Some((start, end));
        }
        let lines = end - start + 1;
        if lines > 100 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Major,
                format!("`{name}` is {lines} lines long (over 100): split it"),
            );
        } else if lines > 50 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` is {lines} lines long (over 50)"),
            );
        }
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let (complexity, depth) = self.complexity_and_depth(body);
        if complexity > 20 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Major,
                format!("`{name}` has cyclomatic complexity {complexity} (over 20)"),
            );
        } else if complexity > 10 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` has cyclomatic complexity {complexity} (over 10)"),
            );
        }
        if depth > 4 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` nests control flow {depth} deep (over 4)"),
            );
        }
        // Emptiness and pass-only bodies.
        let mut c = body.walk();
        let statements: Vec<Node> = body
            .named_children(&mut c)
            .filter(|s| !s.kind().contains("comment"))
            .collect();
        match self.lang {
            Language::Python => {
                // Declarations, not stubs: abstract methods, overloads, Protocol and
                // ABC members; and test code (fixture classes).
                let decorated = n
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .is_some_and(|p| {
                        let t = self.text(p);
                        t.contains("abstractmethod") || t.contains("overload")
                    });
                let declared = self.python_class_of(n).is_some_and(|c| {
                    c.child_by_field_name("superclasses").is_some_and(|b| {
                        let t = self.text(b);
                        t.contains("Protocol") || t.contains("ABC")
                    })
                });
                let stub = !statements.is_empty()
                    && statements.iter().enumerate().all(|(i, s)| {
                        let t = self.text(*s).trim();
                        s.kind() == "pass_statement"
                            || t == "..."
                            // A docstring first.
                            || (i == 0 && s.kind() == "expression_statement" && s.named_child(0).is_some_and(|x| x.kind() == "string") && statements.len() > 1)
                    });
                if stub && !decorated && !declared && !in_test {
                    self.add(
                        n,
                        Dimension::Completeness,
                        Severity::Major,
                        format!("`{name}` has only `pass`/`...` for a body: a stub"),
                    );
                }
            }
            _ => {
                let is_block = matches!(body.kind(), "block" | "statement_block");
                if is_block && statements.is_empty() && name != "constructor" {
                    self.add(
                        n,
                        Dimension::Completeness,
                        Severity::Minor,
                        format!("`{name}` has an empty body"),
                    );
                }
            }
        }
    }

    /// The class whose method encloses `n` most closely (Python), if the nearest
    /// enclosing function is a method.
    fn python_class_of(&self, n: Node<'a>) -> Option<Node<'a>> {
        let mut cur = Some(n);
        while let Some(c) = cur {
            if c.kind() == "function_definition" {
                // function_definition (or decorated_definition) -> block -> class_definition
                let mut up = c.parent();
                if up.is_some_and(|u| u.kind() == "decorated_definition") {
                    up = up.and_then(|u| u.parent());
                }
                return up
                    .filter(|b| b.kind() == "block")
                    .and_then(|b| b.parent())
                    .filter(|k| k.kind() == "class_definition");
            }
            cur = c.parent();
        }
        None
    }

    /// McCabe complexity and deepest control-flow nesting of a body, nested functions
    /// excluded (they are judged on their own).
    fn complexity_and_depth(&self, body: Node<'a>) -> (u32, u32) {
        let mut complexity = 1u32;
        let mut max_depth = 0u32;
        let mut stack: Vec<(Node<'a>, u32)> = vec![(body, 0)];
        let mut cursor = body.walk();
        while let Some((n, depth)) = stack.pop() {
            let kind = n.kind();
            if n != body && is_function(self.lang, kind) {
                continue;
            }
            complexity += self.branches(n);
            let else_if = n.parent().is_some_and(|p| p.kind() == "else_clause")
                && matches!(kind, "if_expression" | "if_statement");
            let depth = if is_nesting(self.lang, kind) && !else_if {
                depth + 1
            } else {
                depth
            };
            max_depth = max_depth.max(depth);
            let children: Vec<Node<'a>> = n.children(&mut cursor).collect();
            for c in children {
                stack.push((c, depth));
            }
        }
        (complexity, max_depth)
    }

    /// Decision points a node adds.
    fn branches(&self, n: Node<'a>) -> u32 {
        let kind = n.kind();
        let operator = || {
            n.child_by_field_name("operator")
                .map(|o| self.text(o))
                .unwrap_or("")
        };
        match self.lang {
            Language::Rust => match kind {
                "if_expression" | "while_expression" | "for_expression" => 1,
                "match_block" => {
                    let mut c = n.walk();
                    let arms = n
                        .named_children(&mut c)
                        .filter(|a| a.kind() == "match_arm")
                        .count() as u32;
                    arms.saturating_sub(1)
                }
                "binary_expression" => u32::from(matches!(operator(), "&&" | "||")),
                _ => 0,
            },
            Language::Python => match kind {
                "if_statement"
                | "elif_clause"
                | "for_statement"
                | "while_statement"
                | "except_clause"
                | "conditional_expression"
                | "for_in_clause"
                | "if_clause"
                | "boolean_operator" => 1,
                "match_statement" => {
                    let cases = n
                        .child_by_field_name("body")
                        .map(|b| {
                            let mut c = b.walk();
                            let k = b
                                .named_children(&mut c)
                                .filter(|x| x.kind() == "case_clause")
                                .count();
                            k
                        })
                        .unwrap_or(0) as u32;
                    cases.saturating_sub(1)
                }
                _ => 0,
            },
            _ => match kind {
                "if_statement" | "for_statement" | "for_in_statement" | "while_statement"
                | "do_statement" | "catch_clause" | "ternary_expression" | "switch_case" => 1,
                "binary_expression" => u32::from(matches!(operator(), "&&" | "||" | "??")),
                _ => 0,
            },
        }
    }
}

/// Names callable without a definition in the workspace (builtins, preludes, test
/// globals), per language.
fn is_builtin(lang: Language, name: &str) -> bool {
    const RUST: &[&str] = &["Some", "Ok", "Err", "drop", "Box", "String", "Vec"];
    const PYTHON: &[&str] = &[
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "compile",
        "complex",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "locals",
        "map",
        "max",
        "memoryview",
        "min",
        "next",
        "object",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        "__import__",
    ];
    const JS: &[&str] = &[
        "eval",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "require",
        "setTimeout",
        "setInterval",
        "clearTimeout",
        "clearInterval",
        "setImmediate",
        "queueMicrotask",
        "structuredClone",
        "fetch",
        "Symbol",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "Promise",
        "Date",
        "RegExp",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "BigInt",
        "encodeURIComponent",
        "decodeURIComponent",
        "encodeURI",
        "decodeURI",
        "alert",
        "atob",
        "btoa",
        "describe",
        "it",
        "test",
        "expect",
        "beforeEach",
        "afterEach",
        "beforeAll",
        "afterAll",
        "jest",
        "vi",
    ];
    match lang {
        Language::Rust => RUST.contains(&name),
        // Exception classes and warnings are builtins too.
        Language::Python => {
            PYTHON.contains(&name)
                || name.ends_with("Error")
                || name.ends_with("Exception")
                || name.ends_with("Warning")
                || matches!(name, "StopIteration" | "KeyboardInterrupt" | "SystemExit")
        }
        _ => JS.contains(&name),
    }
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
    fn test_paths() {
        assert!(is_test_path("tests/a.rs"));
        assert!(is_test_path("pkg/test_x.py"));
        assert!(is_test_path("src/a.test.ts"));
        assert!(!is_test_path("src/testing.rs"));
        assert!(!is_test_path("tests"));
    }
}
