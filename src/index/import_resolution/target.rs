//! What resolving one import reference gives: the type every resolver of
//! [`super`] returns (its own file, so the per-language resolvers need nothing else
//! from the parent module).

/// Outcome of resolving one import reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One or more files of the workspace (Python `from p import a, b` may name two).
    Files(Vec<i64>),
    /// A package outside the workspace (`react`, `os`, `std::`).
    External,
    /// Looks local but names no indexed file.
    Unresolved,
}
