//! Constellation: a code-intelligence indexer and MCP server.
//!
//! ```text
//!   directory ──walk──▶ files (stat, blake3) ──lang──▶ symbols, imports, calls
//!                                   │                         │
//!                                   ▼                         ▼
//!                         store (SQLite: files, nodes, edges, refs, runs)
//!                                   │
//!                        graph (petgraph snapshot per generation)
//!                                   │
//!                 tools (one function per tool) ◀── mcp (rmcp, stdio) / main.rs (CLI)
//! ```
//!
//! Data flows one way, top to bottom: `walk` and `lang` know nothing of the store;
//! `index` drives them and writes through `store`; `graph` gets rows, never SQL; `tools`
//! combine them; `mcp` and the CLI are thin shells over `tools`. See ARCHITECTURE.md.

pub mod audit;
pub mod docs;
pub mod graph;
pub mod index;
pub mod lang;
pub mod mcp;
pub mod memory;
pub mod store;
pub mod tools;
pub mod walk;
