-- 001_index: the code index — files, nodes (symbols), edges, references, runs.
--
-- Paths are relative to the workspace root with '/' separators; the root itself is
-- never stored, so a database built on one checkout is valid on another checkout of
-- the same tree. Integer ids are assigned in path order and document order, so two
-- from-scratch runs over the same tree give the same ids.

-- CHECK constraints spell out `a = x OR a = y`: SQLite compiles `a IN (x, y, z)` into an
-- ephemeral table per statement execution, which made bulk inserts several times slower.

-- Key/value facts about the database itself.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,  -- 'generation': bumped by every committed index run that changed anything
    value TEXT NOT NULL               -- the value, as text
) STRICT;
INSERT INTO meta (key, value) VALUES ('generation', '0');

-- Every file the walk found, parsed or not.
CREATE TABLE files (
    id         INTEGER PRIMARY KEY,  -- stable while the file exists
    path       TEXT NOT NULL UNIQUE, -- relative to the workspace root, '/' separators
    language   TEXT,                 -- 'rust' | 'python' | 'javascript' | 'typescript' | 'tsx'; NULL when not parsed as code
    size       INTEGER NOT NULL,     -- bytes, at the last stat
    mtime_ns   INTEGER NOT NULL,     -- modification time at the last stat, nanoseconds since the Unix epoch
    digest     TEXT,                 -- blake3 digest of the contents, 64 hex digits; NULL when not read (too large, unreadable)
    status     TEXT NOT NULL         -- 'parsed': source parsed cleanly; 'parse_errors': parsed, tree has errors;
                                     -- 'asset': indexed, not a language we parse; 'binary': contains NUL bytes;
                                     -- 'too_large': over the size cap, not read; 'unreadable': could not be read
               CHECK (status = 'parsed' OR status = 'parse_errors' OR status = 'asset' OR status = 'binary' OR status = 'too_large' OR status = 'unreadable'),
    detail     TEXT,                 -- why a file was skipped or what failed, for people; NULL when all went well
    generation INTEGER NOT NULL      -- meta generation of the run that last (re)parsed or (re)hashed this file
) STRICT;

-- Symbols, and one node of kind 'file' per file.
CREATE TABLE nodes (
    id             INTEGER PRIMARY KEY,
    key            TEXT NOT NULL UNIQUE, -- identity: 'file:PATH', 'mod:PATH::Q', 'func:PATH::Q', 'class:PATH::Q';
                                         -- a second definition with the same key gets '#2', '#3', ...
    file_id        INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE, -- the file that defines it
    kind           TEXT NOT NULL         -- 'file' | 'module' | 'function' | 'method' | 'class' | 'struct' | 'enum' | 'trait' | 'interface'
                   CHECK (kind = 'file' OR kind = 'module' OR kind = 'function' OR kind = 'method' OR kind = 'class' OR kind = 'struct' OR kind = 'enum' OR kind = 'trait' OR kind = 'interface'),
    name           TEXT NOT NULL,        -- bare name ('area'); the path for a file node
    qualified_name TEXT NOT NULL,        -- enclosing names joined by '::' ('Shape::area'); the path for a file node
    signature      TEXT,                 -- declaration up to its body, whitespace collapsed, at most 200 characters
    start_line     INTEGER NOT NULL,     -- 1-based first line
    end_line       INTEGER NOT NULL,     -- 1-based last line, inclusive
    start_byte     INTEGER NOT NULL,     -- byte offset of the first byte
    end_byte       INTEGER NOT NULL,     -- byte offset one past the last byte
    parent_id      INTEGER REFERENCES nodes (id) ON DELETE CASCADE -- innermost enclosing symbol; the file node for top-level symbols; NULL for file nodes
) STRICT;
CREATE INDEX nodes_file ON nodes (file_id);
CREATE INDEX nodes_name ON nodes (name);
CREATE INDEX nodes_parent ON nodes (parent_id); -- also serves the ON DELETE CASCADE of parent_id

-- References found in source: every import specifier, call site and base-class name,
-- resolved or not. An edge of kind imports/calls/inherits/implements always comes from
-- one row here; a row whose dst_id is NULL is unresolved and stays so until a later run
-- can resolve it (nothing is guessed).
CREATE TABLE refs (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE, -- file the reference is written in
    src_id      INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE, -- enclosing node: the function making the call, or the file node
    kind        TEXT NOT NULL            -- 'import' | 'call' | 'inherit' | 'implement'
                CHECK (kind = 'import' OR kind = 'call' OR kind = 'inherit' OR kind = 'implement'),
    form        TEXT,                    -- imports: 'import' | 'reexport' | 'require' | 'dynamic' | 'mod' | 'use'; calls: NULL
    name        TEXT NOT NULL,           -- imports: the specifier as written; calls and bases: the bare called/base name
    qualifier   TEXT,                    -- calls: text before the name ('self', 'os.path', 'Vec'); imports: Python 'from' names, comma-separated
    line        INTEGER NOT NULL,        -- 1-based line of the reference
    flags       INTEGER NOT NULL DEFAULT 0, -- bit 0: Python import under 'if TYPE_CHECKING:'
    status      TEXT NOT NULL DEFAULT 'unresolved' -- 'resolved' | 'unresolved' (no candidate) | 'ambiguous' (several, none preferred) | 'external' (a package outside the workspace)
                CHECK (status = 'resolved' OR status = 'unresolved' OR status = 'ambiguous' OR status = 'external'),
    candidates  INTEGER NOT NULL DEFAULT 0 -- how many definitions matched (calls); 0 when none
) STRICT;
CREATE INDEX refs_file ON refs (file_id);
CREATE INDEX refs_name ON refs (name);
CREATE INDEX refs_src ON refs (src_id); -- serves the ON DELETE CASCADE from nodes
CREATE INDEX refs_status ON refs (status) WHERE status <> 'resolved';

