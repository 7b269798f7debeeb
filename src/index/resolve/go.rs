//! Go: calls and embedded types resolved by Go's own scoping.
//!
//! - A bare `f()`: a function of the caller's package (its directory; `scope` in the
//!   caller's own file, `package` in another). A name bound to a local variable or
//!   parameter is not resolved. Builtins (`len`, `append`, ..) are `external`.
//! - `pkg.F()` whose `pkg` is an import's local name: the function `F` of that
//!   package's files (`module`); `external` for a package outside the workspace.
//! - `x.M()` where the file states `x`'s type (a receiver or parameter `x *T`, `var x
//!   T`, `x := &T{}`, `x := T{}`, `x := NewT()` / `pkg.NewT()` with a declared result
//!   type): the method `T::M` of `T`'s package, else of the types `T` embeds, in
//!   order (`typed`); an interface's own method for an interface type.
//! - `T.M(x)`, a method expression on a type of the package: `class`.
//! - Anything else (a method of a value whose type is not stated, a field holding a
//!   function) is not resolved: no name is matched across packages.

use super::native::{call_outcome, is_literal, one, Item};
use super::rules::Rule;
use super::{go_local_name, Family, Outcome, Resolver};
use crate::index::IndexError;
use crate::lang::CallRef;
use crate::store::files::{DefKind, Definition, IndexTx, Ref};

/// Go's predeclared functions.
const BUILTINS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover",
];

/// Go's predeclared types: a receiver of one has no workspace method.
const BUILTIN_TYPES: &[&str] = &[
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "any",
    "comparable",
];

/// What a package-qualified name's qualifier is.
enum Qualifier {
    /// An import of workspace files.
    Files(Vec<i64>),
    /// An import outside the workspace.
    External,
    /// An import that did not resolve.
    Unresolved,
}

