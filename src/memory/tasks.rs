//! The checklist tools: `update_tasks`, `get_all_tasks`,
//! `mark_task_as_done`, with the contract of the public `checklist-mcp-server`
//! (hierarchical tasks keyed by `sessionId`, a tree view with ✓ for DONE and ○ for TODO),
//! but stored in the memory database so tasks survive restarts and are shared between
//! processes, and a write never waits for an index run. Each call is one transaction
//! ([`WorkTx`]).
//!
//! Validation follows the original server: sessionId 1–100 chars of `[A-Za-z0-9_-]`;
//! taskId 1–20 chars, none of `/ \ : * ? " < > |`; description 1–1000 chars, not blank;
//! status `TODO` (default) or `DONE`; task ids unique among siblings. Unlike the
//! original, a `path` that names no task is an error (`not_found`), not a silent no-op.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tools::ToolError;

use super::work_tx::{TaskRow, WorkTx};
use super::MemoryStore;

/// Longest sessionId, in characters.
pub const MAX_SESSION_ID: usize = 100;
/// Longest taskId, in characters.
pub const MAX_TASK_ID: usize = 20;
/// Longest task description, in characters.
pub const MAX_DESCRIPTION: usize = 1000;
/// Longest `path`, in characters (as the original).
pub const MAX_PATH: usize = 500;
/// Characters of task ids and descriptions one session's tree may hold in all (about
/// 10,000 tokens): every task tool answers with the whole tree, and that answer must
/// fit a model's context.
pub const MAX_TREE_CHARS: usize = 40_000;
/// Characters a taskId may not contain (it is a path segment).
const TASK_ID_FORBIDDEN: &[char] = &['/', '\\', ':', '*', '?', '"', '<', '>', '|'];

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Status {
    /// Not done yet (the default).
    #[serde(rename = "TODO")]
    Todo,
    /// Done.
    #[serde(rename = "DONE")]
    Done,
}

impl Status {
    /// `TODO` or `DONE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Todo => "TODO",
            Status::Done => "DONE",
        }
    }
}

/// A task and its subtasks, as given to `update_tasks` and returned by every tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// 1–20 characters, none of `/ \ : * ? " < > |`; unique among its siblings.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// What the task is: 1–1000 characters.
    pub description: String,
    /// `TODO` (default) or `DONE`.
    #[serde(default = "default_status")]
    pub status: Status,
    /// Subtasks, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<Task>>,
}

fn default_status() -> Status {
    Status::Todo
}

/// Arguments of `update_tasks`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTasksArgs {
    /// The checklist session: 1–100 characters of letters, digits, `-` and `_`.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// Where to put `tasks`: `/` (default) replaces the whole list; `/a/b` replaces
    /// the children of task `b` under top-level task `a`.
    #[serde(default)]
    pub path: Option<String>,
    /// The new task list at `path` (replaces what was there, subtrees included).
    pub tasks: Vec<Task>,
}

/// Arguments of `get_all_tasks`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionArgs {
    /// The checklist session.
    #[serde(rename = "sessionId")]
    pub session_id: String,
}

/// Arguments of `mark_task_as_done`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkDoneArgs {
    /// The checklist session.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// The task to mark DONE (the first with this id, depth first, when ids repeat
    /// at different levels). Its children are left as they are.
    #[serde(rename = "taskId")]
    pub task_id: String,
}

/// What every checklist tool answers: the session's whole tree after the call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TasksAnswer {
    /// The session.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// What happened, in one sentence.
    pub message: String,
    /// The task tree (top-level tasks in order).
    pub tasks: Vec<Task>,
    /// The tree drawn as text: `├── ✓ id: description`, indented per level; `No tasks`
    /// when empty.
    pub tree: String,
    /// Tasks in the tree, at every level.
    #[serde(rename = "taskCount")]
    pub task_count: usize,
    /// Of which DONE.
    #[serde(rename = "doneCount")]
    pub done_count: usize,
}