-- Relations between nodes. 'contains': parent to child symbol (file to top-level
-- symbols). 'imports': file to file. 'calls': function (or file, at module level) to
-- function. 'inherits' / 'implements': class to base class, trait or interface.
CREATE TABLE edges (
    id         INTEGER PRIMARY KEY,
    src_id     INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    dst_id     INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind = 'imports' OR kind = 'calls' OR kind = 'contains' OR kind = 'inherits' OR kind = 'implements'),
    file_id    INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE, -- file in which the relation is written
    line       INTEGER,                 -- 1-based line of the reference; NULL for 'contains'
    confidence REAL NOT NULL,           -- 1.0 certain; calls: 0.95 same file, 0.8 imported file, 0.5 unique global name (see ARCHITECTURE.md)
    ref_id     INTEGER REFERENCES refs (id) ON DELETE CASCADE -- the reference this edge resolves; NULL for 'contains'
) STRICT;
CREATE INDEX edges_src ON edges (src_id, kind);
CREATE INDEX edges_dst ON edges (dst_id, kind);
CREATE INDEX edges_ref ON edges (ref_id);
CREATE INDEX edges_file ON edges (file_id);

-- One row per committed index run.
CREATE TABLE index_runs (
    id             INTEGER PRIMARY KEY,
    started_at     TEXT NOT NULL,       -- ISO-8601 UTC
    duration_ms    INTEGER NOT NULL,    -- wall time of the whole run
    full           INTEGER NOT NULL,    -- 1 when --full rebuilt everything
    files_seen     INTEGER NOT NULL,    -- files the walk found
    files_hashed   INTEGER NOT NULL,    -- files read and hashed because their stat moved (or new)
    files_parsed   INTEGER NOT NULL,    -- files parsed because their digest changed (or new)
    files_removed  INTEGER NOT NULL,    -- files gone from disk, removed with their nodes and edges
    refs_resolved  INTEGER NOT NULL,    -- references (re)resolved in this run
    generation     INTEGER NOT NULL     -- meta generation after this run
) STRICT;

-- Views for the common questions.

-- File-level dependencies with paths: one row per import statement that resolved.
CREATE VIEW file_imports AS
SELECT sf.path AS src_path, df.path AS dst_path, e.line AS line, r.name AS specifier
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
LEFT JOIN refs r ON r.id = e.ref_id
WHERE e.kind = 'imports';

-- Call edges with caller and callee names and where they are.
CREATE VIEW call_edges AS
SELECT s.qualified_name AS caller, sf.path AS caller_path, e.line AS line,
       d.qualified_name AS callee, df.path AS callee_path, d.start_line AS callee_line,
       e.confidence AS confidence
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
WHERE e.kind = 'calls';

-- Symbols with their file, one row per definition (file nodes excluded).
CREATE VIEW symbols AS
SELECT n.id, f.path, n.kind, n.name, n.qualified_name, n.signature, n.start_line, n.end_line
FROM nodes n JOIN files f ON f.id = n.file_id
WHERE n.kind <> 'file';

-- Symbol counts per file and kind.
CREATE VIEW file_symbol_counts AS
SELECT f.path, n.kind, count(*) AS symbols
FROM nodes n JOIN files f ON f.id = n.file_id
WHERE n.kind <> 'file'
GROUP BY f.path, n.kind;

-- Files by number of distinct files they import or are imported by.
CREATE VIEW hubs AS
WITH pairs AS (SELECT DISTINCT src_path, dst_path FROM file_imports WHERE src_path <> dst_path),
     ends AS (SELECT src_path AS path FROM pairs UNION ALL SELECT dst_path FROM pairs)
SELECT path, count(*) AS connections FROM ends GROUP BY path ORDER BY connections DESC, path;

-- References that did not resolve to a node in this workspace.
CREATE VIEW unresolved_refs AS
SELECT r.id, f.path, r.kind, r.form, r.name, r.qualifier, r.line, r.status, r.candidates
FROM refs r JOIN files f ON f.id = r.file_id
WHERE r.status <> 'resolved';
