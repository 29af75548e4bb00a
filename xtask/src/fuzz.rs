//! `cargo xtask fuzz [--seconds N] [TARGET]`: coverage-guided fuzzing of the targets in `fuzz/`
//! with cargo-fuzz and libFuzzer.
//!
//! libFuzzer needs the compiler's unstable `-Z` flags for its instrumentation; on this stable
//! toolchain they are enabled with `RUSTC_BOOTSTRAP=1` for the fuzz build only (the fuzz crate is
//! outside the workspace and has its own target directory, `fuzz/target`). cargo-fuzz is
//! installed from crates.io at a pinned version under `<target>/tools/` when missing. The fuzzers
//! run at the lowest CPU priority (`nice -n 19`) where `nice` exists.
//!
//! Seeds come from the shared corpus and the 2026-07-28 examples at run time: each target
//! writes its own into `fuzz/target/seeds/<target>` at start-up (see `fuzz/src/seeds.rs`);
//! libFuzzer keeps what it finds in `fuzz/corpus/<target>` and writes a crashing input to
//! `fuzz/artifacts/<target>/`. Each target's name, executions and crashes are printed; any crash
//! fails the command.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// The fuzz targets (binaries of `fuzz/Cargo.toml`), in run order.
pub const TARGETS: [&str; 4] = ["translate", "parse_as", "serialize_for", "router"];

/// The cargo-fuzz release installed when none is found.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// The host triple cargo-fuzz builds for (its default), which names its output directory.
const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// Longest input libFuzzer generates (the largest seeds, a handshake and two session lines,
/// fit).
const MAX_LEN: usize = 16 * 1024;

/// Options of `cargo xtask fuzz`.
#[derive(clap::Args)]
pub struct Args {
    /// Seconds of fuzzing per target.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// One target (default: every target in turn).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(TARGETS))]
    target: Option<String>,
}

/// What one target's run did.
struct Outcome {
    target: &'static str,
    executions: u64,
    seconds: f64,
    corpus: u64,
    crash: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let fuzz_dir = root.join("fuzz");
    let (corpus, examples) = seed_sources(&root)?;
    let cargo_fuzz = cargo_fuzz(&root)?;
    let targets: Vec<&'static str> = match &args.target {
        Some(t) => TARGETS.into_iter().filter(|n| n == t).collect(),
        None => TARGETS.to_vec(),
    };
    let started = Instant::now();
    let mut build = Command::new(&cargo_fuzz);
    build
        .current_dir(&root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["build", "--sanitizer", "none", "--fuzz-dir"])
        .arg(&fuzz_dir);
    if let Some(t) = &args.target {
        build.arg(t);
    }
    run_checked(&mut build)?;
    eprintln!(
        "xtask: fuzz targets built in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let bin_dir = fuzz_dir.join("target").join(TRIPLE).join("release");
    let mut outcomes = Vec::new();
    for target in targets {
        let outcome = fuzz_one(
            &fuzz_dir,
            &bin_dir,
            target,
            args.seconds,
            &corpus,
            &examples,
        )?;
        println!(
            "fuzz {}: {} executions in {:.0} s ({:.0}/s), corpus {} inputs, {} crashes",
            outcome.target,
            outcome.executions,
            outcome.seconds,
            outcome.executions as f64 / outcome.seconds.max(1e-3),
            outcome.corpus,
            u8::from(outcome.crash.is_some()),
        );
        if let Some(crash) = &outcome.crash {
            println!("fuzz {}: crash: {crash}", outcome.target);
        }
        outcomes.push(outcome);
    }
    let crashed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.crash.is_some())
        .map(|o| o.target)
        .collect();
    if !crashed.is_empty() {
        bail!(
            "fuzz targets crashed: {} (inputs under fuzz/artifacts/)",
            crashed.join(", ")
        );
    }
    Ok(())
}

