-- 014_drop_refs_status: the partial index of references by status goes.
--
-- No query of this program reads through it: the incremental resolver finds the
-- references to resolve again by name, file and key set, and the `possible_calls` view
-- is read through `refs_name` and `refs_src`. It held every reference not resolved
-- (about half of them) and cost every build from nothing a scan and a sort of the whole
-- `refs` table (about 0.1 s on the standard library). A query by status alone now scans
-- `refs`.

DROP INDEX IF EXISTS refs_status;
