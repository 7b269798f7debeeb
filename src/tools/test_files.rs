//! Which files and functions are tests, by each language's own convention (what its
//! usual runner collects), so impact answers can list the tests that reach a symbol.
//!
//! Pure functions of a path, a node's kind and names, and (for Rust and Java, whose
//! test markers are attributes the index does not record) the source lines just above
//! a declaration, which the caller reads. Nothing here runs a test runner; a file a
//! runner is configured to collect under another name is not recognised.

use crate::lang::Language;

/// Whether `path` (root-relative, `/` separators) is a test file:
/// - Python (pytest/unittest): `test_*.py`, `*_test.py`, `conftest.py`, or any `.py`
///   under a `tests/` or `test/` directory;
/// - Rust: a `.rs` file under a `tests/` directory (integration tests);
/// - JavaScript/TypeScript (Jest, Vitest, Mocha): `*.test.*`, `*.spec.*`, or under
///   `__tests__/` (also `test/`, `tests/`);
/// - Go: `*_test.go`;
/// - Java (JUnit): under `src/test/`, or `*Test.java`, `*Tests.java`, `Test*.java`;
/// - C/C++: `test_*`, `*_test.*` or under `tests/`/`test/`.
pub fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dirs: Vec<&str> = path.split('/').rev().skip(1).collect();
    let in_dir = |d: &str| dirs.contains(&d);
    let stem = name.split('.').next().unwrap_or(name);
    match Language::from_path(path) {
        Some(Language::Python) => {
            stem.starts_with("test_")
                || stem.ends_with("_test")
                || stem == "conftest"
                || in_dir("tests")
                || in_dir("test")
        }
        Some(Language::Rust) => in_dir("tests"),
        Some(Language::JavaScript | Language::TypeScript | Language::Tsx) => {
            let parts: Vec<&str> = name.split('.').collect();
            parts.len() > 2 && matches!(parts[parts.len() - 2], "test" | "spec")
                || in_dir("__tests__")
                || in_dir("tests")
                || in_dir("test")
        }
        Some(Language::Go) => name.ends_with("_test.go"),
        Some(Language::Java) => {
            path.contains("src/test/")
                || path.starts_with("test/")
                || stem.ends_with("Test")
                || stem.ends_with("Tests")
                || stem.starts_with("Test")
        }
        Some(Language::C | Language::Cpp) => {
            stem.starts_with("test_")
                || stem.ends_with("_test")
                || in_dir("tests")
                || in_dir("test")
        }
        None => false,
    }
}

/// Whether a JavaScript/TypeScript file is a test file only by its directory (under
/// `test/` or `tests/`, but neither `*.test.*`/`*.spec.*` nor under `__tests__/`):
/// such directories also hold fixtures and helpers, so its text is asked too
/// ([`runs_js_tests`]).
pub fn js_test_file_by_directory_only(path: &str) -> bool {
    if !matches!(
        Language::from_path(path),
        Some(Language::JavaScript | Language::TypeScript | Language::Tsx)
    ) || !is_test_file(path)
    {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let parts: Vec<&str> = name.split('.').collect();
    let by_name = parts.len() > 2 && matches!(parts[parts.len() - 2], "test" | "spec");
    !by_name && !path.split('/').any(|d| d == "__tests__")
}

/// Test runners' modules: a file that imports one runs tests.
const JS_TEST_MODULES: &[&str] = &[
    "tape",
    "tap",
    "mocha",
    "ava",
    "vitest",
    "jest",
    "uvu",
    "jasmine",
    "qunit",
    "node:test",
    "@jest/globals",
    "bun:test",
];

/// Test runners' global or imported functions: a file that calls one at the start of a
/// statement (`test(`, `it(`, `describe(`, ...) runs tests.
const JS_TEST_CALLS: &[&str] = &["test", "it", "describe", "suite", "context", "specify"];

/// Whether the text of a JavaScript/TypeScript file runs tests: it imports a test
/// runner ([`JS_TEST_MODULES`], by `require`, `import` or `from`), or a line starts with
/// a call of a runner's function ([`JS_TEST_CALLS`], also as `test.skip(` and the like).
pub fn runs_js_tests(lines: &[String]) -> bool {
    lines.iter().any(|line| {
        let t = line.trim_start();
        let imports =
            JS_TEST_MODULES.iter().any(|m| {
                [format!("'{m}'"), format!("\"{m}\"")]
                    .iter()
                    .any(|q| t.contains(q.as_str()))
            }) && (t.contains("require(") || t.starts_with("import") || t.contains(" from "));
        imports
            || JS_TEST_CALLS.iter().any(|f| {
                t.strip_prefix(f)
                    .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('.'))
            })
    })
}

