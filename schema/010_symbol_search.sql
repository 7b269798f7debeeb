-- 010_symbol_search: full-text search over symbols (the search_symbols tool).
--
-- One row per node (rowid = nodes.id), written by the indexer beside each node and
-- deleted with it (a re-parsed file's symbols are replaced, a removed file's vanish, in
-- the run's transaction). The text is not stored (contentless table): the tool reads
-- names, paths and lines from `nodes`. Every column holds lowercase tokens made by the
-- indexer: identifier parts are split at snake_case, camelCase and acronym boundaries
-- (`parseHTTPResponse` → `parse http response`), so the tokenizer only separates words.
-- `_` is a token character, so the whole-name tokens keep their underscores.
--
-- The rows of older databases would be missing, so this migration empties the index
-- tables (derived from the workspace) and the next index run rebuilds them, with their
-- search rows. Agent memory is in its own database and untouched.

CREATE VIRTUAL TABLE symbol_search USING fts5 (
    name,      -- the whole name as one token: lowercased, other characters than letters and digits as '_' ('parse_http_response', 'parsehttpresponse'; a file node's path 'src_a_rs')
    rname,     -- that token reversed ('esnopser_ptth_esrap'): the typo fallback looks names up by their last letters
    parts,     -- the identifier parts of the name ('parse http response')
    scope,     -- the identifier parts of the enclosing names of qualified_name ('Shape::area' -> 'shape')
    path,      -- the identifier parts of the defining file's path ('src tools drill rs')
    signature, -- the identifier parts of the signature ('fn parse s str result ast')
    kind,      -- nodes.kind ('function', 'method', 'class', ..., 'file'): filters match it as a token
    language,  -- files.language ('rust', 'python', ...; 'none' for a file not parsed as code)
    content = '',
    contentless_delete = 1,
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'",
    prefix = '2 3'
);

-- The terms of symbol_search with the column they occur in (one row per term and
-- column; fts5vocab 'col' table, no storage of its own): the typo fallback reads the
-- 'name' and 'rname' terms in a range of leading letters.
CREATE VIRTUAL TABLE symbol_search_terms USING fts5vocab (symbol_search, 'col');

DELETE FROM edges;
DELETE FROM refs;
DELETE FROM nodes;
DELETE FROM scip_files;
DELETE FROM files;
