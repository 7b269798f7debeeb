-- memory 003_file_docs: documentation the host model wrote for files and folders
--, in the agent-memory database: agents write it and it must outlive
-- re-indexing, so it never waits for, nor is touched by, an index run. Up to index
-- schema version 8 this table lived in the index database (schema/005_file_docs.sql);
-- an older index database's rows are copied here once.
--
-- `file_info` / `folder_info` hand the host model the structure of a file or folder
-- from the index; `report_file_info` / `report_folder_info` save what it writes back,
-- both as markdown under `.artifacts/src/` and as one row here. A row outlives index
-- runs: it is keyed by path, not by `files.id` (a re-index may delete and re-create
-- file rows), and it is only ever replaced by a newer report for the same path.
--
-- Staleness: `digest` is the blake3 digest of the documented content when the report
-- was saved. `file_info` compares it with the file's digest now; a folder's digest is
-- computed over its indexed files (see `tools::folder_info`). A differing digest
-- means the doc is stale: it is still shown, flagged, never deleted.

CREATE TABLE file_docs (
    kind          TEXT NOT NULL            -- 'file': a source file's doc; 'folder': a directory's README
                  CHECK (kind = 'file' OR kind = 'folder'),
    path          TEXT NOT NULL,           -- relative to the workspace root, '/' separators; '.' for the root folder
    digest        TEXT NOT NULL,           -- files: blake3 of the file's bytes when the report was saved (64 hex digits);
                                           -- folders: blake3 over the sorted 'path NUL digest LF' lines of the folder's indexed files
    markdown      TEXT NOT NULL,           -- the rendered document, exactly as written to artifact_path
    report        TEXT NOT NULL,           -- the report as the host model sent it (JSON: overview, inputs, outputs, functions or key_files, ...)
    artifact_path TEXT NOT NULL,           -- where the markdown was written, relative to the workspace root ('.artifacts/src/...')
    saved_at      TEXT NOT NULL,           -- ISO-8601 UTC time of the save
    PRIMARY KEY (kind, path)
) STRICT;
