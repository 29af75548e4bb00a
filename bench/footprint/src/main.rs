//! Builds the small server on mcp-wire and on rmcp 3.11 from scratch, alternately, and prints
//! each build's wall-clock time and each release binary's size, then the ratios.
//!
//! ```sh
//! cargo run --release --manifest-path bench/footprint/Cargo.toml -- [--rounds N] [--no-debug] [--timings]
//! ```
//!
//! Dependencies are fetched first (`cargo fetch`), so no build waits on the network. Each round
//! builds, in this order, ours and rmcp's release binaries, then (unless `--no-debug`) ours and
//! rmcp's debug binaries, each in an empty target dir under `bench/footprint/target/`, with
//! cargo's default profiles and no flags from the environment. The table gives the minimum and
//! the median of the rounds; the ratios are ours over rmcp's. `--timings` keeps cargo's report of
//! each build (`cargo-timings/` in its target dir).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// One of the two servers.
struct Side {
    /// The name in the table.
    label: &'static str,
    /// The package directory (its own workspace).
    dir: &'static str,
    /// The binary's name.
    bin: &'static str,
}

const SIDES: [Side; 2] = [
    Side {
        label: "mcp-wire",
        dir: "ours",
        bin: "mcp-wire-footprint-server",
    },
    Side {
        label: "rmcp 3.11",
        dir: "rmcp-server",
        bin: "rmcp-footprint-server",
    },
];

/// A cargo profile as the table names it.
#[derive(Clone, Copy, PartialEq)]
enum Profile {
    Release,
    Debug,
}

impl Profile {
    fn name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }
}

/// What one build measured.
struct Build {
    seconds: f64,
    /// `(bytes, stripped bytes)` of a release binary.
    sizes: Option<(u64, u64)>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("footprint: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut rounds = 2usize;
    let mut debug = true;
    let mut timings = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or("--rounds takes a positive number")?;
            }
            "--no-debug" => debug = false,
            "--timings" => timings = true,
            _ => {
                return Err(format!(
                    "unknown argument {arg:?} (--rounds N, --no-debug, --timings)"
                ));
            }
        }
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let profiles: &[Profile] = if debug {
        &[Profile::Release, Profile::Debug]
    } else {
        &[Profile::Release]
    };
    println!(
        "{} · {} · {}",
        command_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        command_line(
            "git",
            &[
                "-C",
                &here.display().to_string(),
                "rev-parse",
                "--short",
                "HEAD"
            ]
        ),
        machine()
    );
    for side in &SIDES {
        let status = cargo(&here.join(side.dir))
            .args(["fetch", "--locked"])
            .status()
            .map_err(|e| format!("running cargo fetch: {e}"))?;
        if !status.success() {
            return Err(format!("cargo fetch failed for {}", side.dir));
        }
    }
    println!("load average at start: {}", load());
    // builds[side][profile] = one Build per round.
    let mut builds: Vec<Vec<Vec<Build>>> = (0..SIDES.len())
        .map(|_| (0..profiles.len()).map(|_| Vec::new()).collect())
        .collect();
    for round in 1..=rounds {
        for (p, &profile) in profiles.iter().enumerate() {
            for (s, side) in SIDES.iter().enumerate() {
                let before = load();
                let build = cold_build(here, side, profile, timings)?;
                let sizes = build
                    .sizes
                    .map_or(String::new(), |(b, s)| format!(", {b} bytes, {s} stripped"));
                println!(
                    "round {round}: {} {}: {:.1} s{sizes} (load {before} before, {} after)",
                    side.label,
                    profile.name(),
                    build.seconds,
                    load()
                );
                builds[s][p].push(build);
            }
        }
    }
    println!("load average at end: {}", load());
    println!();
    println!(
        "| {} rounds | {} | {} | ratio |",
        rounds, SIDES[0].label, SIDES[1].label
    );
    println!("| --- | --- | --- | --- |");
    for (p, profile) in profiles.iter().enumerate() {
        let ours = seconds(&builds[0][p]);
        let theirs = seconds(&builds[1][p]);
        println!(
            "| cold {} build, s (min / median) | {:.0} / {:.0} | {:.0} / {:.0} | {:.2}× / {:.2}× |",
            profile.name(),
            ours.0,
            ours.1,
            theirs.0,
            theirs.1,
            ours.0 / theirs.0,
            ours.1 / theirs.1
        );
    }
    let size = |s: usize, stripped: bool| {
        builds[s][0]
            .last()
            .and_then(|b| b.sizes)
            .map_or(0, |(b, st)| if stripped { st } else { b })
    };
    for (what, stripped) in [("release binary, bytes", false), ("stripped, bytes", true)] {
        let (ours, theirs) = (size(0, stripped), size(1, stripped));
        println!(
            "| {what} | {ours} | {theirs} | {:.2}× |",
            ours as f64 / theirs as f64
        );
    }
    Ok(())
}

