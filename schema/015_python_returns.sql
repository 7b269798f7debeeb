-- 015_python_returns: what a Python function returns when no annotation says.
--
-- `x = make()` then `x.m()` is resolved through what `make` returns. Until now only a
-- return annotation (`-> Foo`, in the signature) told it, and most Python code has
-- none: factories (`return Foo(..)`), alternative constructors (`return cls(..)`) and
-- fluent methods (`return self`) left every call on their results unresolved. A
-- function now records what its `return` statements give when they all agree.
--
-- The index tables are derived from the workspace: this migration empties them (files,
-- nodes, their search rows, scip_files, refs, edges, key sets), so the next index run
-- rebuilds them from nothing with the new column filled. Agent memory is untouched.

DELETE FROM edges;
DELETE FROM ref_dep_sets;
DELETE FROM refs;
INSERT INTO symbol_search (symbol_search) VALUES ('delete-all');
DELETE FROM scip_files;
DELETE FROM nodes;
DELETE FROM files;

ALTER TABLE nodes ADD COLUMN returns TEXT /* Python functions and methods: what calling it gives, as its return statements state it ('Foo()' for `return Foo(..)`, 'mod.make()', 'cls()', 'self'); set only when every return with a value other than None gives the same one and the function does not yield; NULL otherwise, and in other languages. Read only when the signature has no return annotation */;