impl TasksAnswer {
    fn new(session_id: &str, message: String, tasks: Vec<Task>) -> TasksAnswer {
        let (task_count, done_count) = count(&tasks);
        TasksAnswer {
            session_id: session_id.to_string(),
            message,
            tree: format_tree(&tasks),
            tasks,
            task_count,
            done_count,
        }
    }

    /// The answer as text for people: the message, then the tree.
    pub fn text(&self) -> String {
        format!("{}\nComplete task hierarchy:\n{}", self.message, self.tree)
    }
}

fn count(tasks: &[Task]) -> (usize, usize) {
    tasks.iter().fold((0, 0), |(n, d), t| {
        let (cn, cd) = count(t.children.as_deref().unwrap_or(&[]));
        (n + 1 + cn, d + usize::from(t.status == Status::Done) + cd)
    })
}

/// Checks a sessionId (1–100 chars of `[A-Za-z0-9_-]`).
pub fn validate_session_id(id: &str) -> Result<(), ToolError> {
    let n = id.chars().count();
    if n == 0 || n > MAX_SESSION_ID {
        return Err(ToolError::InvalidArgument(format!(
            "sessionId must be between 1 and {MAX_SESSION_ID} characters long (got {n})"
        )));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ToolError::InvalidArgument(format!(
            "sessionId {id:?} can only contain alphanumeric characters, hyphens, and underscores"
        )));
    }
    Ok(())
}

/// Checks a taskId (1–20 chars, none of `/ \ : * ? " < > |`). `context` says where it
/// was found, for the message.
pub fn validate_task_id(id: &str, context: &str) -> Result<(), ToolError> {
    let n = id.chars().count();
    if n == 0 || n > MAX_TASK_ID {
        return Err(ToolError::InvalidArgument(format!(
            "{context}taskId {id:?} must be between 1 and {MAX_TASK_ID} characters long (got {n})"
        )));
    }
    if let Some(c) = id.chars().find(|c| TASK_ID_FORBIDDEN.contains(c)) {
        return Err(ToolError::InvalidArgument(format!(
            "{context}taskId {id:?} contains {c:?}; a taskId may not contain any of / \\ : * ? \" < > |"
        )));
    }
    Ok(())
}

/// Parses `path` into task ids: `/`, empty or absent is the root (no segments).
fn parse_path(path: Option<&str>) -> Result<Vec<String>, ToolError> {
    let Some(path) = path.map(str::trim).filter(|p| !p.is_empty()) else {
        return Ok(Vec::new());
    };
    if path.chars().count() > MAX_PATH {
        return Err(ToolError::InvalidArgument(format!(
            "path cannot exceed {MAX_PATH} characters"
        )));
    }
    if path.contains("//") {
        return Err(ToolError::InvalidArgument(format!(
            "path {path:?} cannot contain consecutive slashes"
        )));
    }
    let segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    for s in &segments {
        validate_task_id(s, &format!("path {path:?}: "))?;
    }
    Ok(segments)
}

/// Checks a task list recursively: ids, descriptions, unique ids among siblings.
fn validate_tasks(tasks: &[Task], context: &str) -> Result<(), ToolError> {
    let mut seen = std::collections::HashSet::new();
    for (i, t) in tasks.iter().enumerate() {
        let here = format!("{context}[{i}]");
        validate_task_id(&t.task_id, &format!("{here}: "))?;
        let n = t.description.chars().count();
        if t.description.trim().is_empty() {
            return Err(ToolError::InvalidArgument(format!(
                "{here}: task {:?} description cannot be empty",
                t.task_id
            )));
        }
        if n > MAX_DESCRIPTION {
            return Err(ToolError::InvalidArgument(format!(
                "{here}: task {:?} description is too long ({n} characters, at most {MAX_DESCRIPTION})",
                t.task_id
            )));
        }
        if !seen.insert(t.task_id.as_str()) {
            return Err(ToolError::InvalidArgument(format!(
                "{context}: duplicate taskId {:?} among siblings",
                t.task_id
            )));
        }
        if let Some(children) = &t.children {
            validate_tasks(children, &format!("{here}.children"))?;
        }
    }
    Ok(())
}