/// Builds `side` at `profile` in an empty target dir, timing the build.
fn cold_build(here: &Path, side: &Side, profile: Profile, timings: bool) -> Result<Build, String> {
    let target = here
        .join("target")
        .join(format!("{}-{}", side.dir, profile.name()));
    if target.exists() {
        std::fs::remove_dir_all(&target)
            .map_err(|e| format!("emptying {}: {e}", target.display()))?;
    }
    let mut command = cargo(&here.join(side.dir));
    command.args(["build", "--locked", "--offline", "--target-dir"]);
    command.arg(&target);
    if profile == Profile::Release {
        command.arg("--release");
    }
    if timings {
        command.arg("--timings");
    }
    let start = Instant::now();
    let output = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("running cargo build: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!(
            "cargo build of {} ({}) failed:\n{}",
            side.dir,
            profile.name(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let sizes = match profile {
        Profile::Debug => None,
        Profile::Release => Some(sizes(&target.join("release").join(side.bin))?),
    };
    Ok(Build { seconds, sizes })
}

/// The binary's size, and the size of a copy with its symbols stripped (`strip`, binutils).
fn sizes(binary: &Path) -> Result<(u64, u64), String> {
    let size = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let stripped: PathBuf = binary.with_extension("stripped");
    let status = Command::new("strip")
        .arg("-o")
        .arg(&stripped)
        .arg(binary)
        .status()
        .map_err(|e| format!("running strip (binutils): {e}"))?;
    if !status.success() {
        return Err(format!("strip failed on {}", binary.display()));
    }
    Ok((size(binary)?, size(&stripped)?))
}

/// `cargo` in `dir`, with no build settings from the environment: the profile is the
/// package's own (cargo's defaults), as in a server author's project.
fn cargo(dir: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(dir);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        let settings = key.starts_with("CARGO_PROFILE_")
            || key.starts_with("CARGO_BUILD_")
            || key.starts_with("CARGO_TARGET_")
            || matches!(
                &*key,
                "CARGO_INCREMENTAL"
                    | "CARGO_ENCODED_RUSTFLAGS"
                    | "RUSTFLAGS"
                    | "RUSTC_WRAPPER"
                    | "RUSTC_WORKSPACE_WRAPPER"
            );
        if settings {
            command.env_remove(&*key);
        }
    }
    command
}

/// `(min, median)` of the builds' seconds.
fn seconds(builds: &[Build]) -> (f64, f64) {
    let mut s: Vec<f64> = builds.iter().map(|b| b.seconds).collect();
    s.sort_by(f64::total_cmp);
    let median = if s.len() % 2 == 1 {
        s[s.len() / 2]
    } else {
        (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
    };
    (s[0], median)
}

/// The 1-minute load average.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// The machine: cores and CPU model.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("{cores} cores, {model}")
}

/// The first line `program args` prints (empty if it cannot run).
fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}
