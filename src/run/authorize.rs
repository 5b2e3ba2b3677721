//! Getting an access token for a protected server as an OAuth client does (`--auth
//! client-credentials`): the server's 401 challenge, its Protected Resource Metadata (RFC 9728),
//! the metadata of the authorization server it names (RFC 8414 or OpenID Connect Discovery, in
//! the order MCP 2025-11-25 gives), then the client credentials grant at that server's token
//! endpoint for this server as the resource (RFC 8707). The client secret goes only to that
//! token endpoint, over HTTPS or to a loopback address, never in a URL.

use std::time::Duration;

use serde_json::Value;

use crate::record::challenge;
use crate::record::token::encode_padded;
use crate::record::url::{authority, parse_url};
use crate::transport::http::{send_within, HttpRequest, HttpResponse};

/// A client registered with the authorization server (`--client-id`, `--client-secret-env`).
#[derive(Clone, Debug)]
pub struct ClientCredentials {
    /// The client id.
    pub client_id: String,
    /// The client secret (from the environment; redacted from every output).
    pub client_secret: String,
    /// The scopes to ask for (`--scope`); by default those the server's challenge names, else
    /// those its metadata lists.
    pub scope: Option<String>,
}

/// A token obtained, with how.
#[derive(Clone, Debug)]
pub struct Obtained {
    /// The access token.
    pub access_token: String,
    /// Where it came from, in words (the token endpoint, the scope asked for).
    pub how: String,
}

/// How long each request of the exchange may take.
const WAIT: Duration = Duration::from_secs(10);

/// The largest document read.
const MAX_BODY: usize = 1 << 20;

