//! The server value: a handler and the state every request of it shares. What serves it
//! (the runtime, the HTTP transport, stdio connections, replicas) builds on this.

use std::sync::Arc;

use mcp_wire::ProtocolVersion;

use super::auth::Authenticator;
use super::handler::DynHandler;
use super::limits::Limits;
use super::notify::Notifier;
use super::replica::Replica;
use super::session::Sessions;
use super::state::StateSigner;
use super::tasks::TaskStore;

/// The state every request of a server shares.
pub(crate) struct ServerShared {
    pub revisions: Vec<ProtocolVersion>,
    pub limits: Limits,
    pub authenticator: Arc<dyn Authenticator>,
    pub allowed_hosts: Vec<String>,
    pub signer: StateSigner,
    pub sessions: Sessions,
    pub notifier: Notifier,
    pub tasks: Arc<TaskStore>,
    /// With a shared store: this process's replica.
    pub replica: Option<Arc<Replica>>,
}

/// A server: a [`Handler`](super::handler::Handler) and everything the runtime keeps for it.
pub struct Server<H: ?Sized> {
    pub(crate) shared: ServerShared,
    /// Last, so that an `Arc<Server<H>>` is also an `Arc<Runtime>`.
    pub(crate) handler: H,
}

/// The server as the runtime serves it, whatever its handler type: the runtime is compiled
/// once, here, not for each handler type in the crate that names it.
pub(crate) type Runtime = Server<dyn DynHandler>;

impl<H: ?Sized> Server<H> {
    /// Announces changes to every listening client.
    pub fn notifier(&self) -> &Notifier {
        &self.shared.notifier
    }

    /// The revisions offered, oldest first.
    pub fn revisions(&self) -> &[ProtocolVersion] {
        &self.shared.revisions
    }

    /// How many handshake-era sessions are live.
    pub fn session_count(&self) -> usize {
        self.shared.sessions.len()
    }

    /// How many tasks (tasks extension) the server keeps.
    pub fn task_count(&self) -> usize {
        self.shared.tasks.len()
    }

    /// Ends idle sessions now (a background task also does it, see [`Server::serve`]).
    pub fn expire_idle_sessions(&self) {
        self.shared.sessions.expire_idle();
    }
}
