//! The `mcp-frames bridge` command line: its arguments ([`BridgeArgs`]) and [`run`].
//!
//! ```text
//! mcp-frames bridge [--listen stdio | --listen http://127.0.0.1:PORT/mcp]
//!     (--server-url URL | -- CMD [ARGS…])
//!     [--client-revisions LIST] [--server-revisions LIST] [--report FILE] [--strict]
//!     [--request-timeout SECONDS] [--host-tasks-after MS]
//!     [--log-format text|json] [--metrics 127.0.0.1:PORT]
//!     [--auth-issuer URL [--auth-scopes A,B] [--resource URL] [--auth-introspection URL …]]
//!     [--upstream-token TOKEN | --upstream-oauth [--upstream-client-id ID
//!      [--upstream-client-secret SECRET]] [--upstream-client-credentials]
//!      [--upstream-token-file FILE] [--upstream-redirect-port PORT] [--upstream-no-browser]]
//!     [--store redis://HOST:PORT[/DB] --secret-file PATH]
//! ```
//!
//! With `--listen http://…`, the first line on stdout is the endpoint URL (port 0 picks a free
//! one). Logs go to stderr at the levels `RUST_LOG` selects (`info` by default; with feature
//! `cli`, which `mcp-frames`' `bridge` feature turns on, `install_log_subscriber` installs
//! them); `--metrics` serves the runtime's and the bridge's metrics at `/metrics`. The exit
//! status is 0 when the client side ended, 1 when the upstream went away (every pending
//! request was failed first), 2 for a usage or start-up error.
//!
//! `--auth-issuer` makes the HTTP client side an OAuth resource server (the options are
//! `mcp_wire_transport::server::oauth::AuthOptions`', spelled the same on every server binary;
//! the default `--resource` is the listen URL). A client's token is checked and kept here: the
//! upstream sees only what the bridge itself sends.
//!
//! `--store` with `--secret-file` (an HTTP client side; Redis needs feature `redis`) makes the
//! process one replica of a bridge whose replicas share their client sessions in that Redis,
//! opened by `mcp_wire_transport::server::ReplicaOptions` as on every server binary;
//! each replica keeps its own upstream connection.
//!
//! With feature `cli`, an HTTP upstream that requires authorization gets the bridge's own
//! credentials: `--upstream-token` (a token obtained elsewhere), or `--upstream-oauth`, the
//! library's OAuth client — the authorization code flow through the browser (the URL is printed
//! on stderr; the redirect comes back to a loopback port) or, with
//! `--upstream-client-credentials`, a pre-registered client acting for itself. Tokens are kept
//! in `--upstream-token-file` (created readable by its owner only), else in memory.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire_transport::Secret;
use mcp_wire_transport::server::oauth::AuthOptions;

use mcp_wire_transport::server::ReplicaOptions;

use crate::{Bridge, BridgeError, BridgeLimits, BridgeOptions, Emitter, Report, UpstreamTarget};

#[cfg(feature = "cli")]
pub use mcp_wire_transport::telemetry::{LogFormat, install_log_subscriber};