impl Resolver {
    /// Resolves a Go call reference (module docs).
    pub(super) fn go_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        let Some(q) = r.qualifier.as_deref().map(str::trim) else {
            if local {
                return Ok(Outcome::status("unresolved", 0));
            }
            let found = self.go_package_def(tx, r.file_id, &r.name, &[DefKind::Function])?;
            return Ok(match found {
                Some((item, rule)) => call_outcome(Some(item), rule),
                None if BUILTINS.contains(&r.name.as_str()) => Outcome::status("external", 0),
                None => Outcome::status("unresolved", 0),
            });
        };
        if is_literal(q) {
            return Ok(Outcome::status("external", 0));
        }
        let simple = q.chars().all(|c| c == '_' || c.is_alphanumeric());
        if simple && !local {
            match self.go_qualifier(tx, r.file_id, q)? {
                Some(Qualifier::Files(files)) => {
                    let defs = self.symbols.named(tx, &r.name)?;
                    let found: Vec<Definition> = defs
                        .iter()
                        .filter(|d| d.kind == DefKind::Function && files.contains(&d.file_id))
                        .cloned()
                        .collect();
                    return Ok(call_outcome(one(found), Rule::Module));
                }
                Some(Qualifier::External) => return Ok(Outcome::status("external", 0)),
                Some(Qualifier::Unresolved) => return Ok(Outcome::status("unresolved", 0)),
                None => {}
            }
        }
        if let Some(hint) = r.receiver_type.as_deref() {
            return Ok(match self.go_hint(tx, r.file_id, hint)? {
                Some(Item::Def(ty)) => {
                    let member = self.go_member(tx, &ty, &r.name, 0)?;
                    call_outcome(member, Rule::Typed)
                }
                Some(Item::External) => Outcome::status("external", 0),
                _ => Outcome::status("unresolved", 0),
            });
        }
        if simple && !local {
            // `T.M(x)`: a method expression.
            if let Some((Item::Def(ty), _)) =
                self.go_package_def(tx, r.file_id, q, &[DefKind::Type])?
            {
                let member = self.go_member(tx, &ty, &r.name, 0)?;
                return Ok(call_outcome(member, Rule::Class));
            }
        }
        Ok(Outcome::status("unresolved", 0))
    }

    /// Resolves an embedded type: a type of the caller's package, else the one type of
    /// that name in the workspace packages the file imports.
    pub(super) fn go_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        if let Some((item, rule)) = self.go_package_def(tx, r.file_id, &r.name, &[DefKind::Type])? {
            return Ok(call_outcome(Some(item), rule));
        }
        let imports = self.symbols.imports_of(tx, r.file_id)?;
        let files: Vec<i64> = imports.iter().flat_map(|i| i.files.clone()).collect();
        let defs = self.symbols.named(tx, &r.name)?;
        let found: Vec<Definition> = defs
            .iter()
            .filter(|d| d.kind == DefKind::Type && files.contains(&d.file_id))
            .cloned()
            .collect();
        Ok(call_outcome(one(found), Rule::Module))
    }

    /// True when `a` and `b` are files of one package (directory).
    fn go_same_package(&self, a: i64, b: i64) -> bool {
        match (self.paths.get(&a), self.paths.get(&b)) {
            (Some(x), Some(y)) => {
                crate::index::relpath::parent_dir(x) == crate::index::relpath::parent_dir(y)
                    && self.family(b) == Family::Go
            }
            _ => false,
        }
    }

    /// The package-level definition `name` of one of `kinds` seen from `file`: in the
    /// file itself (`scope`), else in another file of its package (`package`).
    fn go_package_def(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        name: &str,
        kinds: &[DefKind],
    ) -> Result<Option<(Item, Rule)>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let found: Vec<Definition> = defs
            .iter()
            .filter(|d| kinds.contains(&d.kind) && self.go_same_package(file, d.file_id))
            .cloned()
            .collect();
        let same: Vec<Definition> = found
            .iter()
            .filter(|d| d.file_id == file)
            .cloned()
            .collect();
        if !same.is_empty() {
            return Ok(one(same).map(|item| (item, Rule::Scope)));
        }
        Ok(one(found).map(|item| (item, Rule::Package)))
    }

    /// What qualifier `q` names in `file` when it is an import's local name.
    fn go_qualifier(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        q: &str,
    ) -> Result<Option<Qualifier>, IndexError> {
        let imports = self.symbols.imports_of(tx, file)?;
        for import in imports.iter() {
            if go_local_name(&import.specifier, import.qualifier.as_deref()) == q {
                return Ok(Some(match import.status.as_str() {
                    "resolved" => Qualifier::Files(import.files.clone()),
                    "external" => Qualifier::External,
                    _ => Qualifier::Unresolved,
                }));
            }
        }
        Ok(None)
    }

    /// The type a receiver hint names: a type as written (`*T`, `pkg.T`, `T[int]`), or
    /// the result of a call (`NewT()`, `pkg.NewT()`) by the function's declared result.
    fn go_hint(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        hint: &str,
    ) -> Result<Option<Item>, IndexError> {
        if let Some(callee) = hint.strip_suffix("()") {
            let (qualifier, name) = match callee.rsplit_once('.') {
                Some((q, n)) => (Some(q), n),
                None => (None, callee),
            };
            let function = match qualifier {
                None => match self.go_package_def(tx, file, name, &[DefKind::Function])? {
                    Some((Item::Def(f), _)) => f,
                    _ => return Ok(None),
                },
                Some(q) => match self.go_qualifier(tx, file, q)? {
                    Some(Qualifier::Files(files)) => {
                        let defs = self.symbols.named(tx, name)?;
                        let found: Vec<Definition> = defs
                            .iter()
                            .filter(|d| d.kind == DefKind::Function && files.contains(&d.file_id))
                            .cloned()
                            .collect();
                        match one(found) {
                            Some(Item::Def(f)) => f,
                            _ => return Ok(None),
                        }
                    }
                    Some(Qualifier::External) => return Ok(Some(Item::External)),
                    _ => return Ok(None),
                },
            };
            let Some(signature) = self.symbols.signature(tx, function.id)? else {
                return Ok(None);
            };
            let Some(ret) = go_result_type(&signature) else {
                return Ok(None);
            };
            return self.go_type(tx, function.file_id, &ret);
        }
        self.go_type(tx, file, hint)
    }

    /// The type named by a type expression written in `file`.
    fn go_type(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        ty: &str,
    ) -> Result<Option<Item>, IndexError> {
        let ty = ty.trim().trim_start_matches('*').trim();
        let ty = ty.split('[').next().unwrap_or(ty).trim();
        if ty.is_empty() || ty.starts_with(['(', '[']) || ty.contains(' ') {
            return Ok(None);
        }
        if BUILTIN_TYPES.contains(&ty) {
            return Ok(Some(Item::External));
        }
        let defs_in =
            |this: &mut Self, name: &str, files: &[i64]| -> Result<Option<Item>, IndexError> {
                let defs = this.symbols.named(tx, name)?;
                let found: Vec<Definition> = defs
                    .iter()
                    .filter(|d| d.kind == DefKind::Type && files.contains(&d.file_id))
                    .cloned()
                    .collect();
                Ok(one(found))
            };
        match ty.split_once('.') {
            Some((q, name)) => match self.go_qualifier(tx, file, q)? {
                Some(Qualifier::Files(files)) => defs_in(self, name, &files),
                Some(Qualifier::External) => Ok(Some(Item::External)),
                _ => Ok(None),
            },
            None => {
                let defs = self.symbols.named(tx, ty)?;
                let found: Vec<Definition> = defs
                    .iter()
                    .filter(|d| d.kind == DefKind::Type && self.go_same_package(file, d.file_id))
                    .cloned()
                    .collect();
                Ok(one(found))
            }
        }
    }

    /// Method `name` of type `ty`: an interface's own method; a type's `T::name` in its
    /// package; else the methods of the types it embeds (depth first, in order).
    fn go_member(
        &mut self,
        tx: &IndexTx<'_>,
        ty: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        self.memo_member(tx, ty, name, depth, 8, Resolver::go_member_uncached)
    }

    fn go_member_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        ty: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let qualified = format!("{}::{name}", ty.name);
        let found: Vec<Definition> = defs
            .iter()
            .filter(|d| {
                d.kind == DefKind::Method
                    && (d.parent_id == Some(ty.id)
                        || (*d.qualified_name == *qualified
                            && self.go_same_package(ty.file_id, d.file_id)))
                    && self.family(d.file_id) == Family::Go
            })
            .cloned()
            .collect();
        let mut result = one(found);
        if result.is_none() {
            let mut open = false;
            for base in self.symbols.bases_of(tx, ty.id)?.iter() {
                match base.node {
                    Some(id) => {
                        if let Some(b) = self.symbols.def(tx, id)? {
                            if let Some(item) = self.go_member(tx, &b, name, depth + 1)? {
                                result = Some(item);
                                break;
                            }
                        }
                    }
                    None => open = true,
                }
            }
            if result.is_none() && open {
                result = Some(Item::External);
            }
        }
        Ok(result)
    }
}