/// Whether the function or method `name` (qualified `qualified`, e.g.
/// `TestVisit::test_visit` or `tests::adds`) of the file `path` is a test function.
/// `above` is the source text of the lines just above its declaration (its
/// attributes or annotations), read by the caller; it may be empty.
/// - Python: `test*` functions, and `test*` methods of any class, in a test file;
/// - Rust: a `#[test]`-like attribute (`#[test]`, `#[tokio::test]`, `#[rstest]`, ...),
///   or, when `above` is empty, a function of a `tests` module or of a file under `tests/`;
/// - Go: `Test*`, `Benchmark*`, `Fuzz*`, `Example*` in a `_test.go` file;
/// - Java: an `@Test`-like annotation, or a `test*` method, in a test file;
/// - JavaScript/TypeScript and C/C++: `test*` functions in a test file (Jest and Mocha
///   tests are anonymous callbacks: the caller reports the file).
pub fn is_test_function(path: &str, name: &str, qualified: &str, above: &str) -> bool {
    let test_file = is_test_file(path);
    match Language::from_path(path) {
        Some(Language::Python) => test_file && name.starts_with("test"),
        Some(Language::Rust) => {
            has_test_marker(above, '#')
                || (above.trim().is_empty()
                    && (test_file || qualified.split("::").any(|s| s == "tests")))
        }
        Some(Language::Go) => {
            test_file
                && ["Test", "Benchmark", "Fuzz", "Example"]
                    .iter()
                    .any(|p| name.starts_with(p))
        }
        Some(Language::Java) => {
            test_file && (has_test_marker(above, '@') || name.starts_with("test"))
        }
        Some(_) => test_file && name.starts_with("test"),
        None => false,
    }
}

/// The Linux kernel's kselftest harness (C): when `signature` is the head of one of its
/// tests, as the extractor keeps it (`TEST(name)`, `TEST_SIGNAL(name, SIGSEGV)`,
/// `TEST_F(fixture, name)`, `TEST_F_SIGNAL(..)`, `TEST_F_TIMEOUT(fixture, name, 60)`),
/// the name its runner gives the test and prints (`#  RUN  fixture.name`):
/// `fixture.name`, or `global.name` for a test without a fixture. `None` otherwise,
/// set-ups and teardowns included.
pub fn kselftest_id(signature: &str) -> Option<String> {
    let (macro_name, mut names) = harness_head(signature)?;
    let first = names.next()??;
    match macro_name {
        "TEST" | "TEST_SIGNAL" => Some(format!("global.{first}")),
        "TEST_F" | "TEST_F_SIGNAL" | "TEST_F_TIMEOUT" => {
            Some(format!("{first}.{}", names.next()??))
        }
        _ => None,
    }
}

/// The kselftest harness (C): when `signature` is the head of a fixture's set-up or
/// teardown (`FIXTURE_SETUP(fixture)`, `FIXTURE_TEARDOWN(fixture)`), the fixture's
/// name: each test of the fixture runs it.
pub fn kselftest_fixture(signature: &str) -> Option<&str> {
    let (macro_name, mut names) = harness_head(signature)?;
    match macro_name {
        "FIXTURE_SETUP" | "FIXTURE_TEARDOWN" => names.next()?,
        _ => None,
    }
}

