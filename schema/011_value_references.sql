-- 011_value_references: functions, methods and classes used as values.
--
-- A name written where its value is taken rather than called (an argument, a keyword
-- argument, the right-hand side of an assignment, a return value, an element of a
-- list/tuple/set/dict literal, a parameter's default value: `map(f, xs)`,
-- `key=self.sort_key`, `handlers = {'a': on_a}`) is a reference of the new kind
-- 'reference'. It is resolved by the same rules as a call (scopes, imports, `self`
-- methods, module attributes; the same provenance and confidence) and, when it names a
-- function, method or class of the workspace, makes an edge of the new kind
-- 'references' from the node that uses the value to the node it names. `get_impact`
-- follows these edges like calls; the graph algorithms (PageRank, communities,
-- betweenness, paths, summaries) do not.
--
-- SQLite cannot alter a CHECK constraint, so `refs` and `edges` are dropped and
-- created again with the new kinds (the views that read them are dropped first and
-- created again as they were). The index tables are derived from the workspace: this
-- migration empties them (files, nodes, their search rows, scip_files) and the next
-- index run rebuilds them from nothing, with the value references. Agent memory is in
-- its own database and untouched.

DROP VIEW hubs;
DROP VIEW file_imports;
DROP VIEW call_edges;
DROP VIEW unresolved_refs;
DROP VIEW possible_calls;
DROP TABLE edges;
DROP TABLE refs;
INSERT INTO symbol_search (symbol_search) VALUES ('delete-all');
DELETE FROM scip_files;
DELETE FROM nodes;
DELETE FROM files;

-- References found in source: every import specifier, call site, base-class name,
-- renamed export and value use, resolved or not. An edge of kind
-- imports/calls/inherits/implements/references always comes from one row here.
CREATE TABLE refs (
    id            INTEGER PRIMARY KEY,
    file_id       INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE, -- file the reference is written in
    src_id        INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE, -- enclosing node: the function making the call or using the value, the class naming a base, or the file node
    kind          TEXT NOT NULL         -- 'import' | 'call' | 'inherit' | 'implement' | 'export' (a JS/TS renamed or default export: `export { a as b }`)
                                        -- | 'reference' (a name used as a value, not called: `map(f, xs)`, `cb=self.done`, `x = mod.f`)
                  CHECK (kind = 'import' OR kind = 'call' OR kind = 'inherit' OR kind = 'implement' OR kind = 'export' OR kind = 'reference'),
    form          TEXT,                 -- imports: 'import' | 'reexport' | 'require' | 'dynamic' | 'mod' | 'use' | 'include' | 'include_system'; otherwise NULL
    name          TEXT NOT NULL,        -- imports: the specifier as written; calls and bases: the bare called/base name; exports: the exported name ('default' for a default export); references: the bare name used (`f` of `mod.f`)
    qualifier     TEXT,                 -- calls, references and bases: the text before the name ('self', 'os.path', 'super()', 'Vec'); imports: Python 'from' names, comma-separated, or a Go import's alias; exports: the local name exported
    line          INTEGER NOT NULL,     -- 1-based line of the reference (of the called or used name, for calls and references)
    col           INTEGER NOT NULL DEFAULT 0, -- calls and references: 0-based byte offset of the name in its line; 0 for other kinds
    receiver_type TEXT,                 -- calls and references: the receiver's type as the file states it, from an annotation ('Foo', 'models.Foo') or the call its value came from ('Foo()', 'make()'); NULL when unknown
    bindings      TEXT,                 -- imports: the names bound in the importing file, comma-separated, each 'local' or 'local=imported' ('b=a' for `from m import a as b`, 'ns=*' for `import * as ns`, '*' for a star import, 'x=a.b' for Python `import a.b as x`); NULL when none
    flags         INTEGER NOT NULL DEFAULT 0, -- imports: bit 0 under `if TYPE_CHECKING:`, bit 1 conditional, bit 2 deferred (004_import_flags.sql);
                                        -- calls: bit 3 (8) the called name, or the receiver's first name, is a local variable or parameter; bit 4 (16) written with `new`;
                                        -- bit 5 (32) written as a path (007_native_calls.sql)
    status        TEXT NOT NULL DEFAULT 'unresolved'
                  -- 'resolved': edges written (calls, references and bases: by the rule in edges.provenance);
                  -- 'external': outside the workspace (a library import, a builtin, a method of a literal or of a library type);
                  -- 'ambiguous': a rule narrowed it to several definitions and none is preferred;
                  -- 'unresolved': no rule applies (a receiver of unknown type, a name bound at run time, a reference to
                  --   something other than a function, method or class); the definitions that merely carry a called
                  --   name are listed by the view possible_calls
                  CHECK (status = 'resolved' OR status = 'unresolved' OR status = 'ambiguous' OR status = 'external'),
    candidates    INTEGER NOT NULL DEFAULT 0 -- resolved/ambiguous: definitions the rule found; 0 otherwise
) STRICT;
CREATE INDEX refs_file ON refs (file_id);
CREATE INDEX refs_name ON refs (name);
CREATE INDEX refs_src ON refs (src_id); -- serves the ON DELETE CASCADE from nodes
CREATE INDEX refs_status ON refs (status) WHERE status <> 'resolved';