/// Runs one target for `seconds` and reads its final statistics.
fn fuzz_one(
    fuzz_dir: &Path,
    bin_dir: &Path,
    target: &'static str,
    seconds: u64,
    corpus: &Path,
    examples: &Path,
) -> anyhow::Result<Outcome> {
    let work = fuzz_dir.join("corpus").join(target);
    let seeds = fuzz_dir.join("target").join("seeds").join(target);
    let artifacts = fuzz_dir.join("artifacts").join(target);
    let logs = fuzz_dir.join("target").join("logs");
    if seeds.exists() {
        std::fs::remove_dir_all(&seeds)?;
    }
    for dir in [&work, &seeds, &artifacts, &logs] {
        std::fs::create_dir_all(dir)?;
    }
    let log = logs.join(format!("{target}.log"));
    let mut prefix = artifacts.into_os_string();
    prefix.push("/");
    let mut artifact_prefix = std::ffi::OsString::from("-artifact_prefix=");
    artifact_prefix.push(&prefix);
    let started = Instant::now();
    let output = niced(&bin_dir.join(target))
        .current_dir(fuzz_dir)
        .env("MCP_WIRE_FUZZ_SEEDS", &seeds)
        .env("MCP_WIRE_CORPUS", corpus)
        .env("MCP_WIRE_EXAMPLES", examples)
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={MAX_LEN}"))
        .args(["-print_final_stats=1", "-timeout=30", "-rss_limit_mb=2048"])
        .arg(artifact_prefix)
        .arg(&work)
        .arg(&seeds)
        .output()
        .with_context(|| format!("running the fuzz target {target}"))?;
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    std::fs::write(&log, stderr.as_bytes())?;
    let stat = |name: &str| {
        stderr
            .lines()
            .find_map(|l| l.strip_prefix(&format!("stat::{name}:")))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let crash = if output.status.success() {
        None
    } else {
        let input = stderr
            .lines()
            .find_map(|l| l.split_once("Test unit written to ").map(|(_, p)| p.trim()))
            .unwrap_or("(no input written)");
        let reason = stderr
            .lines()
            .find(|l| l.contains("panicked at") || l.contains("==ERROR") || l.contains("deadly"))
            .unwrap_or("see the log");
        Some(format!(
            "{reason}; input {input}; log {}; replay: {} {input}",
            log.display(),
            bin_dir.join(target).display()
        ))
    };
    let Some(executions) = stat("number_of_executed_units") else {
        if crash.is_none() {
            bail!(
                "fuzz target {target} ended without statistics ({}); log {}",
                output.status,
                log.display()
            );
        }
        return Ok(Outcome {
            target,
            executions: 0,
            seconds,
            corpus: 0,
            crash,
        });
    };
    let corpus_size = std::fs::read_dir(&work)?.count() as u64;
    Ok(Outcome {
        target,
        executions,
        seconds,
        corpus: corpus_size,
        crash,
    })
}

/// The corpus and examples directories the seeds are made from: `$MCP_WIRE_CORPUS` or
/// `../shared/corpus`, and the verified examples of the schema store.
fn seed_sources(root: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let corpus = std::env::var_os("MCP_WIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    if !corpus.is_dir() {
        bail!(
            "the real-peer corpus the fuzz seeds come from is missing: expected {} (or set MCP_WIRE_CORPUS)",
            corpus.display()
        );
    }
    let examples = mcp_wire_schemas::SchemaStore::discover()
        .examples_dir()
        .context("the 2026-07-28 examples the fuzz seeds come from (run `cargo xtask schemas`)")?;
    Ok((corpus.canonicalize()?, examples.canonicalize()?))
}

/// The pinned cargo-fuzz, installed from crates.io under `<target>/tools/` when missing (once:
/// concurrent runs wait on a lock file).
fn cargo_fuzz(root: &Path) -> anyhow::Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { root.join(p) })
        .unwrap_or_else(|| root.join("target"));
    let tools = target.join("tools");
    let install_root = tools.join(format!("cargo-fuzz-{CARGO_FUZZ_VERSION}"));
    let bin = install_root.join("bin").join("cargo-fuzz");
    if bin.is_file() {
        return Ok(bin);
    }
    std::fs::create_dir_all(&tools)?;
    let lock = std::fs::File::create(tools.join("cargo-fuzz.lock"))?;
    lock.lock().context("locking the cargo-fuzz install")?;
    if !bin.is_file() {
        eprintln!(
            "xtask: installing cargo-fuzz {CARGO_FUZZ_VERSION} into {}",
            install_root.display()
        );
        run_checked(
            Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .args([
                    "install",
                    "--locked",
                    "--version",
                    CARGO_FUZZ_VERSION,
                    "--root",
                ])
                .arg(&install_root)
                .arg("cargo-fuzz"),
        )?;
    }
    Ok(bin)
}

/// `program` at the lowest CPU priority when `nice` is available (the machine is shared).
fn niced(program: &Path) -> Command {
    let has_nice = Command::new("nice")
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    if has_nice {
        let mut c = Command::new("nice");
        c.args(["-n", "19"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run_checked(command: &mut Command) -> anyhow::Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed ({status})");
    }
    Ok(())
}
