-- 008_scip: precise mode. `constellation index --scip FILE` reads a compiler's SCIP
-- index (scip-python, scip-typescript, rust-analyzer, scip-java, scip-go, ...) and, in
-- the files it covers whose content still matches, replaces the heuristic resolution of
-- call and base references with the compiler's: edges with provenance 'scip' and
-- confidence 1.0, or status 'external' (a library, a builtin) with no edge.
--
-- A later run without --scip keeps those edges for the files that did not change and
-- whose references need no second resolution; a re-parsed file loses its row here (and
-- its references are resolved by the heuristic rules), as does any reference resolved
-- again because what it called changed (see ARCHITECTURE.md, `index::scip`).

-- Files whose call and base references were resolved from a SCIP index.
CREATE TABLE scip_files (
    file_id  INTEGER PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    digest   TEXT NOT NULL,    -- files.digest (blake3, 64 hex digits) of the content the SCIP document matched
    tool     TEXT NOT NULL,    -- the indexer that wrote it, from the SCIP metadata ('scip-python 0.6.6'; '' when not stated)
    refs     INTEGER NOT NULL  -- call and base references of the file that the SCIP index resolved (edge or 'external')
) STRICT;
