//! How one row of the registration table becomes an rmcp tool route: the tool's
//! metadata (schemas derived from its argument and answer types, behaviour hints) and
//! one call path shared by every tool.
//!
//! The call path: parse the arguments ([`Args::parse`], failures are `invalid_argument`),
//! pick the workspace they address ([`Args::root`]), run the tool function on
//! `spawn_blocking`, turn its answer into a result ([`Answer::into_result`]). Any
//! [`ToolError`] becomes a tool result with `isError: true` whose text starts with its
//! [`crate::tools::ErrorCode`], never a JSON-RPC error. Nothing here knows a tool by name.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};

use rmcp::handler::server::common::schema_for_type;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations,
};

use super::answers::Answer;
use super::arguments::Args;
use super::Server;
use crate::tools::status;
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// A tool's behaviour hints (the MCP `annotations`). `destructive` is left out of the
/// listing when `None`, which clients read as "not applicable" for read-only tools.
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    /// The tool changes nothing.
    pub read_only: bool,
    /// A write may overwrite or drop what was there.
    pub destructive: Option<bool>,
    /// Calling again with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches beyond the workspace (another program, the network).
    pub open_world: bool,
}

/// Reads the index and files only.
pub const READ_ONLY: Hints = Hints {
    read_only: true,
    destructive: None,
    idempotent: true,
    open_world: false,
};

/// Writes (a document, a record, the default workspace) without dropping anything.
pub const WRITES: Hints = Hints {
    read_only: false,
    destructive: Some(false),
    idempotent: true,
    open_world: false,
};

/// Replaces what was stored before with the arguments.
pub const REPLACES: Hints = Hints {
    read_only: false,
    destructive: Some(true),
    idempotent: true,
    open_world: false,
};

impl From<Hints> for ToolAnnotations {
    fn from(h: Hints) -> ToolAnnotations {
        ToolAnnotations::from_raw(
            None,
            Some(h.read_only),
            h.destructive,
            Some(h.idempotent),
            Some(h.open_world),
        )
    }
}

/// What a tool function runs with, on the blocking pool.
pub struct Call {
    /// The workspace the call addresses: the default one, or the arguments' root.
    pub ws: Arc<Workspace>,
    /// The default workspace as the call began.
    pub default: Arc<Workspace>,
    /// The server's default workspace, shared by all its clones (`set_workspace_root`
    /// moves it with [`Call::make_default`]).
    default_slot: Arc<RwLock<Arc<Workspace>>>,
    /// How many saved work entries the LRU keeps.
    pub work_capacity: usize,
    /// The server, for the tools that report on it (`get_status`).
    server: Server,
}

impl Call {
    /// Makes the call's workspace the server's default for later calls.
    ///
    /// Errors: `internal` when the lock is poisoned.
    pub fn make_default(&self) -> Result<(), ToolError> {
        let mut slot = self
            .default_slot
            .write()
            .map_err(|_| ToolError::Internal("default workspace lock poisoned".into()))?;
        *slot = Arc::clone(&self.ws);
        Ok(())
    }

    /// Every workspace the server has opened, the default among them.
    ///
    /// Errors: `internal` when the table's lock is poisoned.
    pub fn open_workspaces(&self) -> Result<Vec<Arc<Workspace>>, ToolError> {
        self.server.open_workspaces()
    }

    /// Clients connected to the server now.
    pub fn clients(&self) -> usize {
        self.server.clients()
    }

    /// How clients reach the server: `stdio` or `http`.
    pub fn transport(&self) -> &'static str {
        self.server.transport_name()
    }
}

/// A tool function: the same one the CLI calls, given the call's workspace and the
/// parsed arguments. Runs on the blocking pool.
pub type Run<A, R> = fn(&Call, A) -> Result<R, ToolError>;