-- Relations between nodes. 'contains': parent to child symbol (file to top-level
-- symbols). 'imports': file to file. 'calls': function (or class body, or file at module
-- level) to the function, method or class (a constructor call) it calls. 'inherits' /
-- 'implements': class to base class, trait or interface. 'references': function (or
-- class body, or file) to the function, method or class it uses as a value without
-- calling it there (a callback, `map(f, ...)`, a function stored in a variable or a
-- literal); whoever receives the value may call it.
CREATE TABLE edges (
    id         INTEGER PRIMARY KEY,
    src_id     INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    dst_id     INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind = 'imports' OR kind = 'calls' OR kind = 'contains' OR kind = 'inherits' OR kind = 'implements' OR kind = 'references'),
    file_id    INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE, -- file in which the relation is written
    line       INTEGER,                 -- 1-based line of the reference; NULL for 'contains'
    confidence REAL NOT NULL,           -- 1.0 certain; calls, references and bases: the measured precision of the rule in `provenance` (see ARCHITECTURE.md)
    provenance TEXT NOT NULL            -- how the edge was found:
                                        -- 'syntax' (contains), 'specifier' (imports: the import's specifier resolved to a file);
                                        -- calls, references and bases: 'scope' (defined in the caller's file, visible from the caller's scope),
                                        -- 'import' (a name bound by an import, followed through re-exports), 'module' (an attribute
                                        -- of an imported module or namespace: `mod.f()`), 'self' (a self/this/cls receiver, through
                                        -- the class and its bases), 'super' (super(): the next class in the method resolution order),
                                        -- 'typed' (a receiver typed by an annotation, a constructor assignment or a function's
                                        -- return type), 'class' (a member of a named class: `Foo.m()`, `Foo::new()`), 'package'
                                        -- (Go, Java: another file of the caller's package), 'header' (C/C++: a function declared
                                        -- through an included header), 'scip' (a compiler's SCIP index)
               CHECK (provenance = 'syntax' OR provenance = 'specifier' OR provenance = 'scope' OR provenance = 'import'
                      OR provenance = 'module' OR provenance = 'self' OR provenance = 'super' OR provenance = 'typed'
                      OR provenance = 'class' OR provenance = 'package' OR provenance = 'header' OR provenance = 'scip'),
    ref_id     INTEGER REFERENCES refs (id) ON DELETE CASCADE -- the reference this edge resolves; NULL for 'contains'
) STRICT;
CREATE INDEX edges_src ON edges (src_id, kind);
CREATE INDEX edges_dst ON edges (dst_id, kind);
CREATE INDEX edges_ref ON edges (ref_id);
CREATE INDEX edges_file ON edges (file_id);

-- File-level dependencies with paths: one row per import statement that resolved
-- (as in 004).
CREATE VIEW file_imports AS
SELECT sf.path AS src_path,                 -- importing file
       df.path AS dst_path,                 -- imported file
       e.line AS line,                      -- 1-based line of the import
       r.name AS specifier,                 -- the specifier as written
       r.form AS form,                      -- 'import' | 'reexport' | 'require' | 'dynamic' | 'mod' | 'use' | 'include' | 'include_system'
       coalesce(r.flags, 0) AS flags,       -- refs.flags bits
       (coalesce(r.flags, 0) & 1) <> 0 AS type_checking, -- 1 under `if TYPE_CHECKING:`
       (coalesce(r.flags, 0) & 2) <> 0 AS conditional,   -- 1 inside try / if / switch / ?:
       (coalesce(r.flags, 0) & 4) <> 0 AS deferred       -- 1 inside a function body
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
LEFT JOIN refs r ON r.id = e.ref_id
WHERE e.kind = 'imports';

-- Files by number of distinct files they import or are imported by.
CREATE VIEW hubs AS
WITH pairs AS (SELECT DISTINCT src_path, dst_path FROM file_imports WHERE src_path <> dst_path),
     ends AS (SELECT src_path AS path FROM pairs UNION ALL SELECT dst_path FROM pairs)
SELECT path, count(*) AS connections FROM ends GROUP BY path ORDER BY connections DESC, path;

-- Call edges with caller and callee names, where they are, and how each was found.
CREATE VIEW call_edges AS
SELECT s.qualified_name AS caller,          -- qualified name of the calling function (or class, or the file path)
       sf.path AS caller_path,              -- file of the call
       e.line AS line,                      -- 1-based line of the call
       d.qualified_name AS callee,          -- qualified name of the function, method or class called
       df.path AS callee_path,              -- file that defines it
       d.start_line AS callee_line,         -- its first line
       e.confidence AS confidence,          -- measured precision of the rule
       e.provenance AS provenance           -- the rule (see edges.provenance)
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
WHERE e.kind = 'calls';

-- References that did not resolve to a node in this workspace.
CREATE VIEW unresolved_refs AS
SELECT r.id, f.path, r.kind, r.form, r.name, r.qualifier, r.line, r.status, r.candidates
FROM refs r JOIN files f ON f.id = r.file_id
WHERE r.status <> 'resolved';

-- Possible calls by name only: each unresolved or ambiguous call site paired with every
-- function, method or class of the same name in the caller's language family (JS, TS and
-- TSX are one family; C and C++ another). Never edges and never used by the graph
-- algorithms: a call `x.get()` on a receiver of unknown type is listed against every
-- `get` of the workspace. 'No callers' in the graph means no resolved callers; this view
-- says who else might call a node.
CREATE VIEW possible_calls AS
SELECT r.id AS ref_id,                      -- the call site (refs.id)
       r.src_id AS src_id,                  -- the calling node
       n.id AS dst_id,                      -- a definition with the called name
       r.file_id AS file_id,                -- file of the call
       r.line AS line,                      -- 1-based line of the call
       r.status AS status                   -- 'unresolved' or 'ambiguous'
