-- 007_native_calls: Rust, Go, Java and C/C++ calls resolved by rules of their own
-- (paths, `use` bindings and re-exports, receivers with declared types, class
-- hierarchies, included headers) instead of matching names in the files in scope.
--
-- The extractor now records more for these languages: the names a Rust `use` binds
-- (`refs.bindings`), the declared types of receivers (`refs.receiver_type`), and a new
-- call flag, bit 5 (32) of `refs.flags`: the call is written as a path (Rust
-- `a::b::f()`, `Foo::new()`; C++ `ns::f()`, `Class::f()`), so its qualifier names a
-- module or type, not a receiver value. Older rows lack all three, so this migration
-- empties the index tables (derived from the workspace) and the next index run
-- rebuilds them. Tasks, work, thoughts, audits and saved documents are untouched.

DELETE FROM edges;
DELETE FROM refs;
DELETE FROM nodes;
DELETE FROM files;