/// The route of one tool: `name`, `description` and `hints` as listed; `inputSchema`
/// from `A`'s schema type, `outputSchema` from `R` (absent when `R` has no fixed shape);
/// a call runs `run`.
pub fn tool<A: Args, R: Answer>(
    name: &'static str,
    hints: Hints,
    description: &'static str,
    run: Run<A, R>,
) -> ToolRoute<Server> {
    let input = listed_input(&schema_for_type::<A::Schema>());
    let mut attr = Tool::new(name, description, Arc::new(input)).annotate(hints.into());
    attr.output_schema = Some(Arc::new(match R::output_schema() {
        Some(schema) => listed_output(&schema),
        None => any_object(),
    }));
    ToolRoute::new_dyn(attr, move |cx| dispatch(cx, run))
}

/// The input schema as `tools/list` sends it: what a client needs to build a call and
/// nothing else, since every client pays the tool list in context tokens. Dropped:
/// `$schema`, the type's `title` and own `description` (the tool's description says
/// it), `format` (schemars' `uint32`, `double`, ... are not JSON Schema formats),
/// `minimum: 0` of unsigned numbers (the server checks ranges itself), `writeOnly`,
/// `additionalProperties: false` and `default: null` (the server refuses unknown
/// arguments itself), and the descriptions of definitions (the property using one has
/// its own); an optional property's `[T, "null"]` type is `T` and its
/// `anyOf: [X, null]` is X (leaving it out means the default), an `anyOf` of bare
/// types one `type` list; a unit enum's `oneOf` of constants is an `enum`, inlined
/// where it is used.
/// Parameter descriptions stay: they are the tool's documentation.
pub fn listed_input(schema: &JsonObject) -> JsonObject {
    let mut out = schema.clone();
    for key in ["$schema", "title", "description"] {
        out.remove(key);
    }
    compact_input(&mut out);
    inline_enums(&mut out);
    out
}

/// Replaces each `$ref` to a definition that is a plain enum (`{type, enum}`) by the
/// definition itself (an optional one, `anyOf: [{$ref}, {type: null}]`, too), and
/// drops `$defs` when nothing refers to it any more.
fn inline_enums(schema: &mut JsonObject) {
    let Some(serde_json::Value::Object(defs)) = schema.get("$defs").cloned() else {
        return;
    };
    let is_enum = |d: &serde_json::Value| {
        d.as_object()
            .is_some_and(|d| d.contains_key("enum") && d.keys().all(|k| k == "enum" || k == "type"))
    };
    fn target<'d>(v: &serde_json::Value, defs: &'d JsonObject) -> Option<&'d serde_json::Value> {
        let name = v.get("$ref")?.as_str()?.rsplit('/').next()?;
        defs.get(name)
    }
    let mut left = false;
    if let Some(serde_json::Value::Object(props)) = schema.get_mut("properties") {
        for prop in props.values_mut() {
            let Some(prop) = prop.as_object_mut() else {
                continue;
            };
            let direct = target(&serde_json::Value::Object(prop.clone()), &defs).cloned();
            let optional = prop
                .get("anyOf")
                .and_then(|a| a.as_array())
                .filter(|a| a.len() == 2 && a[1].get("type") == Some(&"null".into()))
                .and_then(|a| target(&a[0], &defs))
                .cloned();
            match direct.or(optional) {
                Some(def) if is_enum(&def) => {
                    prop.remove("$ref");
                    prop.remove("anyOf");
                    if let Some(def) = def.as_object() {
                        for (k, v) in def {
                            prop.insert(k.clone(), v.clone());
                        }
                    }
                }
                _ => {
                    left |= prop.contains_key("$ref")
                        || prop.contains_key("anyOf")
                        || prop.get("items").is_some_and(|i| i.get("$ref").is_some())
                }
            }
        }
    }
    if !left {
        schema.remove("$defs");
    }
}

