//! The per-language checks of single nodes: Rust (`todo!`, `panic!`, `.unwrap()`,
//! shell commands), Python (`raise NotImplementedError`, `eval`/`exec`, `os.system`,
//! `shell=True`) and JavaScript/TypeScript (`not implemented` throws, `eval`,
//! `new Function`, `exec` with a built command). One visitor per grammar, because
//! the node kinds differ.

use tree_sitter::Node;

use super::finding::{Dimension, Severity};
use super::parse::Walker;

impl<'a> Walker<'a> {
    pub(super) fn visit_rust(&mut self, n: Node<'a>, in_test: bool) {
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

    pub(super) fn visit_python(&mut self, n: Node<'a>, in_test: bool) {
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

    pub(super) fn visit_js(&mut self, n: Node<'a>, in_test: bool) {
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
}
