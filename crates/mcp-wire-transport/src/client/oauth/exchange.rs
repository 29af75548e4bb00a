//! The HTTP exchanges the OAuth client makes, over the resource server's pluggable sender
//! ([`OAuthHttp`]): a JSON document, a form post whose error answers are read too, and the
//! authorization request whose redirect is read, not followed.

use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use serde_json::Value;

use crate::TransportError;
use crate::server::oauth::OAuthHttp;

/// An authorization error saying `what`.
pub(crate) fn failed(what: impl Into<String>) -> TransportError {
    TransportError::Authorization(what.into())
}

/// The JSON object at `url`: `Ok(None)` when the server has none there (any 4xx), an error
/// when it cannot be reached or answers something else.
pub(crate) async fn get_json(
    http: &dyn OAuthHttp,
    url: &str,
) -> Result<Option<Value>, TransportError> {
    let request = Request::builder()
        .method(Method::GET)
        .uri(url)
        .header(header::ACCEPT, "application/json")
        .body(Bytes::new())
        .map_err(|e| failed(format!("{url}: {e}")))?;
    let response = http
        .send(request)
        .await
        .map_err(|e| failed(e.to_string()))?;
    if response.status().is_client_error() {
        return Ok(None);
    }
    if response.status() != StatusCode::OK {
        return Err(failed(format!("{url}: answered {}", response.status())));
    }
    match serde_json::from_slice::<Value>(response.body()) {
        Ok(v @ Value::Object(_)) => Ok(Some(v)),
        _ => Err(failed(format!("{url}: not a JSON object"))),
    }
}

/// What a form post came back with.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// The JSON object of the body (`Null` when it is none).
    pub body: Value,
}

impl Answer {
    /// The OAuth `error` code of an error answer.
    pub fn error_code(&self) -> Option<&str> {
        self.body.get("error").and_then(Value::as_str)
    }

    /// A description of an error answer for messages (its `error` and `error_description`,
    /// which carry no credential).
    pub fn describe(&self) -> String {
        let code = self.error_code().unwrap_or("no error code");
        match self.body.get("error_description").and_then(Value::as_str) {
            Some(text) => format!("HTTP {}: {code}: {text}", self.status),
            None => format!("HTTP {}: {code}", self.status),
        }
    }
}

/// Posts `fields` as a form (JSON with `json_body`) to `url` with `headers`.
pub(crate) async fn post(
    http: &dyn OAuthHttp,
    url: &str,
    body: PostBody<'_>,
    headers: &[(HeaderName, HeaderValue)],
) -> Result<Answer, TransportError> {
    let (content_type, bytes) = match body {
        PostBody::Form(fields) => (
            "application/x-www-form-urlencoded",
            Bytes::from(form_encode_pairs(fields)),
        ),
        PostBody::Json(value) => (
            "application/json",
            Bytes::from(serde_json::to_vec(value).map_err(|e| failed(e.to_string()))?),
        ),
    };
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(url)
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, content_type);
    for (name, value) in headers {
        request = request.header(name, value.clone());
    }
    let request = request
        .body(bytes)
        .map_err(|e| failed(format!("{url}: {e}")))?;
    let response = http
        .send(request)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let (parts, body) = response.into_parts();
    Ok(Answer {
        status: parts.status,
        headers: parts.headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// The body of a [`post`].
pub(crate) enum PostBody<'a> {
    /// `application/x-www-form-urlencoded`.
    Form(&'a [(&'a str, &'a str)]),
    /// `application/json` (dynamic client registration).
    Json(&'a Value),
}

/// `Authorization: Basic` for a client id and secret (RFC 6749 §2.3.1: each form-encoded).
pub(crate) fn basic_credentials(client_id: &str, secret: &str) -> HeaderValue {
    let pair = format!("{}:{}", form_encode(client_id), form_encode(secret));
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let mut value = HeaderValue::from_str(&format!("Basic {encoded}"))
        .unwrap_or_else(|_| HeaderValue::from_static("Basic"));
    value.set_sensitive(true);
    value
}

/// The `Location` an authorization endpoint redirects `url` to (its redirect is not
/// followed: the location is the callback holding the code).
pub(crate) async fn redirect_location(
    http: &dyn OAuthHttp,
    url: &str,
) -> Result<String, TransportError> {
    let request = Request::builder()
        .method(Method::GET)
        .uri(url)
        .body(Bytes::new())
        .map_err(|e| failed(format!("the authorization URL: {e}")))?;
    let response = http
        .send(request)
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.status().is_redirection() {
        return Err(failed(format!(
            "the authorization endpoint answered {} instead of redirecting",
            response.status()
        )));
    }
    response
        .headers()
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| failed("the authorization endpoint redirected without a Location"))
}

/// `name=value&…`, each form-encoded.
pub(crate) fn form_encode_pairs(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `application/x-www-form-urlencoded` for one name or value (unreserved characters as they
/// are, every other byte percent-encoded).
pub(crate) fn form_encode(text: &str) -> String {
    crate::server::oauth::form_encode(text)
}

/// The parameters of a URL's query (`+` a space, `%XX` decoded); malformed escapes are kept.
pub(crate) fn query_pairs(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => hex(h).zip(hex(l)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        match (escaped, bytes[i]) {
            (Some(b), _) => {
                out.push(b);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, b) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_pairs_are_decoded() {
        let pairs = query_pairs("http://h/cb?code=a%2Fb&state=x+y&iss=https%3A%2F%2Fas#frag");
        assert_eq!(
            pairs,
            [
                ("code".to_owned(), "a/b".to_owned()),
                ("state".to_owned(), "x y".to_owned()),
                ("iss".to_owned(), "https://as".to_owned()),
            ]
        );
        assert_eq!(
            query_pairs("http://h/cb?e=%zz%4"),
            [("e".to_owned(), "%zz%4".to_owned())]
        );
    }

    #[test]
    fn basic_credentials_encode_each_part() {
        let value = basic_credentials("id:1", "s p");
        // base64("id%3A1:s%20p")
        assert_eq!(value.to_str().unwrap(), "Basic aWQlM0ExOnMlMjBw");
        assert!(value.is_sensitive());
    }
}
