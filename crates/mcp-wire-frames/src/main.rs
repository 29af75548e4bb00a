//! `mcp-frames`: translate, validate and explain real MCP traffic between protocol revisions.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_wire::ProtocolVersion;
use mcp_wire::wire::EmitOptions;
use mcp_wire_frames::input::DEFAULT_MAX_LINE_BYTES;
use mcp_wire_frames::session::Session;
use mcp_wire_frames::stream::{self, LineHandler, Output};
use mcp_wire_frames::translate::{Mode, OnRefuse, Translate};
use mcp_wire_frames::validate::Validate;

const AFTER_HELP: &str = "\
Input: one JSON value per line, either a bare JSON-RPC frame or a capture record
{\"dir\":\"c2s\"|\"s2c\",\"frame\":{...}}. Output keeps each line's format and the input order.
Problems are reported on stderr as `line N: <reason>`; the last stderr line is a summary.

Exit status: 0 every frame fine, 1 some frames refused or invalid, 2 usage or I/O error.

Revisions (for --to and --from): 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28.";

/// Translate, validate and explain MCP traffic between protocol revisions.
#[derive(Parser)]
#[command(name = "mcp-frames", version, about, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the frames come from, and how much of a line is read.
#[derive(clap::Args)]
struct InputArgs {
    /// A JSON Lines file, or `-` for standard input.
    #[arg(default_value = "-", value_name = "INPUT")]
    input: PathBuf,
    /// Lines longer than this many bytes are reported and skipped, never buffered.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES")]
    max_line_bytes: usize,
}

/// What `translate` and `explain` translate to, and from where.
#[derive(clap::Args)]
struct TargetArgs {
    /// The target revision.
    #[arg(long, value_name = "VERSION")]
    to: ProtocolVersion,
    /// The source revision of every frame (default: detected from the traffic).
    #[arg(long, value_name = "VERSION")]
    from: Option<ProtocolVersion>,
    /// Write only what the target revision declares: members it does not declare but could
    /// carry harmlessly (display titles, icons, structuredContent at 2024-11-05, …) are
    /// stripped instead of written, for peers that validate closed-world.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Translate every frame to another revision, with the boundary.
    ///
    /// Each frame is parsed at its source revision and emitted for the target. Without
    /// `--from`, the source is detected frame by frame: the `protocolVersion` that `initialize`
    /// negotiates (the answer wins over the offer), and the `_meta` protocol version every
    /// 2026-07-28 request carries, following `server/discover` → -32601 → `initialize`
    /// fallbacks. Results are typed by the request they answer. A frame without a form at the
    /// target is not written; it is reported as `line N: refused: <reason>`. The last stderr
    /// line is `translated N, refused M, invalid K`.
    Translate {
        #[command(flatten)]
        target: TargetArgs,
        /// What to do with a refused or invalid request.
        #[arg(long, value_enum, default_value_t = OnRefuse::Skip)]
        on_refuse: OnRefuse,
    },
    /// Show, per frame, what `translate` strips and injects (JSON Pointers into the frame).
    ///
    /// Prints one record per input line: `{"line":N,"status":"written","stripped":[…],
    /// "injected":[…]}` for a frame `translate` writes, which is the input minus `stripped`
    /// plus `injected`, nothing else; or `{"line":N,"status":"refused"|"invalid",
    /// "reason":"<why>","stripped":[],"injected":[]}` for one it does not write (`refused`: no
    /// form at the target; `invalid`: not valid at its source revision). `status` is the one
    /// field that says whether the frame is written; `reason` is present exactly when it is not.
    /// With `--strict`, the strict translation is explained.
    Explain(TargetArgs),
    /// Check every frame against one revision; one verdict line per non-blank input line.
    ///
    /// Prints `{"line":N,"ok":true}` or `{"line":N,"ok":false,"errors":[{"path":…,"message":…}]}`
    /// per non-blank line (blank lines are skipped; `line` keeps the input's numbering), then
    /// `valid N, invalid M` on stderr. Checks the JSON-RPC envelope, that the
    /// method exists at the revision for its sender, that every response answers a pending
    /// request, the revision's generated types (`mcp_wire::v…`) and the boundary's parse
    /// mandates (e.g. the reserved `_meta` keys at 2026-07-28); with `--schema`, also the
    /// revision's pinned JSON Schema.
    Validate {
        /// The revision to check against (`--version` is the old spelling, still accepted).
        #[arg(long = "to", visible_alias = "version", value_name = "VERSION")]
        version: ProtocolVersion,
        /// Also validate against the pinned official JSON Schema of that revision (with the
        /// named corrections of its upstream rendering mistakes, `mcp_wire_schemas::UPSTREAM_FIXES`).
        #[arg(long)]
        schema: bool,
        #[command(flatten)]
        input: InputArgs,
    },
    /// List the known revisions, their era, and what changed in each.
    Versions,
    /// Bridge live traffic between a client of one revision and a server of another.
    ///
    /// Built only with the `bridge` feature (`cargo build -p mcp-wire-frames --features bridge`),
    /// which brings in the HTTP stack; see `mcp_wire_bridge::cli`.
    #[cfg(feature = "bridge")]
    Bridge(Box<mcp_wire_bridge::cli::BridgeArgs>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("mcp-frames: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<bool> {
    match cli.command {
        #[cfg(feature = "bridge")]
        Command::Bridge(args) => {
            // Logs on stderr: stdout carries the protocol when the client side is stdio.
            mcp_wire_bridge::cli::install_log_subscriber(args.log_format)
                .map_err(anyhow::Error::msg)?;
            Ok(mcp_wire_bridge::cli::run_blocking(*args)?)
        }
        Command::Versions => {
            print!("{}", mcp_wire_frames::versions::render());
            Ok(true)
        }
        Command::Translate { target, on_refuse } => translate(target, Mode::Translate(on_refuse)),
        Command::Explain(target) => translate(target, Mode::Explain),
        Command::Validate {
            version,
            schema,
            input,
        } => {
            let store = schema.then(mcp_wire_schemas::SchemaStore::discover);
            let oracle = store.map(|s| mcp_wire_schemas::SchemaOracle::load(&s, version));
            let mut handler = Validate::new(version, oracle.transpose()?);
            drive(&input, Session::fixed(version), &mut handler)
        }
    }
}

/// Runs `translate` or `explain` (`mode`) over the input.
fn translate(target: TargetArgs, mode: Mode) -> anyhow::Result<bool> {
    let options = EmitOptions::new().strict(target.strict);
    let mut handler = Translate::new(target.to, mode).with_emit_options(options);
    let session = target.from.map(Session::fixed).unwrap_or_default();
    drive(&target.input, session, &mut handler)
}

fn drive(
    input: &InputArgs,
    mut session: Session,
    handler: &mut dyn LineHandler,
) -> anyhow::Result<bool> {
    let stdout = io::BufWriter::with_capacity(256 * 1024, io::stdout().lock());
    let mut out = Output::new(Box::new(stdout), Box::new(io::stderr()));
    let path = &input.input;
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            eprintln!("mcp-frames: reading frames from the terminal (end with Ctrl-D)");
        }
        Box::new(stdin.lock())
    } else if path.is_dir() {
        let path = path.display();
        anyhow::bail!("{path}: is a directory; give a JSON Lines file (or - for standard input)");
    } else {
        let file = File::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Box::new(BufReader::with_capacity(256 * 1024, file))
    };
    let max = input.max_line_bytes;
    stream::run(reader, max, &mut session, handler, &mut out)?;
    Ok(handler.all_fine())
}
