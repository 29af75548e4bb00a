//! Where the OAuth client keeps what it obtained — tokens and client registrations — between
//! uses: a pluggable [`TokenStore`], kept in memory ([`MemoryTokenStore`]) or in a file readable by
//! its owner only ([`FileTokenStore`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::{Secret, TransportError};

/// The tokens a token endpoint issued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token.
    pub access_token: Secret,
    /// `Bearer`, or `DPoP` for a proof-of-possession token.
    pub token_type: String,
    /// The refresh token, when one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires (seconds since the Unix epoch), when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (space-separated), when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The issuer of the authorization server that issued them (a refresh goes there only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

impl Tokens {
    /// Whether the access token has expired (or expires within `margin`).
    pub fn expired(&self, margin: Duration) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        self.expires_at
            .is_some_and(|at| at <= now.saturating_add(margin.as_secs()))
    }
}

/// A client's registration at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Registration {
    /// The issuer it was made with.
    pub issuer: String,
    /// The client id (for a client ID metadata document: its URL).
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint (`client_secret_basic`,
    /// `client_secret_post`, `none`, `private_key_jwt`).
    pub token_endpoint_auth_method: String,
}

/// What the client keeps for one protected resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Stored {
    /// The current tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// The client's registrations, one per authorization server.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registrations: Vec<Registration>,
}

/// Keeps [`Stored`] credentials by resource (the MCP endpoint's URL).
pub trait TokenStore: Send + Sync + 'static {
    /// What is kept for `resource` (empty when nothing is).
    fn load(&self, resource: &str) -> Result<Stored, TransportError>;
    /// Replaces what is kept for `resource`.
    fn save(&self, resource: &str, stored: &Stored) -> Result<(), TransportError>;
}

/// Credentials for this process only.
#[derive(Debug, Default)]
pub struct MemoryTokenStore(Mutex<HashMap<String, Stored>>);

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Result<Stored, TransportError> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Ok(map.get(resource).cloned().unwrap_or_default())
    }

    fn save(&self, resource: &str, stored: &Stored) -> Result<(), TransportError> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(resource.to_owned(), stored.clone());
        Ok(())
    }
}

/// Credentials in one JSON file (an object by resource), created readable and writable by its
/// owner only (mode 0600 on Unix) and replaced whole on every save.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    fn read_all(&self) -> Result<HashMap<String, Stored>, TransportError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                TransportError::Authorization(format!(
                    "the token file {} is unreadable: {e}",
                    self.path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(TransportError::Io(e)),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, resource: &str) -> Result<Stored, TransportError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        Ok(self.read_all()?.remove(resource).unwrap_or_default())
    }

    fn save(&self, resource: &str, stored: &Stored) -> Result<(), TransportError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = self.read_all()?;
        all.insert(resource.to_owned(), stored.clone());
        let text = serde_json::to_vec_pretty(&all)
            .map_err(|e| TransportError::Authorization(e.to_string()))?;
        // Written beside the file and renamed over it, so a reader never sees half of it.
        let temporary = self.path.with_extension("tmp");
        write_private(&temporary, &text)?;
        std::fs::rename(&temporary, &self.path)?;
        Ok(())
    }
}

/// Writes `bytes` to a new file at `path` that only its owner may read or write.
fn write_private(path: &std::path::Path, bytes: &[u8]) -> Result<(), TransportError> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens {
            access_token: Secret::new("at-123"),
            token_type: "Bearer".into(),
            refresh_token: Some(Secret::new("rt-456")),
            expires_at: Some(1),
            scope: Some("a b".into()),
            issuer: Some("http://as".into()),
        }
    }

    #[test]
    fn debug_never_shows_a_token() {
        let text = format!("{:?}", tokens());
        assert!(
            !text.contains("at-123") && !text.contains("rt-456"),
            "{text}"
        );
        assert!(tokens().expired(Duration::ZERO));
    }

    #[test]
    fn the_file_store_round_trips_with_owner_only_permissions() {
        let dir = std::env::temp_dir().join(format!("mcp-wire-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let store = FileTokenStore::new(&path);
        assert_eq!(store.load("http://h/mcp").unwrap(), Stored::default());
        let stored = Stored {
            tokens: Some(tokens()),
            registrations: vec![Registration {
                issuer: "http://as".into(),
                client_id: "c".into(),
                client_secret: None,
                token_endpoint_auth_method: "none".into(),
            }],
        };
        store.save("http://h/mcp", &stored).unwrap();
        assert_eq!(
            FileTokenStore::new(&path).load("http://h/mcp").unwrap(),
            stored
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
