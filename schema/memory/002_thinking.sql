-- memory 002_thinking: `sequentialthinking` — the thoughts of each thinking
-- session, and the audit sessions that review the code written in those thoughts.
--
-- In the agent-memory database, which index runs never open: thoughts and reviews
-- survive re-indexing and server restarts, and recording one never waits for an index
-- run. Up to index schema version 8 these tables lived in the index database
-- (schema/003_thinking.sql); an older index database's rows are copied here once.
-- Times are ISO-8601 UTC with milliseconds ('2026-11-02T10:11:12.345Z').

-- Every thought the tool accepted, in arrival order. A thinking session is the set of
-- rows sharing a session_id; its history length and branch list are computed from
-- here exactly as the reference server computes them from its in-memory arrays.
CREATE TABLE thoughts (
    id                  INTEGER PRIMARY KEY,  -- arrival order across all sessions
    session_id          TEXT NOT NULL,        -- thinking session: `loopId`, or the session of the previous thought, or a new generated id for a plain thought 1
    thought             TEXT NOT NULL,        -- the thought as sent
    thought_number      INTEGER NOT NULL CHECK (thought_number >= 1),      -- `thoughtNumber` as sent
    total_thoughts      INTEGER NOT NULL CHECK (total_thoughts >= 1),      -- `totalThoughts` as answered: raised to thought_number when it was smaller
    next_thought_needed INTEGER NOT NULL CHECK (next_thought_needed = 0 OR next_thought_needed = 1), -- as answered (a `revise`/`reject` review may have forced it to 1)
    is_revision         INTEGER CHECK (is_revision = 0 OR is_revision = 1),  -- `isRevision`; NULL when not sent
    revises_thought     INTEGER,              -- `revisesThought`; NULL when not sent
    branch_from_thought INTEGER,              -- `branchFromThought`; NULL when not sent
    branch_id           TEXT,                 -- `branchId`; NULL when not sent. Listed in `branches` when branch_from_thought is set too
    needs_more_thoughts INTEGER CHECK (needs_more_thoughts = 0 OR needs_more_thoughts = 1), -- `needsMoreThoughts`; NULL when not sent
    audit_session_id    TEXT,                 -- audit session that reviewed this thought (audit_sessions.id); NULL when no audit ran
    audit_iteration     INTEGER,              -- audit_history.iteration of that review; NULL when no audit ran
    created_at          TEXT NOT NULL         -- when the thought was recorded
) STRICT;
CREATE INDEX thoughts_session ON thoughts (session_id, id);

-- One row per audit session: `branchId` when the thought names one, else the thinking
-- session's id. Holds the configuration in force and the last review.
CREATE TABLE audit_sessions (
    id          TEXT PRIMARY KEY NOT NULL, -- the `sessionId` answered to the caller; a row found unreadable is renamed 'ID#corrupt-UNIXMILLIS' and a new one started
    config      TEXT NOT NULL,             -- JSON SessionConfig: task, scope, paths, threshold, maxCycles, candidates, judges, applyFixes
    last_review TEXT,                      -- JSON GanReview of the latest audit; NULL before the first
    iterations  INTEGER NOT NULL DEFAULT 0 CHECK (iterations >= 0), -- audits run in this session (= the highest audit_history.iteration)
    created_at  TEXT NOT NULL,             -- when the session started
    updated_at  TEXT NOT NULL              -- when its config or last review last changed
) STRICT;

-- Every review of every audit session, in order: the score progression and the
-- candidate each review judged (the next candidate is compared with it to detect
-- stagnation).
CREATE TABLE audit_history (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT NOT NULL REFERENCES audit_sessions (id) ON DELETE CASCADE ON UPDATE CASCADE, -- the audit session
    iteration      INTEGER NOT NULL CHECK (iteration >= 1), -- 1 for the session's first review, then 2, 3, ...
    thought_number INTEGER NOT NULL,  -- `thoughtNumber` of the thought that was audited
    candidate      TEXT NOT NULL,     -- the code judged (the chosen candidate), as one text
    overall        INTEGER NOT NULL CHECK (overall >= 0 AND overall <= 100), -- combined score of the review
    verdict        TEXT NOT NULL CHECK (verdict = 'pass' OR verdict = 'revise' OR verdict = 'reject'), -- the review's verdict
    review         TEXT NOT NULL,     -- the whole review, JSON GanReview
    created_at     TEXT NOT NULL,     -- when the review was recorded
    UNIQUE (session_id, iteration)    -- also serves the foreign key's cascades
) STRICT;
