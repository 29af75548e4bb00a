//! The HTTP the validators speak to authorization servers: a pluggable sender, the one built in
//! (`https://` with feature `tls`), and the two exchanges they make (a JSON document, a form
//! post).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// The connector under [`HttpSender`]: TLS over TCP with feature `tls`, plain TCP without.
#[cfg(feature = "tls")]
type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
#[cfg(not(feature = "tls"))]
type Connector = HttpConnector;

/// The URI schemes [`HttpSender`] reaches.
#[cfg(feature = "tls")]
const SCHEMES: &[&str] = &["https", "http"];
#[cfg(not(feature = "tls"))]
const SCHEMES: &[&str] = &["http"];

/// The largest document a validator reads from an authorization server.
const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// What [`OAuthHttp::send`] returns.
pub type FetchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Response<Bytes>, FetchError>> + Send + 'a>>;

/// Sends the requests a validator makes to an authorization server (its metadata, its key set,
/// its introspection endpoint). The built-in [`HttpSender`] speaks `https://` with feature `tls`
/// and plain `http://` always; plug another sender for other needs (a proxy, private roots).
pub trait OAuthHttp: Send + Sync + 'static {
    /// The response to `request`, its body read whole.
    fn send(&self, request: Request<Bytes>) -> FetchFuture<'_>;
}

/// Why an exchange with an authorization server failed (it never quotes a credential).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(String);

impl FetchError {
    /// An error saying `what`.
    pub fn new(what: impl Into<String>) -> Self {
        Self(what.into())
    }
}

/// Plain HTTP/1.1 (no TLS), each exchange bounded in time and in size.
#[derive(Clone)]
pub struct HttpSender {
    client: Client<Connector, Full<Bytes>>,
    timeout: Duration,
}

impl std::fmt::Debug for HttpSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSender")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for HttpSender {
    fn default() -> Self {
        Self::new(Duration::from_secs(10))
    }
}

impl HttpSender {
    /// A sender whose exchanges each take at most `timeout`.
    pub fn new(timeout: Duration) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(timeout));
        #[cfg(feature = "tls")]
        let connector = {
            connector.enforce_http(false);
            hyper_rustls::HttpsConnectorBuilder::new()
                .with_webpki_roots()
                .https_or_http()
                .enable_http1()
                .wrap_connector(connector)
        };
        Self {
            client: Client::builder(TokioExecutor::new()).build(connector),
            timeout,
        }
    }
}

impl OAuthHttp for HttpSender {
    fn send(&self, request: Request<Bytes>) -> FetchFuture<'_> {
        Box::pin(async move {
            if !SCHEMES.contains(&request.uri().scheme_str().unwrap_or_default()) {
                return Err(FetchError::new(format!(
                    "{}: the built-in sender speaks {}",
                    request.uri(),
                    SCHEMES.join(" and "),
                )));
            }
            let uri = request.uri().clone();
            let exchange = async {
                let response = self
                    .client
                    .request(request.map(Full::new))
                    .await
                    .map_err(|e| FetchError::new(format!("{uri}: {e}")))?;
                let (parts, body) = response.into_parts();
                let body = Limited::new(body, MAX_DOCUMENT_BYTES)
                    .collect()
                    .await
                    .map_err(|e| FetchError::new(format!("{uri}: {e}")))?
                    .to_bytes();
                Ok(Response::from_parts(parts, body))
            };
            tokio::time::timeout(self.timeout, exchange)
                .await
                .unwrap_or_else(|_| Err(FetchError::new(format!("{uri}: no answer in time"))))
        })
    }
}

/// The JSON object served at `url` (any status but 200 is an error).
#[cfg(feature = "jwt")]
pub(crate) async fn get_json(http: &dyn OAuthHttp, url: &str) -> Result<Value, FetchError> {
    let request = Request::builder()
        .method(Method::GET)
        .uri(url)
        .header(header::ACCEPT, "application/json")
        .body(Bytes::new())
        .map_err(|e| FetchError::new(format!("{url}: {e}")))?;
    json_object(url, http.send(request).await?)
}

/// The JSON object answering a form post of `fields` to `url`, sent with HTTP Basic client
/// credentials (`client_secret_basic`, RFC 6749 §2.3.1) when `client` names them.
pub(crate) async fn post_form(
    http: &dyn OAuthHttp,
    url: &str,
    fields: &[(&str, &str)],
    client: Option<(&str, &str)>,
) -> Result<Value, FetchError> {
    let body = fields
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(url)
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some((id, secret)) = client {
        let pair = format!("{}:{}", form_encode(id), form_encode(secret));
        let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
        request = request.header(header::AUTHORIZATION, format!("Basic {encoded}"));
    }
    let request = request
        .body(Bytes::from(body))
        .map_err(|e| FetchError::new(format!("{url}: {e}")))?;
    json_object(url, http.send(request).await?)
}

fn json_object(url: &str, response: Response<Bytes>) -> Result<Value, FetchError> {
    if response.status() != StatusCode::OK {
        return Err(FetchError::new(format!(
            "{url}: answered {}",
            response.status()
        )));
    }
    match serde_json::from_slice::<Value>(response.body()) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(FetchError::new(format!("{url}: not a JSON object"))),
        Err(e) => Err(FetchError::new(format!("{url}: not JSON: {e}"))),
    }
}

/// `application/x-www-form-urlencoded` for one name or value: unreserved characters as they
/// are, everything else percent-encoded (a space too, which is the safe spelling).
pub(crate) fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_keeps_unreserved_characters_only() {
        assert_eq!(form_encode("a-b.c_d~9"), "a-b.c_d~9");
        assert_eq!(form_encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    }

    #[tokio::test]
    async fn the_built_in_sender_refuses_other_schemes() {
        let e = post_form(&HttpSender::default(), "ftp://as.example/keys", &[], None)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "ftp://as.example/keys: the built-in sender speaks {}",
                SCHEMES.join(" and ")
            )
        );
    }

    #[cfg(not(feature = "tls"))]
    #[tokio::test]
    async fn without_tls_the_built_in_sender_refuses_https() {
        let e = post_form(&HttpSender::default(), "https://as.example/keys", &[], None)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "https://as.example/keys: the built-in sender speaks http"
        );
    }

    /// An `https://` URL goes through a TLS handshake: a loopback listener that answers in
    /// plain HTTP fails it, where the plain connector would have read its answer.
    #[cfg(feature = "tls")]
    #[tokio::test]
    async fn with_tls_the_built_in_sender_shakes_hands_on_https() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = crate::spawn::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut hello = [0u8; 5];
            socket.read_exact(&mut hello).await.unwrap();
            socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                .await
                .unwrap();
            hello
        });
        let url = format!("https://127.0.0.1:{port}/keys");
        let e = post_form(&HttpSender::default(), &url, &[], None)
            .await
            .unwrap_err();
        let hello = server.await.unwrap();
        assert_eq!(
            hello[0], 0x16,
            "a TLS handshake record opens the connection"
        );
        assert!(e.to_string().starts_with(&format!("{url}: ")), "{e}");
        assert!(!e.to_string().contains("speaks"), "{e}");
    }
}
