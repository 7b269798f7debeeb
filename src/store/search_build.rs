//! The `symbol_search` table of a build from nothing, built on a thread of its own.
//!
//! In a build from nothing, writing each node's full-text row (identifier splitting,
//! FTS5 tokenizing, segment flushes and merges) was about a third of the writer
//! thread's work, and that thread shares the two cores with the parsers. Here the rows
//! go to a thread that builds the same FTS5 table in a database file of its own beside
//! the build's (`DB.partial-PID-search`). The rows wait in memory until the parsing
//! ends ([`SearchBuild::go`]); the thread then writes them on the core that the
//! single-threaded resolution leaves idle. (A thread at a lower priority instead could
//! starve behind other programs: this one runs at normal priority when it runs.)
//! After the build commits, [`SearchBuild::finish`]
//! copies the finished table's storage (its four shadow tables, `symbol_search_data`,
//! `_idx`, `_docsize` and `_config`) into the build's empty table, in one transaction,
//! before the file is published. Both tables come from the same `CREATE VIRTUAL TABLE`
//! text, so the copy is the index FTS5 would have written itself.
//!
//! Only a private build file ([`super::Store::open_private`]) uses it: nobody reads that
//! file before it is published, so nobody sees it between the two commits. A failed or
//! dropped build removes the side file; one left by a killed process is removed by the
//! next build's cleanup of stale `DB.partial-PID*` files.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::Connection;

use super::symbol_search::{insert_row, search_columns};
use super::StoreError;

/// The FTS5 shadow tables of `symbol_search`, which together hold its whole index.
const SHADOW_TABLES: [&str; 4] = [
    "symbol_search_data",
    "symbol_search_idx",
    "symbol_search_docsize",
    "symbol_search_config",
];

/// The parts of one node's search row (see [`search_columns`]), packed in one
/// allocation: a Linux kernel build holds 860k of them until this thread has written
/// them, beside the resolver's loaded symbols. Held as four strings each, the build's
/// peak was 1,031–1,065 MiB; packed, 973–987 MiB.
pub(super) struct Row {
    pub id: i64,
    /// The name, qualified name, kind and signature, one after the other.
    text: Box<str>,
    /// Where the qualified name, the kind and the signature start in `text`.
    starts: [u32; 3],
    has_signature: bool,
    /// The file's path parts and language, shared by its nodes.
    pub file: Arc<(String, String)>,
}

impl Row {
    /// Packs the parts of node `id`'s row.
    ///
    /// Panics: when the texts together exceed 4 GiB (a node's are at most a line each).
    pub fn new(
        id: i64,
        name: &str,
        qualified_name: &str,
        kind: &str,
        signature: Option<&str>,
        file: Arc<(String, String)>,
    ) -> Row {
        let signature_text = signature.unwrap_or("");
        let mut text = String::with_capacity(
            name.len() + qualified_name.len() + kind.len() + signature_text.len(),
        );
        let mut starts = [0u32; 3];
        for (i, part) in [name, qualified_name, kind].into_iter().enumerate() {
            text.push_str(part);
            starts[i] = u32::try_from(text.len()).expect("a node's texts fit in 4 GiB");
        }
        text.push_str(signature_text);
        Row {
            id,
            text: text.into_boxed_str(),
            starts,
            has_signature: signature.is_some(),
            file,
        }
    }

    pub fn name(&self) -> &str {
        &self.text[..self.starts[0] as usize]
    }

    pub fn qualified_name(&self) -> &str {
        &self.text[self.starts[0] as usize..self.starts[1] as usize]
    }

    pub fn kind(&self) -> &str {
        &self.text[self.starts[1] as usize..self.starts[2] as usize]
    }

    pub fn signature(&self) -> Option<&str> {
        self.has_signature
            .then(|| &self.text[self.starts[2] as usize..])
    }
}

/// A `symbol_search` table being built beside a build from nothing.
pub struct SearchBuild {
    sender: Option<Sender<Row>>,
    go: Option<Sender<()>>,
    thread: Option<JoinHandle<Result<(), StoreError>>>,
    side: PathBuf,
}

