-- 004_import_flags: how an import is guarded, where import edges are read.
--
-- refs.flags (001) is a bit set on import references; bit 0 existed before, bits 1 and 2
-- are new with this migration:
--   bit 0 (1): Python import inside the body of `if TYPE_CHECKING:` (only type checkers
--              run it)
--   bit 1 (2): conditional: inside a `try` statement or a branch of an `if` (other than
--              the body of `if TYPE_CHECKING:`), or a JS `switch` / `?:` — alternative
--              or optional imports such as `try: import ujson except ImportError:
--              import json`
--   bit 2 (4): deferred: inside a function body, so it runs when the function is
--              called, not when the module loads (a lazy `require()`, an import in a
--              `def`)
-- Every import edge is kept whatever its flags (as grimp and madge count them); the
-- view below lets a query leave out the edges that do not run at import time.

-- Rows written before this migration carry only bit 0: re-read and re-parse every code
-- file on the next run (its stat no longer matches, its digest is unknown), so that
-- an upgraded database ends up with the rows a fresh build writes.
UPDATE files SET mtime_ns = -1, digest = NULL WHERE language IS NOT NULL;

-- File-level dependencies with paths: one row per import statement that resolved
-- (as in 001), now with how it was written and guarded.
DROP VIEW file_imports;
CREATE VIEW file_imports AS
SELECT sf.path AS src_path,                 -- importing file
       df.path AS dst_path,                 -- imported file
       e.line AS line,                      -- 1-based line of the import
       r.name AS specifier,                 -- the specifier as written
       r.form AS form,                      -- 'import' | 'reexport' | 'require' | 'dynamic' | 'mod' | 'use'
       coalesce(r.flags, 0) AS flags,       -- refs.flags bits (see above)
       (coalesce(r.flags, 0) & 1) <> 0 AS type_checking, -- 1 under `if TYPE_CHECKING:`
       (coalesce(r.flags, 0) & 2) <> 0 AS conditional,   -- 1 inside try / if / switch / ?:
       (coalesce(r.flags, 0) & 4) <> 0 AS deferred       -- 1 inside a function body
FROM edges e
JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
LEFT JOIN refs r ON r.id = e.ref_id
WHERE e.kind = 'imports';