/// Flattens `tasks` under `parent_path` into rows, depth first.
fn rows_of(tasks: &[Task], parent_path: &str, out: &mut Vec<TaskRow>) {
    for (i, t) in tasks.iter().enumerate() {
        let path = format!("{parent_path}/{}", t.task_id);
        out.push(TaskRow {
            path: path.clone(),
            parent_path: parent_path.to_string(),
            position: i as i64,
            task_id: t.task_id.clone(),
            description: t.description.clone(),
            status: t.status.as_str().to_string(),
        });
        if let Some(children) = &t.children {
            rows_of(children, &path, out);
        }
    }
}

/// Rebuilds the tree from rows. A task with no children has `children: None`.
fn tree_of(rows: Vec<TaskRow>) -> Vec<Task> {
    let mut by_parent: HashMap<String, Vec<TaskRow>> = HashMap::new();
    for r in rows {
        by_parent.entry(r.parent_path.clone()).or_default().push(r);
    }
    for children in by_parent.values_mut() {
        children.sort_by_key(|r| r.position);
    }
    fn build(parent: &str, by_parent: &mut HashMap<String, Vec<TaskRow>>) -> Vec<Task> {
        let Some(rows) = by_parent.remove(parent) else {
            return Vec::new();
        };
        rows.into_iter()
            .map(|r| {
                let children = build(&r.path, by_parent);
                Task {
                    task_id: r.task_id,
                    description: r.description,
                    status: if r.status == "DONE" {
                        Status::Done
                    } else {
                        Status::Todo
                    },
                    children: (!children.is_empty()).then_some(children),
                }
            })
            .collect()
    }
    build("", &mut by_parent)
}

/// Draws the tree as the original server does: `├── `/`└── ` branches, `│   `
/// indentation, `✓` for DONE and `○` for TODO, then `taskId: description`.
/// `No tasks` for an empty list.
pub fn format_tree(tasks: &[Task]) -> String {
    fn draw(tasks: &[Task], indent: &str, out: &mut Vec<String>) {
        for (i, t) in tasks.iter().enumerate() {
            let last = i + 1 == tasks.len();
            let mark = if t.status == Status::Done {
                '✓'
            } else {
                '○'
            };
            out.push(format!(
                "{indent}{}{mark} {}: {}",
                if last { "└── " } else { "├── " },
                t.task_id,
                t.description
            ));
            if let Some(children) = &t.children {
                draw(
                    children,
                    &format!("{indent}{}", if last { "    " } else { "│   " }),
                    out,
                );
            }
        }
    }
    if tasks.is_empty() {
        return "No tasks".to_string();
    }
    let mut lines = Vec::new();
    draw(tasks, "", &mut lines);
    lines.join("\n")
}

/// The session's tree read in `tx` (empty when the session has no tasks).
pub fn load_tree(tx: &WorkTx<'_>, session_id: &str) -> Result<Vec<Task>, ToolError> {
    Ok(tree_of(tx.session_tasks(session_id)?))
}