/// The first result type of a Go function signature: `func New() *Cart` → `*Cart`,
/// `func (s *S) Open(p string) (*DB, error)` → `*DB`.
fn go_result_type(signature: &str) -> Option<String> {
    let rest = signature.trim().strip_prefix("func")?.trim_start();
    // Skip the receiver, the name and type parameters, then the parameters.
    let mut groups = 0;
    let mut depth = 0usize;
    let mut end = None;
    let wanted = if rest.starts_with('(') { 2 } else { 1 };
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    groups += 1;
                    if groups == wanted {
                        end = Some(i + 1);
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    let result = rest[end?..].trim().trim_end_matches('{').trim();
    let result = match result.strip_prefix('(') {
        Some(list) => list.split(',').next().unwrap_or("").trim(),
        None => result,
    };
    // `(c *Cart, err error)`: a named result.
    let result = result.rsplit(' ').next().unwrap_or(result);
    (!result.is_empty()).then(|| result.to_string())
}

#[cfg(test)]
mod tests {
    use super::go_result_type;

    #[test]
    fn result_types() {
        assert_eq!(go_result_type("func New() *Cart").as_deref(), Some("*Cart"));
        assert_eq!(
            go_result_type("func (s *S) Open(p string) (*DB, error)").as_deref(),
            Some("*DB")
        );
        assert_eq!(
            go_result_type("func Make[T any](x T) (out *List[T], err error)").as_deref(),
            Some("*List[T]")
        );
        assert_eq!(go_result_type("func f(x int)"), None);
    }
}
