//! How the user authorizes in the authorization code flow: the authorization URL goes to a
//! [`UserAgent`], which comes back with the callback URL the authorization server redirected
//! to. [`FollowRedirect`] is the non-interactive one (an authorization server that redirects by
//! itself, as test servers do); [`LoopbackBrowser`] prints the URL, opens a browser where one
//! exists and waits for the redirect on a loopback listener.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::exchange::{failed, redirect_location};
use crate::TransportError;
use crate::server::oauth::OAuthHttp;

/// What [`UserAgent::authorize`] returns: the callback URL with the authorization response.
pub type CallbackFuture<'a> =
    Pin<Box<dyn Future<Output = Result<String, TransportError>> + Send + 'a>>;

/// Takes the user through the authorization endpoint.
pub trait UserAgent: Send + Sync + 'static {
    /// The redirect URI registered for the client and sent in the authorization request.
    fn redirect_uri(&self) -> String;
    /// Visits `authorization_url` and returns the URL the authorization server redirected to
    /// (the redirect URI with `code`, `state` and possibly `iss`).
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> CallbackFuture<'a>;
}

/// Non-interactive: requests the authorization URL and takes its redirect as the callback,
/// for authorization servers that decide without a user (tests, pre-consented clients).
pub struct FollowRedirect {
    http: Arc<dyn OAuthHttp>,
    redirect_uri: String,
}

impl FollowRedirect {
    /// Reads redirects with `http`; `redirect_uri` is registered but never listened on.
    pub fn new(http: Arc<dyn OAuthHttp>, redirect_uri: impl Into<String>) -> Self {
        Self {
            http,
            redirect_uri: redirect_uri.into(),
        }
    }
}

impl std::fmt::Debug for FollowRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowRedirect")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

impl UserAgent for FollowRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, authorization_url: &'a str) -> CallbackFuture<'a> {
        Box::pin(redirect_location(self.http.as_ref(), authorization_url))
    }
}

/// Interactive: a listener on a loopback port receives the redirect; the authorization URL is
/// printed on stderr (and handed to `xdg-open` or `open` when `open_browser` is set).
#[derive(Debug)]
pub struct LoopbackBrowser {
    listener: TcpListener,
    redirect_uri: String,
    open_browser: bool,
    wait: Duration,
}

impl LoopbackBrowser {
    /// Listens on `127.0.0.1:port` (0: any free port) for the redirect to `/callback`, waiting
    /// at most `wait` for the user.
    pub async fn bind(port: u16, open_browser: bool, wait: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            open_browser,
            wait,
        })
    }

    /// Accepts connections until one requests the callback path; answers it with a short page.
    async fn callback(&self) -> Result<String, TransportError> {
        loop {
            let (mut stream, _) = self.listener.accept().await?;
            let mut buffer = vec![0; 8192];
            let read = stream.read(&mut buffer).await?;
            let head = String::from_utf8_lossy(&buffer[..read]);
            let target = head
                .lines()
                .next()
                .and_then(|line| line.split(' ').nth(1))
                .unwrap_or_default()
                .to_owned();
            if !target.starts_with("/callback") {
                let _ = stream
                    .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    .await;
                continue;
            }
            let page = "Authorization received; you can close this window.";
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            let base = self.redirect_uri.trim_end_matches("/callback");
            return Ok(format!("{base}{target}"));
        }
    }
}

impl UserAgent for LoopbackBrowser {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, authorization_url: &'a str) -> CallbackFuture<'a> {
        Box::pin(async move {
            eprintln!("Open this URL to authorize:\n{authorization_url}");
            if self.open_browser {
                for opener in ["xdg-open", "open"] {
                    let spawned = std::process::Command::new(opener)
                        .arg(authorization_url)
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn();
                    if spawned.is_ok() {
                        break;
                    }
                }
            }
            tokio::time::timeout(self.wait, self.callback())
                .await
                .map_err(|_| failed("no authorization came back in time"))?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_listener_returns_the_callback() {
        let agent = LoopbackBrowser::bind(0, false, Duration::from_secs(5))
            .await
            .unwrap();
        let redirect = agent.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:"));
        let address = redirect
            .trim_start_matches("http://")
            .trim_end_matches("/callback")
            .to_owned();
        let browser = crate::spawn::spawn(async move {
            let mut stray = tokio::net::TcpStream::connect(&address).await.unwrap();
            stray
                .write_all(b"GET /favicon.ico HTTP/1.1\r\n\r\n")
                .await
                .unwrap();
            let mut sink = Vec::new();
            stray.read_to_end(&mut sink).await.unwrap();
            let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
            stream
                .write_all(b"GET /callback?code=c1&state=s1 HTTP/1.1\r\nhost: x\r\n\r\n")
                .await
                .unwrap();
            let mut page = String::new();
            stream.read_to_string(&mut page).await.unwrap();
            page
        });
        let callback = agent.authorize("http://as/authorize").await.unwrap();
        assert_eq!(callback, format!("{redirect}?code=c1&state=s1"));
        assert!(browser.await.unwrap().starts_with("HTTP/1.1 200 OK"));
    }
}
