//! The documentation tools: what an agent reads to understand a file or folder before
//! changing it, and the documents it writes back.
//!
//! - `file_info` / `report_file_info`: one file's symbols, imports, callers and saved
//!   document ([`file_info`]); `folder_info` / `report_folder_info`: a folder's files and
//!   the edges crossing its boundary ([`folder_info`]);
//! - `inspect_source`: a window of a file's lines ([`inspect`]);
//! - `open_window`: the file graph drawn as a self-contained HTML page ([`window`]);
//! - [`saved`]: where a document goes on disk, how it is saved and judged stale;
//! - [`store`]: the index reads behind them (the saved documents themselves are agent
//!   memory, `memory::doc_rows`).
//!
//! Invariant: reads the index, never writes it; a document is written only inside the
//! workspace (paths go through `tools::sandbox`).

pub mod file_info;
pub mod folder_info;
pub mod inspect;
pub mod saved;
pub mod store;
pub mod window;