/// The current time as ISO-8601 UTC with milliseconds (`2026-11-22T17:04:05.123Z`), as
/// JavaScript's `toISOString`.
pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `update_tasks`: replaces the task list at `path` (the whole list at `/`; the
/// children of the addressed task otherwise) and returns the whole tree.
///
/// Errors: `invalid_argument` for a malformed sessionId, path or task (the message
/// names the task by its index, e.g. `tasks[0].children[1]`); `not_found` when `path`
/// names no task of the session.
pub fn update_tasks(store: &MemoryStore, args: &UpdateTasksArgs) -> Result<TasksAnswer, ToolError> {
    validate_session_id(&args.session_id)?;
    let segments = parse_path(args.path.as_deref())?;
    validate_tasks(&args.tasks, "tasks")?;
    let target = segments
        .iter()
        .fold(String::new(), |p, s| format!("{p}/{s}"));

    let mut conn = store.conn()?;
    let tx = WorkTx::write(&mut conn)?;
    if !target.is_empty() && !tx.task_exists(&args.session_id, &target)? {
        return Err(ToolError::NotFound(format!(
            "path {target:?} names no task of session {:?}; call get_all_tasks to see the tree",
            args.session_id
        )));
    }
    tx.touch_session(&args.session_id, &now_iso())?;
    tx.delete_below(&args.session_id, &target)?;
    let mut rows = Vec::new();
    rows_of(&args.tasks, &target, &mut rows);
    for r in &rows {
        tx.insert_task(&args.session_id, r)?;
    }
    let tree = load_tree(&tx, &args.session_id)?;
    let size = tree_chars(&tree);
    if size > MAX_TREE_CHARS {
        // Dropping the transaction rolls the write back.
        return Err(ToolError::InvalidArgument(format!(
            "tasks: the task tree of session {:?} would hold {size} characters of ids and descriptions, \
             over {MAX_TREE_CHARS} (every task tool answers with the whole tree, which must fit \
             a model's context): shorten the descriptions or split the work into sessions",
            args.session_id
        )));
    }
    tx.commit()?;

    let at = if target.is_empty() {
        String::new()
    } else {
        format!(" at path '{target}'")
    };
    let message = format!(
        "Successfully updated {} tasks{at} for session {}.",
        args.tasks.len(),
        args.session_id
    );
    Ok(TasksAnswer::new(&args.session_id, message, tree))
}

/// Characters of the ids and descriptions of `tasks` and all their subtasks.
fn tree_chars(tasks: &[Task]) -> usize {
    tasks
        .iter()
        .map(|t| {
            t.task_id.chars().count()
                + t.description.chars().count()
                + t.children.as_deref().map_or(0, tree_chars)
        })
        .sum()
}

/// `get_all_tasks`: the session's whole tree. A session with no tasks (or none yet)
/// answers an empty tree, not an error, as the original does.
///
/// Errors: `invalid_argument` for a malformed sessionId.
pub fn get_all_tasks(store: &MemoryStore, args: &SessionArgs) -> Result<TasksAnswer, ToolError> {
    validate_session_id(&args.session_id)?;
    let mut conn = store.conn()?;
    let tx = WorkTx::read(&mut conn)?;
    let tree = load_tree(&tx, &args.session_id)?;
    tx.commit()?;
    let message = if tree.is_empty() {
        format!("No tasks found for session {}.", args.session_id)
    } else {
        format!("Tasks for session {}:", args.session_id)
    };
    Ok(TasksAnswer::new(&args.session_id, message, tree))
}

/// Finds the path of the first task with `task_id`, depth first in tree order.
fn find_path(tasks: &[Task], task_id: &str, parent: &str) -> Option<String> {
    tasks.iter().find_map(|t| {
        let path = format!("{parent}/{}", t.task_id);
        if t.task_id == task_id {
            Some(path)
        } else {
            find_path(t.children.as_deref().unwrap_or(&[]), task_id, &path)
        }
    })
}

/// `mark_task_as_done`: sets one task's status to DONE (its children unchanged) and
/// returns the whole tree.
///
/// Errors: `invalid_argument` for a malformed sessionId or taskId; `not_found` when
/// the session has no tasks or no task has that id (the message names it).
pub fn mark_task_as_done(
    store: &MemoryStore,
    args: &MarkDoneArgs,
) -> Result<TasksAnswer, ToolError> {
    validate_session_id(&args.session_id)?;
    validate_task_id(&args.task_id, "")?;
    let mut conn = store.conn()?;
    let tx = WorkTx::write(&mut conn)?;
    let tree = load_tree(&tx, &args.session_id)?;
    if tree.is_empty() {
        return Err(ToolError::NotFound(format!(
            "no tasks found for session {:?}; create them with update_tasks",
            args.session_id
        )));
    }
    let Some(path) = find_path(&tree, &args.task_id, "") else {
        return Err(ToolError::NotFound(format!(
            "task {:?} not found in session {:?}",
            args.task_id, args.session_id
        )));
    };
    tx.set_task_status(&args.session_id, &path, Status::Done.as_str())?;
    tx.touch_session(&args.session_id, &now_iso())?;
    let tree = load_tree(&tx, &args.session_id)?;
    tx.commit()?;
    let message = format!("Task '{}' marked as DONE", args.task_id);
    Ok(TasksAnswer::new(&args.session_id, message, tree))
}

/// The session's tree as JSON (for a work snapshot), or `None` when the session does
/// not exist. Read inside the caller's transaction.
pub fn snapshot(tx: &WorkTx<'_>, session_id: &str) -> Result<Option<Value>, ToolError> {
    if !tx.session_exists(session_id)? {
        return Ok(None);
    }
    let tree = load_tree(tx, session_id)?;
    serde_json::to_value(tree)
        .map(Some)
        .map_err(|e| ToolError::Internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: Status, children: Option<Vec<Task>>) -> Task {
        Task {
            task_id: id.into(),
            description: format!("do {id}"),
            status,
            children,
        }
    }

    #[test]
    fn tree_text_matches_the_original_layout() {
        let tree = vec![
            task(
                "a",
                Status::Todo,
                Some(vec![
                    task("a1", Status::Done, None),
                    task(
                        "a2",
                        Status::Todo,
                        Some(vec![task("x", Status::Todo, None)]),
                    ),
                ]),
            ),
            task("b", Status::Done, None),
        ];
        assert_eq!(
            format_tree(&tree),
            "├── ○ a: do a\n│   ├── ✓ a1: do a1\n│   └── ○ a2: do a2\n│       └── ○ x: do x\n└── ✓ b: do b"
        );
        assert_eq!(format_tree(&[]), "No tasks");
        assert_eq!(count(&tree), (5, 2));
    }

    #[test]
    fn rows_round_trip_to_the_same_tree() {
        let tree = vec![
            task("a", Status::Todo, Some(vec![task("b", Status::Done, None)])),
            task("c", Status::Todo, None),
        ];
        let mut rows = Vec::new();
        rows_of(&tree, "", &mut rows);
        assert_eq!(
            rows.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(),
            ["/a", "/a/b", "/c"]
        );
        rows.reverse();
        assert_eq!(tree_of(rows), tree);
    }

    #[test]
    fn validation_messages_name_the_problem() {
        assert!(validate_session_id("ok_id-1").is_ok());
        let e = validate_session_id("bad id").unwrap_err().to_string();
        assert!(
            e.starts_with("invalid_argument: ") && e.contains("alphanumeric"),
            "{e}"
        );
        let e = validate_session_id(&"x".repeat(101))
            .unwrap_err()
            .to_string();
        assert!(e.contains("between 1 and 100"), "{e}");
        let e = validate_task_id("a/b", "").unwrap_err().to_string();
        assert!(e.contains("'/'"), "{e}");
        let e = validate_task_id(&"t".repeat(21), "")
            .unwrap_err()
            .to_string();
        assert!(e.contains("between 1 and 20"), "{e}");
        assert_eq!(parse_path(Some("/")).unwrap(), Vec::<String>::new());
        assert_eq!(parse_path(Some("a/b/")).unwrap(), ["a", "b"]);
        assert!(parse_path(Some("/a//b")).is_err());
        let dup = vec![task("a", Status::Todo, None), task("a", Status::Done, None)];
        let e = validate_tasks(&dup, "tasks").unwrap_err().to_string();
        assert!(e.contains("duplicate taskId \"a\""), "{e}");
    }
}