/// A macro invocation's head, `MACRO(a, b, ..)` (text after the `)` ignored): the
/// macro's name and its arguments, each `Some` when it is a name (letters, digits,
/// `_`; not starting with a digit).
fn harness_head(signature: &str) -> Option<(&str, impl Iterator<Item = Option<&str>>)> {
    let (head, rest) = signature.split_once('(')?;
    let args = rest.split_once(')')?.0;
    let names = args.split(',').map(str::trim).map(|s| {
        (!s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(s)
    });
    Some((head.trim_end(), names))
}

/// Whether the attribute or annotation lines in `above` (the lines just above a
/// declaration, nearest last) mark a test: a `#[...]` (Rust, `sigil` `#`) or `@...`
/// (Java, `sigil` `@`) line whose name contains `test` (`#[test]`, `#[tokio::test]`,
/// `@Test`, `@ParameterizedTest`), or Rust's `#[rstest]`/`#[quickcheck]`.
fn has_test_marker(above: &str, sigil: char) -> bool {
    above.lines().any(|l| {
        let l = l.trim();
        l.starts_with(sigil) && {
            let lower = l.to_ascii_lowercase();
            lower.contains("test") || lower.contains("quickcheck") || lower.contains("proptest")
        }
    })
}

/// The attribute and annotation lines directly above 1-based line `start` of `lines`
/// (skipping blank and comment lines, stopping at the first other line), nearest last.
pub fn attributes_above<L: AsRef<str>>(lines: &[L], start: usize) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut i = start.saturating_sub(1).min(lines.len());
    while i > 0 {
        i -= 1;
        let l = lines[i].as_ref().trim();
        if l.starts_with("#[") || l.starts_with('@') {
            out.push(l);
        } else if !(l.is_empty()
            || l.starts_with("//")
            || l.starts_with("/*")
            || l.starts_with('*'))
        {
            break;
        }
    }
    out.reverse();
    out.join("\n")
}

