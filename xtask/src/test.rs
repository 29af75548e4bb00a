//! `cargo xtask test`: the whole test suite, as README and CI run it.
//!
//! Before `cargo test --workspace` it prepares the fixtures tests need that cargo cannot build:
//! the Python virtual environment with the official MCP SDK used by the server-variants interop
//! test (`target/py-interop/venv`, from `crates/mcp-variants/tests/interop/requirements.txt`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// Extra arguments for `cargo test`.
#[derive(clap::Args)]
pub struct Args {
    /// Passed to `cargo test` after the workspace selection.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    cargo_args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    prepare_python_interop(&root)?;
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["test", "--workspace"])
        .args(&args.cargo_args)
        .stdout(Stdio::piped())
        .spawn()
        .context("running cargo test")?;
    // Echo cargo's output as it comes and add up its per-binary `test result:` lines, so the run
    // ends on one line with the totals of the whole suite.
    let mut totals = Totals::default();
    let stdout = child.stdout.take().context("cargo test stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        println!("{line}");
        totals.add(&line);
    }
    let status = child.wait()?;
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if !status.success() {
        bail!("cargo test failed ({status})");
    }
    if totals.passed == 0 {
        bail!("cargo test ran no test");
    }
    Ok(())
}

/// Totals over every `test result:` line of a `cargo test` run.
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    passed: u64,
    failed: u64,
    ignored: u64,
}

impl Totals {
    /// Adds one line of output if it is a libtest summary such as
    /// `test result: ok. 5 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; ...`.
    fn add(&mut self, line: &str) {
        let Some(rest) = line.strip_prefix("test result: ") else {
            return;
        };
        for part in rest.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(label), Some(count)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(count) = count.parse::<u64>() else {
                continue;
            };
            match label {
                "passed" => self.passed += count,
                "failed" => self.failed += count,
                "ignored" => self.ignored += count,
                _ => {}
            }
        }
    }
}

/// The requirements file of the Python interop client (relative to the workspace root).
const INTEROP_REQUIREMENTS: &str = "crates/mcp-variants/tests/interop/requirements.txt";

/// Creates (or refreshes) `<target>/py-interop/venv` with the pinned MCP Python SDK.
///
/// Idempotent: a stamp file holds the requirements it was built from; when it matches and the
/// interpreter is there, nothing runs (no network).
fn prepare_python_interop(root: &Path) -> anyhow::Result<()> {
    let requirements = root.join(INTEROP_REQUIREMENTS);
    let wanted = std::fs::read_to_string(&requirements)
        .with_context(|| format!("reading {}", requirements.display()))?;
    let dir = target_dir(root).join("py-interop");
    let venv = dir.join("venv");
    let python = venv_python(&venv);
    let stamp = dir.join("requirements.stamp");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(());
    }
    eprintln!(
        "xtask: preparing the Python interop venv at {}",
        venv.display()
    );
    std::fs::create_dir_all(&dir)?;
    if !python.exists() {
        let interpreter = ["python3", "python"]
            .into_iter()
            .find(|p| {
                Command::new(p)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .context("no python3 on PATH: the server-variants interop test needs Python 3.10+")?;
        run_checked(Command::new(interpreter).args(["-m", "venv"]).arg(&venv))?;
    }
    run_checked(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements),
    )?;
    std::fs::write(&stamp, wanted)?;
    Ok(())
}

/// `CARGO_TARGET_DIR`, or `<root>/target`.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { root.join(p) })
        .unwrap_or_else(|| root.join("target"))
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
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

#[cfg(test)]
mod tests {
    use super::Totals;

    #[test]
    fn totals_add_up_libtest_summaries() {
        let mut t = Totals::default();
        t.add("test result: ok. 5 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s");
        t.add("test result: FAILED. 2 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out");
        t.add("running 7 tests");
        t.add("test foo ... ok");
        assert_eq!(
            t,
            Totals {
                passed: 7,
                failed: 3,
                ignored: 1
            }
        );
    }
}
