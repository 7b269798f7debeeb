-- memory 001_work: checklists and work hand-offs in the agent-memory
-- database (`memory.db` beside the index database; see src/memory/db.rs for the name).
--
-- This database is written only by agent tool calls, never by an index run, so a write
-- here never waits for the indexer: an index run holds the index database's write lock
-- for the whole run, which is a different file. An agent that restarts, or a second
-- agent in another process, sees the same tasks and the same saved work. Every tool call
-- is one IMMEDIATE transaction over these tables. Nothing here refers to files or nodes.
-- The same tables lived in the index database up to its schema version 8
-- (schema/002_work.sql); an older index database's rows are copied here once.

-- Counters and markers of the memory database.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,  -- 'work_access_seq': the recency counter; 'legacy_import': set once the old index tables were copied
    value TEXT NOT NULL               -- the value, as text
) STRICT;

-- The counter behind work_info.access_seq: incremented by every save and every
-- get_work_by_id, inside the same transaction.
INSERT INTO meta (key, value) VALUES ('work_access_seq', '0');

-- A checklist session: exists from its first `update_tasks`, even with no tasks, so a
-- work save can tell "this session has no tasks" from "no such session".
CREATE TABLE task_sessions (
    session_id TEXT PRIMARY KEY NOT NULL,  -- the caller's sessionId: 1-100 chars of [A-Za-z0-9_-]
    created_at TEXT NOT NULL,              -- ISO-8601 UTC time of the first update_tasks
    updated_at TEXT NOT NULL               -- ISO-8601 UTC time of the last change to its tasks
) STRICT;

-- One row per task of a session's tree. A task is addressed by its path: the task ids
-- from the root down, '/'-separated ('/plan/tests'), which is unique in its session
-- because task ids are unique among siblings.
CREATE TABLE tasks (
    session_id  TEXT NOT NULL REFERENCES task_sessions (session_id) ON DELETE CASCADE,
    path        TEXT NOT NULL,     -- '/a/b': ids from the root to this task
    parent_path TEXT NOT NULL,     -- the parent's path; '' for a top-level task
    position    INTEGER NOT NULL,  -- 0-based order among its siblings
    task_id     TEXT NOT NULL,     -- the caller's taskId: 1-20 chars, none of / \ : * ? " < > |
    description TEXT NOT NULL,     -- 1-1000 chars
    status      TEXT NOT NULL CHECK (status = 'TODO' OR status = 'DONE'),
    PRIMARY KEY (session_id, path)
) STRICT, WITHOUT ROWID;
-- Children of a task in order (the tree is rebuilt from this).
CREATE INDEX tasks_by_parent ON tasks (session_id, parent_path, position);

-- Saved work hand-offs: a bounded LRU (capacity 10 unless configured). Recency is the
-- monotonic counter `access_seq`, never wall-clock time, so clock changes and two
-- processes saving in the same millisecond cannot reorder it.
CREATE TABLE work_info (
    work_id          INTEGER PRIMARY KEY NOT NULL
                     CHECK (work_id >= 10000000 AND work_id <= 99999999),  -- the 8-digit workId
    session_id       TEXT UNIQUE,       -- the sessionId it was saved with; a later save with it replaces this row
    work_timestamp   TEXT NOT NULL,     -- ISO-8601 UTC time of the save (e.g. 2026-11-22T17:04:05.123Z)
    work_description TEXT NOT NULL,     -- 1-200 chars: what to recognise it by
    work_summarize   TEXT NOT NULL,     -- 1-5000 chars: the hand-off itself
    work_tasks       TEXT,              -- JSON array: the session's task tree when saved (a static snapshot); NULL without a known session
    access_seq       INTEGER NOT NULL UNIQUE  -- value of meta 'work_access_seq' at the last save or get_work_by_id; larger = more recent
) STRICT;

-- Saved work, most recently used first (what get_recent_works_info lists).
CREATE VIEW recent_works AS
SELECT work_id, work_timestamp, work_description, session_id, access_seq
FROM work_info
ORDER BY access_seq DESC;

-- Tasks still to do, per session, ordered by path.
CREATE VIEW open_tasks AS
SELECT session_id, path, task_id, description
FROM tasks
WHERE status = 'TODO'
ORDER BY session_id, path;