/// Python: the decorators directly above 1-based line `start` of `lines` (a `def` or
/// `class` line), nearest last, each on one line (a decorator written over several lines is
/// joined with spaces). Comment and blank lines between them are skipped; brackets
/// inside string literals are counted as brackets.
pub fn python_decorators_above<L: AsRef<str>>(lines: &[L], start: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    // Brackets closed below and not yet opened: inside a decorator's arguments.
    let mut open = 0i64;
    let mut i = start.saturating_sub(1).min(lines.len());
    while i > 0 {
        i -= 1;
        let l = lines[i].as_ref().trim();
        let opens = l.matches(['(', '[', '{']).count() as i64;
        let closes = l.matches([')', ']', '}']).count() as i64;
        open += closes - opens;
        if open > 0 {
            pending.push(l);
            continue;
        }
        open = 0;
        if l.starts_with('@') {
            pending.push(l);
            pending.reverse();
            out.push(pending.join(" "));
            pending.clear();
        } else if pending.is_empty() && (l.is_empty() || l.starts_with('#')) {
            continue;
        } else {
            break;
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_per_language() {
        for p in [
            "tests/test_core.py",
            "pkg/test_util.py",
            "pkg/util_test.py",
            "tests/integration.rs",
            "src/a.test.ts",
            "src/a.spec.js",
            "src/__tests__/a.tsx",
            "cart/cart_test.go",
            "src/test/java/a/ATest.java",
            "src/main/java/a/FooTest.java",
        ] {
            assert!(is_test_file(p), "{p}");
        }
        for p in [
            "src/core.py",
            "src/lib.rs",
            "src/a.ts",
            "cart/cart.go",
            "src/main/java/a/A.java",
            "src/testing.py",
        ] {
            assert!(!is_test_file(p), "{p}");
        }
    }

    #[test]
    fn js_files_under_test_directories_run_tests_when_their_text_says_so() {
        assert!(js_test_file_by_directory_only("test/resolver/main.js"));
        assert!(js_test_file_by_directory_only("tests/a.ts"));
        assert!(!js_test_file_by_directory_only("test/a.test.js"));
        assert!(!js_test_file_by_directory_only("src/__tests__/a.js"));
        assert!(!js_test_file_by_directory_only("tests/test_a.py"));
        assert!(!js_test_file_by_directory_only("src/a.js"));
        let text = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
        assert!(runs_js_tests(&text("var test = require('tape');\n")));
        assert!(runs_js_tests(&text("import { it } from \"vitest\";\n")));
        assert!(runs_js_tests(&text(
            "const x = 1;\n  describe('a', () => {});\n"
        )));
        assert!(runs_js_tests(&text("test.skip('a', function () {});\n")));
        assert!(!runs_js_tests(&text(
            "module.exports = require('./lib');\n"
        )));
        assert!(!runs_js_tests(&text("var testing = 1;\nitems(2);\n")));
    }

    #[test]
    fn test_functions_per_language() {
        assert!(is_test_function("tests/test_a.py", "test_x", "test_x", ""));
        assert!(is_test_function(
            "tests/test_a.py",
            "test_y",
            "TestA::test_y",
            ""
        ));
        assert!(!is_test_function("tests/test_a.py", "helper", "helper", ""));
        assert!(!is_test_function("src/a.py", "test_x", "test_x", ""));
        assert!(is_test_function(
            "src/lib.rs",
            "adds",
            "tests::adds",
            "#[test]"
        ));
        assert!(is_test_function(
            "src/lib.rs",
            "adds",
            "adds",
            "#[tokio::test]"
        ));
        assert!(!is_test_function(
            "src/lib.rs",
            "helper",
            "tests::helper",
            "#[inline]"
        ));
        assert!(is_test_function("src/lib.rs", "adds", "tests::adds", ""));
        assert!(is_test_function("a/a_test.go", "TestAdd", "TestAdd", ""));
        assert!(!is_test_function("a/a.go", "TestAdd", "TestAdd", ""));
        assert!(is_test_function(
            "src/test/java/ATest.java",
            "adds",
            "ATest::adds",
            "@Test"
        ));
    }

    #[test]
    fn python_decorators_are_read_upwards() {
        let src = "import pytest\n\n@pytest.fixture(\n    scope='module',\n    params=[1, 2],\n)\n# the url\n@other\ndef url(request):\n    pass\n";
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(
            python_decorators_above(&lines, 9),
            vec![
                "@pytest.fixture( scope='module', params=[1, 2], )".to_string(),
                "@other".to_string()
            ]
        );
        assert!(python_decorators_above(&lines, 1).is_empty());
        assert!(python_decorators_above(&["x = 1", "def f():", "    pass"], 2).is_empty());
    }

    #[test]
    fn attributes_are_read_upwards() {
        let src = "mod tests {\n    // a comment\n    #[test]\n    #[ignore]\n    fn t() {}\n}\n";
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(attributes_above(&lines, 5), "#[test]\n#[ignore]");
        assert_eq!(attributes_above(&lines, 1), "");
    }

    #[test]
    fn kselftest_heads_give_the_runners_names() {
        use super::kselftest_id;
        for (head, id) in [
            ("TEST_F(hmm, open_close)", "hmm.open_close"),
            ("TEST_F_TIMEOUT(hmm, big, 60)", "hmm.big"),
            ("TEST(negative_ENOSYS)", "global.negative_ENOSYS"),
            ("TEST_SIGNAL(segv, SIGSEGV)", "global.segv"),
            ("TEST(commented) /* why */", "global.commented"),
        ] {
            assert_eq!(kselftest_id(head).as_deref(), Some(id), "{head}");
        }
        assert_eq!(super::kselftest_fixture("FIXTURE_SETUP(hmm)"), Some("hmm"));
        assert_eq!(
            super::kselftest_fixture("FIXTURE_TEARDOWN( hmm )"),
            Some("hmm")
        );
        assert_eq!(super::kselftest_fixture("FIXTURE(hmm)"), None);
        assert_eq!(super::kselftest_fixture("TEST_F(hmm, a)"), None);
        for other in [
            "FIXTURE_SETUP(hmm)",
            "int test_x(void)",
            "TEST_F(hmm)",
            "TEST(1)",
            "SYSCALL_DEFINE0(fork)",
        ] {
            assert_eq!(kselftest_id(other), None, "{other}");
        }
    }
}
