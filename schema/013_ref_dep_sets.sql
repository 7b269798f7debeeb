-- 013_ref_dep_sets: the keys a Python reference looked up, stored once per distinct set.
--
-- `ref_deps` (012) held one row per (reference, key): 456,103 rows for the 203,371
-- references of the standard library that read other files, written and indexed by
-- every build. Those references use only 12,035 distinct sets of keys (35,406 keys in
-- all): the calls of one class's methods look up the same names. A reference now names
-- its set (`refs.deps`), and each set's keys are stored once (`ref_dep_sets`). What an
-- edit resolves again is unchanged: the references whose set holds a changed key.
--
-- The index tables are derived from the workspace: this migration empties them (files,
-- nodes, their search rows, scip_files, refs, edges), so the next index run rebuilds
-- them from nothing and records every reference's set. Agent memory is untouched.

DELETE FROM edges;
DELETE FROM ref_deps;
DELETE FROM refs;
INSERT INTO symbol_search (symbol_search) VALUES ('delete-all');
DELETE FROM scip_files;
DELETE FROM nodes;
DELETE FROM files;
DROP TABLE ref_deps;

-- The set of keys the reference looked up in other files while it was resolved: a
-- `ref_dep_sets.set_id`; NULL when it looked up none (and for every reference that is
-- not written in Python, whose files are resolved again as a whole).
ALTER TABLE refs ADD COLUMN deps INTEGER /* Python: the ref_dep_sets.set_id of the keys it looked up in other files; NULL when none, and for other languages */;
CREATE INDEX refs_deps ON refs (deps) WHERE deps IS NOT NULL;

-- One row per (set, key). A set's id is a hash of its content (the 64-bit FNV-1a hash
-- of its sorted keys' little-endian bytes), so a set is written once however many
-- references share it, and two builds of one tree write the same ids. Two sets with one
-- id would only make an edit resolve the references of both again. A set no
-- reference names any more is harmless (its keys lead to no reference); the indexer
-- deletes those after a large run.
CREATE TABLE ref_dep_sets (
    set_id INTEGER NOT NULL, -- refs.deps of the references that looked these keys up
    key    INTEGER NOT NULL, -- the file looked into and the name looked up: files.id * 2^32 + the 32-bit FNV-1a hash of the name (a name's every binding, definition, class member and base; '*' for the file's star imports)
    PRIMARY KEY (set_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX ref_dep_sets_key ON ref_dep_sets (key);
