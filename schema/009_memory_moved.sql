-- 009_memory_moved: agent memory leaves the index database.
--
-- Checklists, work hand-offs, thoughts, audits and saved file documents now live in
-- their own database file (`memory.db` beside this one, schema/memory/*.sql), so an
-- agent's write never waits for an index run, which holds this database's write lock
-- for the whole run. Their tables here are renamed `legacy_*`: the first open by a
-- Workspace copies their rows into the memory database (src/memory/upgrade.rs) and then
-- drops them (`Store::drop_legacy_memory`). A database built from nothing gets them
-- empty from migrations 002, 003 and 005 and loses them the same way. Until they are
-- dropped nothing reads or writes them, and unqualified names in user SQL (`tasks`,
-- `file_docs`, ...) reach the memory database, which `query_index` attaches as `memory`.

DROP VIEW recent_works;
DROP VIEW open_tasks;
ALTER TABLE task_sessions RENAME TO legacy_task_sessions;
ALTER TABLE tasks RENAME TO legacy_tasks;
ALTER TABLE work_info RENAME TO legacy_work_info;
ALTER TABLE thoughts RENAME TO legacy_thoughts;
ALTER TABLE audit_sessions RENAME TO legacy_audit_sessions;
ALTER TABLE audit_history RENAME TO legacy_audit_history;
ALTER TABLE file_docs RENAME TO legacy_file_docs;
-- meta 'work_access_seq' stays until the copy has read it; the drop removes it.