impl SearchBuild {
    /// Starts the thread, with the side file `DB-search` beside the build file `db`,
    /// whose table is created from `main`'s own `CREATE VIRTUAL TABLE` text.
    ///
    /// Errors: [`StoreError::Sqlite`] when `main` has no `symbol_search` table.
    pub(super) fn start(main: &Connection, db: &Path) -> Result<SearchBuild, StoreError> {
        let create: String = main.query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'symbol_search'",
            [],
            |r| r.get(0),
        )?;
        let side = PathBuf::from(format!("{}-search", db.display()));
        let _ = std::fs::remove_file(&side);
        let (sender, receiver) = channel();
        let (go, started) = channel();
        let path = side.clone();
        let thread = std::thread::Builder::new()
            .name("search-build".into())
            .spawn(move || build(&path, &create, started, receiver))
            .map_err(|e| StoreError::SearchBuild(format!("starting its thread: {e}")))?;
        Ok(SearchBuild {
            sender: Some(sender),
            go: Some(go),
            thread: Some(thread),
            side,
        })
    }

    /// Lets the thread start writing the rows it was handed, and those to come: the
    /// build calls it when the parsers are done with the cores.
    pub fn go(&mut self) {
        if let Some(go) = self.go.take() {
            let _ = go.send(());
        }
    }

    /// Hands a node's row to the thread. A thread that has stopped (an error it
    /// reports at [`SearchBuild::finish`]) drops it.
    pub(super) fn send(&self, row: Row) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(row);
        }
    }

    /// Waits for the thread to write every row, then copies its table into the
    /// `symbol_search` table of the committed build file `db`, which must be empty, in
    /// one transaction of a connection of its own; removes the side file.
    ///
    /// Errors: what the thread met ([`StoreError::Sqlite`], or
    /// [`StoreError::SearchBuild`] if it panicked), and the copy's SQLite errors.
    pub fn finish(mut self, db: &Path) -> Result<(), StoreError> {
        self.go();
        self.wait()?;
        let conn = Connection::open(db)?;
        conn.execute_batch("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;")?;
        conn.execute("ATTACH DATABASE ?1 AS side", [self.side.to_string_lossy()])?;
        let mut copy = String::from("BEGIN IMMEDIATE;");
        for table in SHADOW_TABLES {
            copy.push_str(&format!(
                "DELETE FROM main.{table}; INSERT INTO main.{table} SELECT * FROM side.{table};"
            ));
        }
        copy.push_str("COMMIT;");
        let copied = conn.execute_batch(&copy);
        if copied.is_err() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        conn.execute_batch("DETACH DATABASE side")?;
        copied?;
        Ok(())
    }

    /// Closes the channels and joins the thread: its result. A thread never told to
    /// start (a build that failed first) sees its start channel close, and writes
    /// nothing.
    fn wait(&mut self) -> Result<(), StoreError> {
        self.sender = None;
        self.go = None;
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|_| {
                Err(StoreError::SearchBuild(
                    "its thread stopped with a panic".into(),
                ))
            }),
            None => Ok(()),
        }
    }
}

impl Drop for SearchBuild {
    fn drop(&mut self) {
        let _ = self.wait();
        let _ = std::fs::remove_file(&self.side);
    }
}

/// The thread: once told to start, creates the table in a new file at `side` and
/// writes every row it receives, in one transaction, until the channel closes.
fn build(
    side: &Path,
    create: &str,
    started: Receiver<()>,
    rows: Receiver<Row>,
) -> Result<(), StoreError> {
    if started.recv().is_err() {
        // Dropped before it was told to start: the build failed.
        return Ok(());
    }
    let mut conn = Connection::open(side)?;
    // A scratch file: no journal, no fsync; the build's own file is what must survive.
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384;",
    )?;
    conn.execute_batch(create)?;
    let tx = conn.transaction()?;
    for row in rows {
        let columns = search_columns(
            row.name(),
            row.qualified_name(),
            row.signature(),
            row.kind(),
            &row.file.0,
            &row.file.1,
        );
        insert_row(&tx, row.id, &columns)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index database in memory, with its `symbol_search` table.
    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::INDEX_DB
            .migrate(&mut conn, Path::new(":memory:"))
            .unwrap();
        conn
    }

    fn row(id: i64, name: &str, file: &Arc<(String, String)>) -> Row {
        Row::new(id, name, name, "function", None, Arc::clone(file))
    }

    #[test]
    fn a_packed_row_gives_back_its_parts() {
        let file = Arc::new(("a py".to_string(), "python".to_string()));
        let r = Row::new(
            7,
            "größe",
            "Box::größe",
            "method",
            Some("fn größe(&self) -> usize"),
            Arc::clone(&file),
        );
        assert_eq!(
            (r.id, r.name(), r.qualified_name(), r.kind(), r.signature()),
            (
                7,
                "größe",
                "Box::größe",
                "method",
                Some("fn größe(&self) -> usize")
            )
        );
        let r = Row::new(8, "", "", "file", None, Arc::clone(&file));
        assert_eq!(
            (r.name(), r.qualified_name(), r.kind(), r.signature()),
            ("", "", "file", None)
        );
        let r = Row::new(9, "f", "m.f", "function", Some(""), file);
        assert_eq!(r.signature(), Some(""));
    }

    /// A build that fails before the parsing ends drops its search build unstarted:
    /// the drop returns (it once waited forever for a start that never came), and no
    /// side file is left.
    #[test]
    fn a_build_dropped_before_it_starts_ends_at_once_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db.partial-1");
        let build = SearchBuild::start(&database(), &db).unwrap();
        let file = Arc::new(("a py".to_string(), "python".to_string()));
        build.send(row(1, "parse_request", &file));
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            drop(build);
            let _ = done.send(());
        });
        finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("dropping an unstarted search build must not wait for it");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    /// Started, it writes every row handed to it, before and after the start, and
    /// `finish` copies them into the build file's empty table.
    #[test]
    fn finish_copies_every_row_into_the_build_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let mut conn = Connection::open(&db).unwrap();
        super::super::schema::INDEX_DB
            .migrate(&mut conn, &db)
            .unwrap();
        let mut build = SearchBuild::start(&conn, &db).unwrap();
        let file = Arc::new(("a py".to_string(), "python".to_string()));
        build.send(row(1, "parse_request", &file));
        build.go();
        build.send(row(2, "read_body", &file));
        build.finish(&db).unwrap();
        let ids: Vec<i64> = conn
            .prepare("SELECT rowid FROM symbol_search WHERE symbol_search MATCH 'parts:parse OR parts:body' ORDER BY rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(ids, vec![1, 2]);
        assert!(!dir.path().join("index.db-search").exists());
    }
}
