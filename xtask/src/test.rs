//! `cargo xtask test`: the whole test suite, as README and CI run it.

use anyhow::bail;

/// Extra arguments for `cargo test`.
#[derive(clap::Args)]
pub struct Args {
    /// Passed to `cargo test` after the workspace selection.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    cargo_args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let status =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args(["test", "--workspace"])
            .args(&args.cargo_args)
            .status()?;
    if !status.success() {
        bail!("cargo test failed ({status})");
    }
    Ok(())
}