/// The arguments of `mcp-frames bridge`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example: mcp-frames bridge --server-url http://127.0.0.1:3001/mcp \
--listen http://127.0.0.1:8080/mcp --report bridge.jsonl"
)]
pub struct BridgeArgs {
    /// The client side: `stdio` (our stdin/stdout) or `http://127.0.0.1:PORT/PATH`.
    #[arg(long, default_value = "stdio", value_name = "stdio|URL")]
    pub listen: String,
    /// The upstream server's URL (Streamable HTTP on either wire, or 2024-11-05 HTTP+SSE).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub server_url: Option<String>,
    /// The revisions offered to clients (comma-separated; default: all five).
    #[arg(long, value_name = "LIST", value_parser = parse_list)]
    pub client_revisions: Option<RevisionList>,
    /// The revisions the bridge may speak upstream (comma-separated; default: all five).
    #[arg(long, value_name = "LIST", value_parser = parse_list)]
    pub server_revisions: Option<RevisionList>,
    /// Write one JSON line per frame changed, refused or synthesized (explain's shape).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write upstream only what its revision declares (see `translate --strict`).
    #[arg(long)]
    pub strict: bool,
    /// Seconds an upstream request may take before it is cancelled and answered `timeout`.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub request_timeout: u64,
    /// Direction B: a 2026-07-28 client's call (with the tasks extension) that the legacy
    /// server has not answered after this many milliseconds becomes a task the bridge hosts
    /// (default: only the server's own core tasks become tasks).
    #[arg(long, value_name = "MS")]
    pub host_tasks_after: Option<u64>,
    /// Logs on stderr as lines of text or JSON objects (levels from `RUST_LOG`, `info` by
    /// default).
    #[cfg(feature = "cli")]
    #[arg(long, default_value = "text", value_name = "text|json")]
    pub log_format: LogFormat,
    /// Serve the metrics (Prometheus text format) at `http://ADDR/metrics` (off by default).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    /// Accept OAuth access tokens of this authorization server on the HTTP client side (repeat
    /// or comma-separate for several); turns authorization on.
    #[arg(long, value_name = "URL", value_delimiter = ',')]
    pub auth_issuer: Vec<String>,
    /// Scopes every client request's token must grant (403 otherwise).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub auth_scopes: Vec<String>,
    /// The endpoint's canonical URI, the audience tokens must name (default: the listen URL).
    #[arg(long, value_name = "URL")]
    pub resource: Option<String>,
    /// Check tokens at this introspection endpoint (RFC 7662) instead of as JWTs.
    #[arg(long, value_name = "URL")]
    pub auth_introspection: Option<String>,
    /// The bridge's client id at the introspection endpoint.
    #[arg(long, value_name = "ID")]
    pub auth_client_id: Option<String>,
    /// Its secret (default: the MCP_AUTH_CLIENT_SECRET variable).
    #[arg(long, value_name = "SECRET")]
    pub auth_client_secret: Option<Secret>,
    /// Sign in to the HTTP upstream with this bearer token (default: the MCP_UPSTREAM_TOKEN
    /// variable, when set).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "TOKEN", conflicts_with = "upstream_oauth")]
    pub upstream_token: Option<Secret>,
    /// Sign in to the HTTP upstream with the OAuth client when it asks (401/403).
    #[cfg(feature = "cli")]
    #[arg(long)]
    pub upstream_oauth: bool,
    /// The bridge's pre-registered client id upstream (default: dynamic registration).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "ID", requires = "upstream_oauth")]
    pub upstream_client_id: Option<String>,
    /// Its secret (default: the MCP_UPSTREAM_CLIENT_SECRET variable, when set).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "SECRET", requires = "upstream_client_id")]
    pub upstream_client_secret: Option<Secret>,
    /// Use the client credentials grant (no user; needs --upstream-client-id).
    #[cfg(feature = "cli")]
    #[arg(long, requires = "upstream_client_id")]
    pub upstream_client_credentials: bool,
    /// Keep upstream tokens in this file (mode 0600) across runs (default: in memory).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "FILE", requires = "upstream_oauth")]
    pub upstream_token_file: Option<PathBuf>,
    /// The loopback port the browser's redirect comes back to (default: any free one).
    #[cfg(feature = "cli")]
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub upstream_redirect_port: u16,
    /// Print the authorization URL only; do not try to open a browser.
    #[cfg(feature = "cli")]
    #[arg(long)]
    pub upstream_no_browser: bool,
    /// Share the client side's sessions with the other replicas of this bridge in this Redis
    /// (`redis://HOST:PORT[/DB]`; needs --secret-file and an HTTP --listen).
    #[arg(long, value_name = "URL", requires = "secret_file")]
    pub store: Option<String>,
    /// The secret every replica derives its keys from (at least 32 bytes; the same file on
    /// every replica; never stored in Redis).
    #[arg(long, value_name = "PATH")]
    pub secret_file: Option<PathBuf>,
    /// The upstream server command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// A parsed revision list.
#[derive(Debug, Clone)]
pub struct RevisionList(pub Vec<ProtocolVersion>);

fn parse_list(s: &str) -> Result<RevisionList, String> {
    s.split(',')
        .map(|v| {
            v.trim()
                .parse::<ProtocolVersion>()
                .map_err(|_| format!("unknown revision {v:?}"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(RevisionList)
}

/// Where the client side listens.
enum Listen {
    Stdio,
    Http { addr: String, path: String },
}

fn parse_listen(s: &str) -> Result<Listen, BridgeError> {
    if s == "stdio" {
        return Ok(Listen::Stdio);
    }
    let rest = s.strip_prefix("http://").ok_or_else(|| {
        BridgeError::Config(format!(
            "--listen must be stdio or http://HOST:PORT/PATH, found {s:?}"
        ))
    })?;
    let (addr, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/mcp"),
    };
    Ok(Listen::Http {
        addr: addr.to_owned(),
        path: path.to_owned(),
    })
}

impl BridgeArgs {
    /// The authorization options, as every server binary spells them.
    fn auth_options(&self) -> AuthOptions {
        let mut auth = AuthOptions::default();
        auth.issuers = self.auth_issuer.clone();
        auth.scopes = self.auth_scopes.clone();
        auth.resource = self.resource.clone();
        auth.introspection = self.auth_introspection.clone();
        auth.client_id = self.auth_client_id.clone();
        auth.client_secret = self.auth_client_secret.clone();
        auth
    }
}

/// The bridge's own credentials upstream, as the `--upstream-*` options say (none without
/// them).
#[cfg(feature = "cli")]
async fn upstream_authorizer(
    args: &BridgeArgs,
    server_url: &str,
) -> Result<Option<std::sync::Arc<dyn mcp_wire_transport::client::Authorizer>>, BridgeError> {
    use mcp_wire_transport::client::StaticToken;
    use mcp_wire_transport::client::oauth::{
        FileTokenStore, Grant, LoopbackBrowser, OAuthClient, OAuthConfig, PreRegistered,
    };
    let config_error = |e: mcp_wire_transport::TransportError| BridgeError::Config(e.to_string());
    let token = args
        .upstream_token
        .as_ref()
        .map(|t| t.expose().to_owned())
        .or_else(|| std::env::var("MCP_UPSTREAM_TOKEN").ok());
    if let (Some(token), false) = (&token, args.upstream_oauth) {
        return Ok(Some(std::sync::Arc::new(
            StaticToken::bearer(token).map_err(config_error)?,
        )));
    }
    if !args.upstream_oauth {
        return Ok(None);
    }
    let grant = if args.upstream_client_credentials {
        Grant::ClientCredentials
    } else {
        let agent = LoopbackBrowser::bind(
            args.upstream_redirect_port,
            !args.upstream_no_browser,
            Duration::from_secs(300),
        )
        .await?;
        Grant::AuthorizationCode(std::sync::Arc::new(agent))
    };
    let mut config = OAuthConfig::new(grant).client_name("mcp-frames bridge");
    if let Some(id) = &args.upstream_client_id {
        let mut client = PreRegistered::new(id.clone());
        let secret = args.upstream_client_secret.as_ref().cloned().or_else(|| {
            std::env::var("MCP_UPSTREAM_CLIENT_SECRET")
                .ok()
                .map(Secret::new)
        });
        if let Some(secret) = secret {
            client = client.secret(secret);
        }
        config = config.pre_registered(client);
    }
    if let Some(path) = &args.upstream_token_file {
        config = config.store(std::sync::Arc::new(FileTokenStore::new(path)));
    }
    let client = OAuthClient::new(server_url, config).map_err(config_error)?;
    Ok(Some(std::sync::Arc::new(client)))
}

/// Runs the bridge until the client side ends or the upstream goes away.
pub async fn run(args: BridgeArgs) -> Result<(), BridgeError> {
    let target = match (&args.server_url, args.command.is_empty()) {
        (Some(url), true) => UpstreamTarget::Url(url.clone()),
        (None, false) => UpstreamTarget::Command(args.command.clone()),
        _ => {
            return Err(BridgeError::Config(
                "name the upstream: --server-url URL or -- CMD [ARGS…]".into(),
            ));
        }
    };
    let listen = parse_listen(&args.listen)?;
    // Held until the bridge ends.
    #[cfg(feature = "cli")]
    let _metrics = match &args.metrics {
        Some(addr) => {
            Some(mcp_wire_transport::telemetry::MetricsEndpoint::bind(addr.as_str()).await?)
        }
        None => None,
    };
    let report = match &args.report {
        Some(path) => Report::to_file(path)?,
        None => Report::none(),
    };
    let mut limits =
        BridgeLimits::default().request_timeout(Duration::from_secs(args.request_timeout.max(1)));
    if let Some(ms) = args.host_tasks_after {
        limits = limits.host_tasks_after(Duration::from_millis(ms));
    }
    let mut auth = args.auth_options();
    if args.store.is_some() && matches!(listen, Listen::Stdio) {
        return Err(BridgeError::Config(
            "--store shares the sessions of an HTTP client side: --listen http://…".into(),
        ));
    }
    let mut options = BridgeOptions::default()
        .limits(limits)
        .report(report)
        .replica(ReplicaOptions {
            store: args.store.clone(),
            secret_file: args.secret_file.clone(),
        });
    options.emitter = Emitter {
        strict: args.strict,
    };
    if let Some(RevisionList(r)) = &args.client_revisions {
        options = options.client_revisions(r.clone());
    }
    if let Some(RevisionList(r)) = &args.server_revisions {
        options = options.server_revisions(r.clone());
    }
    #[cfg(feature = "cli")]
    if let UpstreamTarget::Url(url) = &target
        && let Some(authorizer) = upstream_authorizer(&args, url).await?
    {
        options = options.upstream_authorizer(authorizer);
    }
    // Bound before the upstream is reached: the default resource is the listen URL.
    let http_listener = match &listen {
        Listen::Stdio => {
            if !auth.issuers.is_empty() {
                return Err(BridgeError::Config(
                    "authorization protects an HTTP client side: --listen http://…".into(),
                ));
            }
            None
        }
        Listen::Http { addr, path } => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let local = listener.local_addr()?;
            if !auth.issuers.is_empty() {
                auth.resource
                    .get_or_insert_with(|| format!("http://{local}{path}"));
            }
            if let Some(resource_server) =
                auth.resource_server(local).map_err(BridgeError::Config)?
            {
                options = options.authenticator(std::sync::Arc::new(resource_server));
            }
            Some(listener)
        }
    };
    let bridge = Bridge::connect(&target, options).await?;
    let s = bridge.snapshot();
    tracing::info!(
        upstream = %s.server_info.name,
        upstream_version = %s.server_info.version,
        revision = s.revision.as_str(),
        transport = %s.transport,
        client_revisions = %bridge
            .client_revisions()
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(","),
        "bridge connected"
    );
    let served = match (listen, http_listener) {
        (Listen::Http { path, .. }, Some(listener)) => {
            println!("http://{}{path}", listener.local_addr()?);
            tracing::info!(addr = %listener.local_addr()?, path, "serving clients");
            bridge.serve_http(listener, &path).await
        }
        _ => bridge.serve_stdio().await,
    };
    bridge.shutdown(Duration::from_secs(6)).await;
    served
}

/// Runs the bridge on a runtime of its own: `Ok(true)` when the client side ended,
/// `Ok(false)` when the upstream went away (said on stderr; every pending request was failed
/// first), an error when it could not start.
pub fn run_blocking(args: BridgeArgs) -> Result<bool, BridgeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(run(args));
    // Our stdin is read on a blocking thread that only a new line or EOF would end: do not
    // wait for it (a client that keeps its pipe open must not keep the bridge alive).
    runtime.shutdown_timeout(Duration::from_millis(200));
    match outcome {
        Ok(()) => Ok(true),
        Err(e @ BridgeError::UpstreamClosed(_)) => {
            tracing::error!("{e}; every pending request was failed");
            Ok(false)
        }
        Err(e) => Err(e),
    }
}