fn compact_input(schema: &mut JsonObject) {
    schema.remove("format");
    // schemars marks a field that is read but never written back (`skip_serializing`)
    // `writeOnly`; every argument is write-only to a client.
    schema.remove("writeOnly");
    if schema.get("additionalProperties") == Some(&serde_json::Value::Bool(false)) {
        schema.remove("additionalProperties");
    }
    if schema.get("default") == Some(&serde_json::Value::Null) {
        schema.remove("default");
    }
    consts_to_enum(schema);
    simplify_any_of(schema);
    if schema.get("minimum").and_then(|m| m.as_f64()) == Some(0.0)
        && is_integer_type(schema.get("type"))
    {
        schema.remove("minimum");
    }
    if let Some(serde_json::Value::Array(types)) = schema.get("type") {
        let non_null: Vec<serde_json::Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if non_null.len() == 1 {
            schema.insert("type".into(), non_null[0].clone());
        }
    }
    for (key, value) in schema.iter_mut() {
        match (key.as_str(), value) {
            ("properties", serde_json::Value::Object(map)) => {
                for sub in map.values_mut() {
                    if let serde_json::Value::Object(sub) = sub {
                        compact_input(sub);
                    }
                }
            }
            // A definition is described where a property uses it.
            ("$defs" | "definitions", serde_json::Value::Object(map)) => {
                for sub in map.values_mut() {
                    if let serde_json::Value::Object(sub) = sub {
                        sub.remove("description");
                        compact_input(sub);
                    }
                }
            }
            ("items" | "additionalProperties", serde_json::Value::Object(sub)) => {
                compact_input(sub)
            }
            ("anyOf" | "oneOf" | "allOf", serde_json::Value::Array(list)) => {
                for sub in list {
                    if let serde_json::Value::Object(sub) = sub {
                        compact_input(sub);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `anyOf: [X, {type: "null"}]` (an optional value) as X itself, since leaving the
/// argument out is how a client says "none"; `anyOf` of bare types
/// (`[{type: "integer"}, {type: "string"}]`) as one `type` list.
fn simplify_any_of(schema: &mut JsonObject) {
    let Some(serde_json::Value::Array(alternatives)) = schema.get("anyOf") else {
        return;
    };
    let is_null = |v: &serde_json::Value| {
        v.as_object()
            .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&"null".into()))
    };
    let optional = match alternatives.as_slice() {
        [x, null] if is_null(null) => x.as_object().cloned(),
        _ => None,
    };
    let bare: Option<Vec<serde_json::Value>> = alternatives
        .iter()
        .map(|a| {
            a.as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.get("type"))
                .filter(|t| t.is_string())
                .cloned()
        })
        .collect();
    if let Some(x) = optional {
        schema.remove("anyOf");
        for (k, v) in x {
            schema.entry(k).or_insert(v);
        }
    } else if let Some(types) = bare {
        schema.remove("anyOf");
        schema.insert("type".into(), serde_json::Value::Array(types));
    }
}

/// `oneOf: [{const: "A", type: "string", description: ..}, ...]` (a Rust enum of
/// unit variants) as `{type: "string", enum: ["A", ...]}`.
fn consts_to_enum(schema: &mut JsonObject) {
    let Some(serde_json::Value::Array(alternatives)) = schema.get("oneOf") else {
        return;
    };
    let mut consts: Vec<serde_json::Value> = Vec::new();
    for a in alternatives {
        match (a.get("const"), a.get("enum").and_then(|e| e.as_array())) {
            (Some(c), _) => consts.push(c.clone()),
            (None, Some(values)) => consts.extend(values.iter().cloned()),
            (None, None) => return,
        }
    }
    let types: Vec<&serde_json::Value> =
        alternatives.iter().filter_map(|a| a.get("type")).collect();
    let common = (types.len() == alternatives.len() && types.windows(2).all(|w| w[0] == w[1]))
        .then(|| types.first().map(|t| (*t).clone()))
        .flatten();
    schema.remove("oneOf");
    if let Some(t) = common {
        schema.insert("type".into(), t);
    }
    schema.insert("enum".into(), serde_json::Value::Array(consts));
}

fn is_integer_type(t: Option<&serde_json::Value>) -> bool {
    match t {
        Some(serde_json::Value::String(s)) => s == "integer",
        Some(serde_json::Value::Array(list)) => list.iter().any(|t| t == "integer"),
        _ => false,
    }
}

/// The output schema as `tools/list` sends it: an object with the answer's top-level
/// property names, each `{}` (any JSON), and nothing nested. It tells an agent which
/// fields to read and a client that `structuredContent` is an object; the full shapes
/// (types, nested lists) are in the tool's documentation, because listing them cost
/// more tokens than all the tool descriptions together, paid by every client on every
/// session.
pub fn listed_output(schema: &JsonObject) -> JsonObject {
    let mut out = any_object();
    if let Some(serde_json::Value::Object(props)) = schema.get("properties") {
        let names: JsonObject = props
            .keys()
            .map(|name| (name.clone(), serde_json::Value::Object(JsonObject::new())))
            .collect();
        out.insert("properties".into(), serde_json::Value::Object(names));
    }
    out
}

/// The output schema of an answer whose fields depend on the arguments.
fn any_object() -> JsonObject {
    let mut out = JsonObject::new();
    out.insert("type".into(), "object".into());
    out
}

/// [`tool`] with a human-readable title.
pub fn titled(mut route: ToolRoute<Server>, title: &'static str) -> ToolRoute<Server> {
    route.attr.title = Some(title.into());
    route
}

/// The future rmcp awaits for one call.
type Reply<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResponse, rmcp::ErrorData>> + Send + 'a>>;

/// Answers one call: a tool failure becomes an `isError` result with the error's text.
fn dispatch<A: Args, R: Answer>(cx: ToolCallContext<'_, Server>, run: Run<A, R>) -> Reply<'_> {
    Box::pin(async move {
        let args = cx.arguments.unwrap_or_default();
        let result = match call(cx.service, args, run).await {
            Ok(result) => result,
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        };
        Ok(result.into())
    })
}

/// Parses the arguments, picks the workspace, runs the tool off the async runtime.
async fn call<A: Args, R: Answer>(
    server: &Server,
    args: JsonObject,
    run: Run<A, R>,
) -> Result<CallToolResult, ToolError> {
    let args = A::parse(args)?;
    let default = server.default_workspace()?;
    let ws = server.workspace(&default, args.root())?;
    let stamped = Arc::clone(&ws);
    let call = Call {
        ws,
        default,
        default_slot: server.default_slot(),
        work_capacity: server.work_capacity(),
        server: server.clone(),
    };
    let answer = move || {
        let mut result = run(&call, args)?.into_result()?;
        stamp(&mut result, &stamped)?;
        Ok(result)
    };
    match tokio::task::spawn_blocking(answer).await {
        Ok(result) => result,
        Err(e) => Err(ToolError::Internal(format!("tool task failed: {e}"))),
    }
}

/// Puts the freshness stamp of `ws` (see [`status::Freshness`]) into the result's
/// `_meta` under [`status::FRESHNESS_META_KEY`]: read after the tool ran, so its
/// generation is at least the one the answer was built from. When the index could not
/// be refreshed, a last text block says so (`stale: ...`).
///
/// Errors: `database_error` when the index cannot be read.
fn stamp(result: &mut CallToolResult, ws: &Workspace) -> Result<(), ToolError> {
    let freshness = status::freshness(ws)?;
    if let Some(why) = &freshness.refresh_failed {
        // Said in the content too: a client may not show `_meta` to the model.
        result.content.push(ContentBlock::text(format!(
            "stale: this answer comes from the index as of generation {} ({}), which could \
             not be brought up to date: {why}",
            freshness.generation,
            freshness.indexed_at.as_deref().unwrap_or("time unknown")
        )));
    }
    let value = serde_json::to_value(freshness).map_err(|e| ToolError::Internal(e.to_string()))?;
    result
        .meta
        .get_or_insert_with(MetaObject::default)
        .0
        .insert(status::FRESHNESS_META_KEY.to_string(), value);
    Ok(())
}
