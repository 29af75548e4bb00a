//! `cargo xtask test`: the whole test suite, as README and CI run it.
//!
//! Before `cargo test --workspace` it prepares the fixtures tests need that cargo cannot build:
//! the Python virtual environment with the official MCP SDK used by the server-variants interop
//! test (`target/py-interop/venv`, from `crates/mcp-variants/tests/interop/requirements.txt`).

use std::path::{Path, PathBuf};
use std::process::Command;

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
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["test", "--workspace"])
        .args(&args.cargo_args)
        .status()?;
    if !status.success() {
        bail!("cargo test failed ({status})");
    }
    Ok(())
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