/// Gets a token for the server at `url` with the client credentials grant.
pub async fn client_credentials(url: &str, client: &ClientCredentials) -> Result<Obtained, String> {
    // The challenge: a request without a token.
    let probe = r#"{"jsonrpc":"2.0","id":"mcpcheck-authorize","method":"ping"}"#;
    let answer = request(
        "POST",
        url,
        vec![
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ],
        probe.as_bytes().to_vec(),
    )
    .await?;
    if answer.status != 401 && answer.status != 403 {
        return Err(format!(
            "{url} answered a request without a token with HTTP {}, not 401: it does not ask for a token",
            answer.status
        ));
    }
    let bearer = challenge::bearer(&answer.headers);
    let named = bearer
        .as_ref()
        .and_then(|c| c.param("resource_metadata"))
        .map(str::to_string);
    let challenged_scope = bearer
        .as_ref()
        .and_then(|c| c.param("scope"))
        .map(str::to_string);
    // The resource metadata: the URL the challenge names, else the well-known URIs.
    let (origin, path) = origin_and_path(url)?;
    let mut candidates: Vec<String> = named.into_iter().collect();
    candidates.push(format!(
        "{origin}/.well-known/oauth-protected-resource{path}"
    ));
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    let resource_metadata = first_document(&candidates).await.map_err(|tried| {
        format!("no protected resource metadata was found for {url} (tried {tried})")
    })?;
    let issuer = resource_metadata["authorization_servers"][0]
        .as_str()
        .ok_or_else(|| "the protected resource metadata names no authorization server".to_string())?
        .to_string();
    // The authorization server's metadata.
    let (as_origin, as_path) = origin_and_path(&issuer)?;
    let candidates = [
        format!("{as_origin}/.well-known/oauth-authorization-server{as_path}"),
        format!("{as_origin}/.well-known/openid-configuration{as_path}"),
        format!("{as_origin}{as_path}/.well-known/openid-configuration"),
    ];
    let server_metadata = first_document(&candidates).await.map_err(|tried| {
        format!("the authorization server {issuer} publishes no metadata (tried {tried})")
    })?;
    let token_endpoint = server_metadata["token_endpoint"]
        .as_str()
        .ok_or_else(|| format!("the authorization server {issuer} names no token endpoint"))?
        .to_string();
    let endpoint = parse_url(&token_endpoint)?;
    let loopback = matches!(
        endpoint.host().unwrap_or_default(),
        "127.0.0.1" | "localhost" | "[::1]" | "::1"
    );
    if endpoint.scheme_str() != Some("https") && !loopback {
        return Err(format!(
            "the token endpoint {token_endpoint} is not https: mcpcheck sends no client secret over plain HTTP (except to a loopback address)"
        ));
    }
    let scope = client.scope.clone().or(challenged_scope).or_else(|| {
        resource_metadata["scopes_supported"]
            .as_array()
            .map(|scopes| {
                scopes
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
    });
    // client_secret_basic unless the server takes only client_secret_post (RFC 8414 §2: basic
    // is the default when the metadata says nothing).
    let methods: Vec<&str> = server_metadata["token_endpoint_auth_methods_supported"]
        .as_array()
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let post = methods.contains(&"client_secret_post") && !methods.contains(&"client_secret_basic");
    let mut form = vec![
        ("grant_type", "client_credentials".to_string()),
        ("resource", url.to_string()),
    ];
    if let Some(scope) = scope.as_ref().filter(|s| !s.is_empty()) {
        form.push(("scope", scope.clone()));
    }
    let mut headers = vec![
        (
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("Accept".to_string(), "application/json".to_string()),
    ];
    if post {
        form.push(("client_id", client.client_id.clone()));
        form.push(("client_secret", client.client_secret.clone()));
    } else {
        let credentials = format!(
            "{}:{}",
            form_encode(&client.client_id),
            form_encode(&client.client_secret)
        );
        headers.push((
            "Authorization".to_string(),
            format!("Basic {}", encode_padded(credentials.as_bytes())),
        ));
    }
    let body = form
        .iter()
        .map(|(k, v)| format!("{k}={}", form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let answer = request("POST", &token_endpoint, headers, body.into_bytes()).await?;
    let document: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    if !(200..300).contains(&answer.status) {
        let error = document["error"].as_str().unwrap_or("no error code");
        return Err(format!(
            "the token endpoint {token_endpoint} refused the client credentials grant with HTTP {} ({error})",
            answer.status
        ));
    }
    let access_token = document["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            format!("the token endpoint {token_endpoint} answered without an access_token")
        })?
        .to_string();
    Ok(Obtained {
        access_token,
        how: format!(
            "client credentials grant at {token_endpoint}{}",
            scope
                .map(|s| format!(", scope \"{s}\""))
                .unwrap_or_default()
        ),
    })
}

/// One request with nothing but these headers (and `Host`), bounded by [`WAIT`].
async fn request(
    method: &str,
    url: &str,
    mut headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<HttpResponse, String> {
    headers.insert(0, ("Host".into(), authority(url).unwrap_or_default()));
    let request = HttpRequest {
        method: method.into(),
        url: url.into(),
        headers,
        body,
        stream_for: None,
        drop_after_events: None,
        reuse: None,
    };
    send_within(&request, MAX_BODY, WAIT, Duration::from_millis(500)).await
}

/// The first of `urls` that answers 2xx with a JSON object, or the URLs tried, in words.
async fn first_document(urls: &[String]) -> Result<Value, String> {
    let mut tried = Vec::new();
    for url in urls {
        if tried.iter().any(|(u, _): &(String, String)| u == url) {
            continue;
        }
        let got = match request(
            "GET",
            url,
            vec![("Accept".into(), "application/json".into())],
            Vec::new(),
        )
        .await
        {
            Ok(answer) if (200..300).contains(&answer.status) => {
                match serde_json::from_str::<Value>(&answer.body) {
                    Ok(document) if document.is_object() => return Ok(document),
                    _ => format!("HTTP {}, not a JSON object", answer.status),
                }
            }
            Ok(answer) => format!("HTTP {}", answer.status),
            Err(e) => e,
        };
        tried.push((url.clone(), got));
    }
    Err(tried
        .iter()
        .map(|(url, got)| format!("{url}: {got}"))
        .collect::<Vec<_>>()
        .join("; "))
}

/// A URL's origin as written and its path without a trailing slash.
fn origin_and_path(url: &str) -> Result<(String, String), String> {
    parse_url(url)?;
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..end]);
    let path = rest[end..].split(['?', '#']).next().unwrap_or("");
    Ok((origin, path.trim_end_matches('/').to_string()))
}

/// `application/x-www-form-urlencoded` (RFC 6749 appendix B): unreserved bytes as they are,
/// every other byte percent-encoded (a space too).
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_origin_and_path_and_forms_encode_every_reserved_byte() {
        assert_eq!(
            origin_and_path("https://a.example:8443/tenant/1/?x").unwrap(),
            (
                "https://a.example:8443".to_string(),
                "/tenant/1".to_string()
            )
        );
        assert_eq!(
            origin_and_path("http://localhost:9").unwrap(),
            ("http://localhost:9".to_string(), String::new())
        );
        assert!(origin_and_path("ftp://x").is_err());
        assert_eq!(form_encode("a b+c/é"), "a%20b%2Bc%2F%C3%A9");
    }
}
