//! Type annotations as written, reduced to the one class they name, for receiver types.
//!
//! Used by the extractor on annotations of variables and parameters, and by the
//! resolver on the return types in signatures, so both read a type the same way.
//! Only a class (a dotted name) comes out: containers, unions of several classes,
//! callables and literals give `None`, since a method call on them names no one class.

/// A Python annotation (`Foo`, `"Foo"`, `Optional[Foo]`, `Foo | None`,
/// `Union[Foo, None]`, `Annotated[Foo, ...]`, `pkg.Foo[int]`) reduced to the dotted
/// name of its class (`Foo`, `pkg.Foo`); `None` for anything else (`list[Foo]` gives
/// `list`, which the resolver treats as a builtin).
pub fn python(text: &str) -> Option<String> {
    let mut t = text.trim();
    for _ in 0..8 {
        t = t.trim();
        if let Some(inner) = strip_quotes(t) {
            t = inner;
            continue;
        }
        // `X | None`, `None | X`.
        let parts = split_top(t, '|');
        if parts.len() > 1 {
            let rest: Vec<&str> = parts.into_iter().filter(|p| p.trim() != "None").collect();
            if rest.len() != 1 {
                return None;
            }
            t = rest[0];
            continue;
        }
        if let Some((head, args)) = subscript(t) {
            let head_name = head.rsplit('.').next().unwrap_or(head);
            match head_name {
                "Optional" | "Annotated" | "Final" | "ClassVar" | "Required" | "NotRequired" => {
                    t = split_top(args, ',').first().copied().unwrap_or("");
                    continue;
                }
                "Union" => {
                    let rest: Vec<&str> = split_top(args, ',')
                        .into_iter()
                        .filter(|p| p.trim() != "None")
                        .collect();
                    if rest.len() != 1 {
                        return None;
                    }
                    t = rest[0];
                    continue;
                }
                "Type" | "type" => return None,
                _ => t = head,
            }
        }
        break;
    }
    let t = t.trim();
    let dotted = !t.is_empty()
        && t.split('.').all(|s| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c == '_' || c.is_alphanumeric())
        });
    (dotted && t != "None").then(|| t.to_string())
}

/// The return annotation in a Python signature (`def f(a) -> Foo`), normalized by
/// [`python`].
pub fn python_return(signature: &str) -> Option<String> {
    let close = signature.rfind(')')?;
    let rest = signature[close + 1..].trim();
    let ty = rest.strip_prefix("->")?.trim();
    let ty = ty.strip_suffix(':').unwrap_or(ty);
    python(ty)
}

/// A TypeScript type as written (`Foo`, `ns.Foo<T>`, `Foo | undefined`) reduced to the
/// dotted name of its class; `None` for anything else (unions of several types,
/// arrays, tuples, functions, object and literal types, `Promise<Foo>`).
pub fn typescript(text: &str) -> Option<String> {
    let mut t = text.trim();
    for _ in 0..8 {
        t = t.trim();
        if let Some(inner) = t.strip_prefix('(').and_then(|i| i.strip_suffix(')')) {
            t = inner;
            continue;
        }
        let parts = split_top(t, '|');
        if parts.len() > 1 {
            let rest: Vec<&str> = parts
                .into_iter()
                .filter(|p| !matches!(p.trim(), "undefined" | "null" | "void" | ""))
                .collect();
            if rest.len() != 1 {
                return None;
            }
            t = rest[0];
            continue;
        }
        break;
    }
    let t = t.trim();
    let head = match t.find('<') {
        Some(open) if t.ends_with('>') => t[..open].trim(),
        Some(_) => return None,
        None => t,
    };
    let dotted = !head.is_empty()
        && head.split('.').all(|s| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars()
                    .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
        });
    let builtin = matches!(
        head,
        "string"
            | "number"
            | "boolean"
            | "any"
            | "unknown"
            | "never"
            | "object"
            | "void"
            | "undefined"
            | "null"
            | "bigint"
            | "symbol"
            | "this"
            | "Promise"
    );
    (dotted && !builtin).then(|| head.to_string())
}

/// The declared return type in a TypeScript signature (`function f<T>(a: T): Foo`,
/// `m(a): Foo`, `const f = (a): Foo =>`), normalized by [`typescript`].
pub fn typescript_return(signature: &str) -> Option<String> {
    // The parameter list: the first `(` outside type parameters, to its match.
    let mut angle = 0i32;
    let mut open = None;
    for (i, c) in signature.char_indices() {
        match c {
            '<' => angle += 1,
            '>' => angle -= 1,
            '(' if angle <= 0 => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let mut depth = 0i32;
    let mut close = None;
    for (i, c) in signature[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let rest = signature[close? + 1..].trim();
    let ty = rest.strip_prefix(':')?.trim();
    let ty = ty.strip_suffix("=>").unwrap_or(ty).trim();
    let ty = ty.strip_suffix('{').unwrap_or(ty).trim();
    typescript(ty)
}

/// `'X'` / `"X"` without quotes.
fn strip_quotes(t: &str) -> Option<&str> {
    let b = t.as_bytes();
    (b.len() >= 2 && b[0] == b[b.len() - 1] && matches!(b[0], b'"' | b'\''))
        .then(|| &t[1..t.len() - 1])
}

/// `Head[args]` split into `Head` and `args` when the brackets close at the end.
fn subscript(t: &str) -> Option<(&str, &str)> {
    let open = t.find('[')?;
    let inner = t.strip_suffix(']')?;
    Some((t[..open].trim(), &inner[open + 1..]))
}

/// `t` split at `sep` outside brackets and parentheses.
fn split_top(t: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in t.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&t[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&t[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_annotations_name_one_class() {
        let p = |s: &str| python(s);
        assert_eq!(p("Foo"), Some("Foo".into()));
        assert_eq!(p("'Foo'"), Some("Foo".into()));
        assert_eq!(p("models.Foo"), Some("models.Foo".into()));
        assert_eq!(p("Optional[Foo]"), Some("Foo".into()));
        assert_eq!(p("typing.Optional['a.Foo']"), Some("a.Foo".into()));
        assert_eq!(p("Foo | None"), Some("Foo".into()));
        assert_eq!(p("None | Foo"), Some("Foo".into()));
        assert_eq!(p("Union[Foo, None]"), Some("Foo".into()));
        assert_eq!(p("Union[Foo, Bar]"), None);
        assert_eq!(p("Foo | Bar"), None);
        assert_eq!(p("Foo[int]"), Some("Foo".into()));
        assert_eq!(p("list[Foo]"), Some("list".into()));
        assert_eq!(p("Type[Foo]"), None);
        assert_eq!(p("Callable[[int], Foo]"), Some("Callable".into()));
        assert_eq!(p("None"), None);
        assert_eq!(p("1"), None);
    }

    #[test]
    fn python_return_annotations() {
        assert_eq!(python_return("def f(a) -> Foo"), Some("Foo".into()));
        assert_eq!(
            python_return("def f(a: int) -> Optional[pkg.Foo]:"),
            Some("pkg.Foo".into())
        );
        assert_eq!(python_return("def f(a)"), None);
        assert_eq!(
            python_return("async def f(self) -> 'Bar'"),
            Some("Bar".into())
        );
    }
}
