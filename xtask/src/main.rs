//! `cargo xtask`: the project's automation.
//!
//! - `cargo xtask schemas [--from DIR | --download]`: verified copies of the pinned schemas.
//! - `cargo xtask codegen [--check]`: the generated revision modules and facts tables.
//! - `cargo xtask test [-- ARGS]`: the whole test suite (what README and CI run).
//! - `cargo xtask peers`: install the pinned real MCP peers the live tests use (`target/peers/`).
//! - `cargo xtask fuzz [--seconds N] [TARGET]`: coverage-guided fuzzing of the `fuzz/` targets.
//! - `cargo xtask corpus [--out DIR]`: record real sessions between the pinned peers
//!   (`target/corpus/`), the traffic the translate bench runs beside the shared corpus.

mod codegen;
mod corpus;
mod fuzz;
mod peers;
mod schemas;
mod test;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "mcp-wire project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Put verified copies of the pinned schemas and examples under `schemas/`.
    Schemas(schemas::Args),
    /// Generate the per-revision modules and facts from the pinned schemas (`--check`: fail on drift).
    Codegen(codegen::Args),
    /// Run the whole test suite: every workspace test, with the fixtures it needs.
    Test(test::Args),
    /// Install the pinned real MCP peers (npm and PyPI) under `target/peers/`.
    Peers,
    /// Fuzz every target (or one) for a time budget each, with cargo-fuzz and libFuzzer.
    Fuzz(fuzz::Args),
    /// Record real sessions between the pinned peers into `target/corpus/`.
    Corpus(corpus::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Schemas(args) => schemas::run(args),
        Command::Codegen(args) => codegen::run(args),
        Command::Test(args) => test::run(args),
        Command::Peers => peers::run(),
        Command::Fuzz(args) => fuzz::run(args),
        Command::Corpus(args) => corpus::run(args),
    }
}

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}
