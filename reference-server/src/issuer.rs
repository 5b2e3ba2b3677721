//! `--auth ISSUER`: the server as an OAuth 2.1 resource server that takes the access tokens a
//! real authorization server issues. At start it reads the issuer's metadata (RFC 8414, else
//! OpenID Connect Discovery) and its key set (JWKS); each token is then a JWT whose signature
//! verifies with one of those keys, issued by the issuer, for this server (`aud` is its
//! canonical URI, RFC 8707), not expired, with the scope the server asks for.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{decode, decode_header, DecodingKey, Validation};
use serde_json::Value;

/// The issuer and the keys it signs with.
#[derive(Debug)]
pub struct Issuer {
    /// The issuer identifier (`iss` of its tokens).
    pub url: String,
    keys: JwkSet,
}

/// Why a token is not good for a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a valid token for this server: 401 `invalid_token`.
    Invalid(String),
    /// Valid, but without the scope: 403 `insufficient_scope`.
    Scope,
}

impl Issuer {
    /// Reads the issuer's metadata and key set.
    pub async fn discover(url: &str) -> Result<Issuer, String> {
        // The well-known segment goes between the origin and the issuer's path (RFC 8414 §3.1);
        // OpenID Connect Discovery appends it.
        let base = url.trim_end_matches('/');
        let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
        let split = rest.find('/').unwrap_or(rest.len());
        let (origin, path) = (format!("{scheme}://{}", &rest[..split]), &rest[split..]);
        let mut metadata = None;
        for candidate in [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{base}/.well-known/openid-configuration"),
        ] {
            if let Ok(document) = get_json(&candidate).await {
                metadata = Some(document);
                break;
            }
        }
        let metadata = metadata.ok_or_else(|| format!("{url} serves no metadata"))?;
        let jwks_uri = metadata["jwks_uri"]
            .as_str()
            .ok_or_else(|| format!("{url}'s metadata names no jwks_uri"))?;
        let keys: JwkSet = serde_json::from_value(get_json(jwks_uri).await?)
            .map_err(|e| format!("{jwks_uri} is no JWK set: {e}"))?;
        let url = metadata["issuer"].as_str().unwrap_or(url).to_string();
        Ok(Issuer { url, keys })
    }

    /// Whether `token` is good for a request to `resource` that needs `scope`: issued for this
    /// server alone (`aud` is the resource, or a list of it only), or with `among` for any list
    /// of audiences that names it (the membership test of JWT libraries, a quirk).
    /// `resource: None` takes a token for any audience (a quirk).
    pub fn check(
        &self,
        token: &str,
        resource: Option<&str>,
        among: bool,
        scope: &str,
    ) -> Result<(), Refused> {
        let invalid = |e: jsonwebtoken::errors::Error| Refused::Invalid(e.to_string());
        let header = decode_header(token).map_err(invalid)?;
        let jwk = match &header.kid {
            Some(kid) => self.keys.find(kid),
            None => self.keys.keys.first(),
        }
        .ok_or_else(|| Refused::Invalid("signed with a key the issuer does not list".into()))?;
        let key = DecodingKey::from_jwk(jwk).map_err(invalid)?;
        // The algorithm is the key's, never the token's say.
        let algorithm = jwk
            .common
            .key_algorithm
            .and_then(|a| a.to_string().parse().ok())
            .unwrap_or(jsonwebtoken::Algorithm::RS256);
        let mut validation = Validation::new(algorithm);
        validation.set_issuer(&[&self.url]);
        match resource {
            Some(resource) => {
                validation.set_audience(&[resource]);
                validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            }
            None => {
                validation.validate_aud = false;
                validation.set_required_spec_claims(&["exp", "iss"]);
            }
        }
        let claims = decode::<Value>(token, &key, &validation)
            .map_err(invalid)?
            .claims;
        if let (Some(resource), false) = (resource, among) {
            let alone = match &claims["aud"] {
                Value::String(aud) => aud == resource,
                Value::Array(list) => list.len() == 1 && list[0] == resource,
                _ => false,
            };
            if !alone {
                return Err(Refused::Invalid(
                    "the token is for other audiences besides this server".into(),
                ));
            }
        }
        let scopes = claims["scope"].as_str().unwrap_or_default();
        if scopes.split(' ').any(|s| s == scope) {
            Ok(())
        } else {
            Err(Refused::Scope)
        }
    }
}

/// GETs a JSON document over plain HTTP (the issuer of a test: a loopback URL), within 5 s.
async fn get_json(url: &str) -> Result<Value, String> {
    let fetch = async {
        let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
        let authority = uri
            .authority()
            .ok_or_else(|| format!("{url} has no host"))?
            .clone();
        let port = authority.port_u16().unwrap_or(80);
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let stream = tokio::net::TcpStream::connect((host, port))
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        tokio::spawn(connection);
        let request = Request::get(uri.path_and_query().map_or("/", |p| p.as_str()))
            .header("host", authority.as_str())
            .header("accept", "application/json")
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("{url}: {e}"))?
            .to_bytes();
        serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))
    };
    tokio::time::timeout(Duration::from_secs(5), fetch)
        .await
        .map_err(|_| format!("{url}: no answer within 5 s"))?
}

/// The header of a token shaped as a JWT (three segments, the first two base64url JSON), read
/// without verifying anything: what a server that does not check signatures would go by.
pub fn unverified_header(token: &str) -> Option<Value> {
    let segments: Vec<&str> = token.split('.').collect();
    let json = |segment: &str| {
        base64url(segment).and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    };
    let header = json(segments.first()?)?;
    json(segments.get(1)?)?;
    (segments.len() == 3).then_some(header)
}

/// Decodes base64url (no padding), as JWT segments are written.
fn base64url(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut bits, mut n) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        n = (n << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((n >> bits) as u8);
            n &= (1 << bits) - 1;
        }
    }
    Some(out)
}
