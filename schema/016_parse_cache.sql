-- 016_parse_cache: the facts of file contents parsed before, by blake3 digest.
--
-- A branch switch, a rebase or a second worktree brings back file contents that an
-- earlier run already parsed. Parsing is the largest part of such a run; the facts a
-- parse yields (symbols, imports, calls, references, bases, exports) depend only on
-- the content, the language and the build that extracted them. Incremental runs keep
-- the facts of what they parse here; a later run that finds a content's digest here
-- decodes them instead of parsing. A build from nothing neither reads nor writes it.
-- The least recently used rows go first once the blobs pass the cap (64 MiB).

CREATE TABLE parse_cache (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL /* blake3 of the file's bytes, 64 hex digits */,
    language TEXT NOT NULL /* files.language the facts were extracted as */,
    extractor TEXT NOT NULL /* the build that extracted them: crate version and a digest of its extraction sources; a row of another build is never reused */,
    size INTEGER NOT NULL /* length(facts), kept for the cap */,
    used INTEGER NOT NULL /* the index generation that last stored or reused it */,
    facts BLOB NOT NULL /* lang::FileFacts, postcard-encoded; last, so reading the other columns never walks its overflow pages */
);
CREATE UNIQUE INDEX parse_cache_key ON parse_cache (extractor, digest, language);
-- The cap's sum and its least-recently-used order read this index alone, not the blobs.
CREATE INDEX parse_cache_used ON parse_cache (used, size);