FROM refs r
JOIN files rf ON rf.id = r.file_id
JOIN nodes n ON n.name = r.name
JOIN files nf ON nf.id = n.file_id
WHERE r.kind = 'call'
  AND (r.status = 'unresolved' OR r.status = 'ambiguous')
  AND (n.kind = 'function' OR n.kind = 'method' OR n.kind = 'class' OR n.kind = 'struct')
  AND n.id <> r.src_id
  AND (CASE rf.language WHEN 'typescript' THEN 'javascript' WHEN 'tsx' THEN 'javascript' WHEN 'cpp' THEN 'c' ELSE rf.language END)
    = (CASE nf.language WHEN 'typescript' THEN 'javascript' WHEN 'tsx' THEN 'javascript' WHEN 'cpp' THEN 'c' ELSE nf.language END);

-- Value references with the user's and the target's names, where they are, and how
-- each was found (as call_edges is for calls).
CREATE VIEW reference_edges AS
SELECT s.qualified_name AS user,            -- qualified name of the node using the value (a function, class, or the file path)
       sf.path AS user_path,                -- file of the use
       e.line AS line,                      -- 1-based line of the use
       d.qualified_name AS target,          -- qualified name of the function, method or class used as a value
       df.path AS target_path,              -- file that defines it
       d.start_line AS target_line,         -- its first line
       e.confidence AS confidence,          -- measured precision of the rule (the one calls use)
       e.provenance AS provenance           -- the rule (see edges.provenance)
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
WHERE e.kind = 'references';
