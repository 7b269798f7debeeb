-- 012_ref_deps: what each Python reference read of other files while it was resolved.
--
-- An edit that changes a file's interface (module-level definitions, class members,
-- signatures, import bindings, bases) used to resolve again every call, base and value
-- reference of every file importing that file, directly or not: appending one function
-- to os.py of the standard library re-resolved 428,570 references. Resolving a Python
-- reference reads other files only by name: "what does module F bind to `x`", "what
-- does class C of F define as `m`", "what are the bases of class C of F", "what does
-- function f of F return". Each such lookup is recorded here as one key (the file and
-- the looked-up name, hashed; lookups that found nothing and names reached through
-- star imports, re-exports, bases, the method resolution order and return types
-- included). When a file's interface changes, only the references that looked up one
-- of its changed names are resolved again.
--
-- The index tables are derived from the workspace: this migration empties them (files,
-- nodes, their search rows, scip_files, refs, edges), so the next index run rebuilds
-- them from nothing and records every reference's keys. Agent memory is untouched.

DELETE FROM edges;
DELETE FROM refs;
INSERT INTO symbol_search (symbol_search) VALUES ('delete-all');
DELETE FROM scip_files;
DELETE FROM nodes;
DELETE FROM files;

-- One row per (reference, key it depends on). Only references written in Python files
-- have rows; the other languages resolve again every reference of the files importing
-- a file whose interface changed.
CREATE TABLE ref_deps (
    ref_id INTEGER NOT NULL, -- refs.id of the reference (rows go with it: deleted by the indexer with the reference)
    key    INTEGER NOT NULL, -- the file looked into and the name looked up: files.id * 2^32 + the 32-bit FNV-1a hash of the name (a name's every binding, definition, class member and base; '*' for the file's star imports)
    PRIMARY KEY (ref_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX ref_deps_key ON ref_deps (key);
