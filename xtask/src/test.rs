//! `cargo xtask test`: the whole test suite, as README and CI run it.
//!
//! Before `cargo test --workspace` it installs the pinned real peers the live tests use
//! (`tests/peers/`, under `target/peers/`), once up front, so no test binary waits on a registry.

use std::io::{BufRead, BufReader};
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
    crate::peers::run()?;
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
