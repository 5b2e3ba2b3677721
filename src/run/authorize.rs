//! Getting an access token for a protected server as an OAuth client does (`--auth`): the
//! server's 401 challenge, its Protected Resource Metadata (RFC 9728), the metadata of the
//! authorization server it names (RFC 8414 or OpenID Connect Discovery, in the order MCP
//! 2025-11-25 gives), then a grant at that server's token endpoint for this server as the
//! resource (RFC 8707): client credentials (for CI), or the authorization code with PKCE S256
//! (interactive: the user signs in in a browser, which the authorization server sends back to a
//! loopback listener of mcpcheck's). Without a client id, mcpcheck first registers itself with
//! that server's registration endpoint (Dynamic Client Registration, RFC 7591). The client
//! secret, the code and the PKCE verifier go only to that token endpoint, over HTTPS or to a
//! loopback address, never in a URL.

use std::time::Duration;

use serde_json::Value;

use crate::record::challenge;
use crate::record::token::encode_padded;
use crate::record::url::{authority, parse_url};
use crate::transport::http::{send_within, HttpRequest, HttpResponse};

/// How the token is got (`--auth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// The client credentials grant (RFC 6749 §4.4): a confidential client, no user.
    ClientCredentials,
    /// The authorization code grant with PKCE S256 (OAuth 2.1 §4.1): the user signs in in a
    /// browser.
    Code,
}

/// The client mcpcheck is to the authorization server (`--client-id`, `--client-secret-env`).
#[derive(Clone, Debug)]
pub struct Client {
    /// The grant.
    pub flow: Flow,
    /// The client id; `None`: mcpcheck registers itself (RFC 7591) and uses the id it is given.
    pub client_id: Option<String>,
    /// The client secret (from the environment, or from a registration's answer; redacted from
    /// every output); `None` for a public client, and in what the user gives without a
    /// `--client-id`.
    pub client_secret: Option<String>,
    /// The scopes to ask for (`--scope`); by default those the server's challenge names, else
    /// those its metadata lists.
    pub scope: Option<String>,
    /// How the client authenticates at the token endpoint, where its registration said
    /// (`token_endpoint_auth_method`, RFC 7591 §2); `None`: by what the server's metadata lists.
    pub auth_method: Option<String>,
}

/// A token obtained, with how.
#[derive(Clone, Debug)]
pub struct Obtained {
    /// The access token.
    pub access_token: String,
    /// Where it came from, in words (the token endpoint, the scope asked for).
    pub how: String,
    /// With client credentials, tokens the same client got that the server should refuse, by
    /// the name a scenario sends them under (`{{auth.NAME}}`), or why the authorization server
    /// issued none: `other-audience`, for another resource ([`OTHER_RESOURCE`]), and
    /// `shared-audience`, for the server and that resource at once.
    pub issued: crate::record::token::Issued,
    /// What a registration gave that must not be shown: the client secret and the registration
    /// access token (RFC 7591 §3.2.1); empty when mcpcheck did not register.
    pub secrets: Vec<String>,
}

/// The resource mcpcheck asks a token for that is not the server under test (RFC 8707): a URL
/// under the `.invalid` top-level domain, which names nothing (RFC 6761).
pub const OTHER_RESOURCE: &str = "https://mcpcheck.invalid/another-resource";

/// How long each request of the exchange may take.
const WAIT: Duration = Duration::from_secs(10);

/// The largest document read.
const MAX_BODY: usize = 1 << 20;

/// What discovery found: where to get a token, and for which scope.
struct Discovered {
    /// The authorization server's issuer identifier.
    issuer: String,
    authorization_endpoint: Option<String>,
    token_endpoint: String,
    /// Where a client registers itself (RFC 7591), when the server offers it.
    registration_endpoint: Option<String>,
    /// Whether the server takes a Client ID Metadata Document's URL as a client id.
    metadata_documents: bool,
    /// Whether the server says it names itself in every authorization response
    /// (`authorization_response_iss_parameter_supported`, RFC 9207 §3).
    names_itself: bool,
    scope: Option<String>,
    /// `token_endpoint_auth_methods_supported`.
    auth_methods: Vec<String>,
}

impl Discovered {
    /// Whether the server takes a client secret only in the form (`client_secret_post`): it
    /// lists that method and not `client_secret_basic` (RFC 8414 §2: a server that lists none
    /// takes `client_secret_basic`).
    fn takes_post_only(&self) -> bool {
        let lists = |m: &str| self.auth_methods.iter().any(|a| a == m);
        lists("client_secret_post") && !lists("client_secret_basic")
    }
}

/// Why no token could be had (`--auth`): the run cannot test the server (exit 3).
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A request to the server or its authorization server failed.
    #[error(transparent)]
    Http(#[from] crate::transport::http::HttpError),
    /// A URL that cannot be spoken to.
    #[error(transparent)]
    Url(#[from] crate::record::url::UrlError),
    /// A URL without a scheme.
    #[error("`{0}` has no scheme")]
    NoScheme(String),
    /// Credentials would go where plain HTTP says.
    #[error("{what} {url} is not https: mcpcheck sends no credentials by what plain HTTP says (except on a loopback address)")]
    Insecure {
        /// What the URL is (`the server`, `the token_endpoint`, …).
        what: String,
        /// The URL.
        url: String,
    },
    /// The server answered without a token as if it needs none.
    #[error("{url} answered a request without a token with HTTP {status}, not 401: it does not ask for a token")]
    NoChallenge {
        /// The server.
        url: String,
        /// Its status.
        status: u16,
    },
    /// No protected resource metadata.
    #[error("no protected resource metadata was found for {url} (tried {tried})")]
    NoResourceMetadata {
        /// The server.
        url: String,
        /// The URLs tried, and what each answered.
        tried: String,
    },
    /// Resource metadata of another resource (RFC 9728 §3.3).
    #[error(
        "the protected resource metadata is for {resource:?}, not {url}: a client must not use it"
    )]
    ForeignResourceMetadata {
        /// The resource it names.
        resource: String,
        /// The server.
        url: String,
    },
    /// Resource metadata naming no authorization server.
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// No authorization server metadata.
    #[error("the authorization server {issuer} publishes no metadata (tried {tried})")]
    NoServerMetadata {
        /// The issuer.
        issuer: String,
        /// The URLs tried, and what each answered.
        tried: String,
    },
    /// Authorization server metadata of another issuer (RFC 8414 §3.3).
    #[error("the authorization server metadata found for {issuer} is the issuer {speaks_for:?}'s: a client must not use it")]
    ForeignServerMetadata {
        /// The issuer asked about.
        issuer: String,
        /// The issuer the metadata names.
        speaks_for: String,
    },
    /// No token endpoint.
    #[error("the authorization server {0} names no token endpoint")]
    NoTokenEndpoint(String),
    /// No authorization endpoint, for `--auth code`.
    #[error("the authorization server names no authorization endpoint")]
    NoAuthorizationEndpoint,
    /// No PKCE S256, which an MCP client must have.
    #[error("the authorization server {0} does not list S256 in code_challenge_methods_supported, so an MCP client must not use it")]
    NoS256(String),
    /// The token endpoint refused the grant.
    #[error("the token endpoint {endpoint} refused the grant with HTTP {status} ({error})")]
    TokenRefused {
        /// The token endpoint.
        endpoint: String,
        /// Its status.
        status: u16,
        /// Its `error`, or `no error code`.
        error: String,
    },
    /// A token of another type than Bearer.
    #[error("the token endpoint {endpoint} issued a token of type {token_type:?}, not Bearer: mcpcheck sends bearer tokens only")]
    NotBearer {
        /// The token endpoint.
        endpoint: String,
        /// The type it said.
        token_type: String,
    },
    /// An answer without a token.
    #[error("the token endpoint {0} answered without an access_token")]
    NoAccessToken(String),
    /// No way for mcpcheck to be a client there.
    #[error("no --client-id was given, and the authorization server {issuer} offers no registration_endpoint (RFC 7591) for mcpcheck to register itself: give --client-id, a client registered there.{}", if *.metadata_documents { " It takes Client ID Metadata Documents: give --client-id the https URL of one." } else { "" })]
    NoRegistration {
        /// The issuer.
        issuer: String,
        /// Whether it takes Client ID Metadata Documents.
        metadata_documents: bool,
    },
    /// The code flow without a redirect URI to register.
    #[error("no redirect URI to register for the authorization code")]
    NoRedirectUri,
    /// The registration endpoint refused (RFC 7591 §3.2.2).
    #[error("the registration endpoint {endpoint} refused to register mcpcheck with HTTP {status} ({error}{}); give --client-id, a client registered there", .description.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    RegistrationRefused {
        /// The registration endpoint.
        endpoint: String,
        /// Its status.
        status: u16,
        /// Its `error`, or `no error code`.
        error: String,
        /// Its `error_description`.
        description: Option<String>,
    },
    /// A registration without a client id.
    #[error("the registration endpoint {0} answered without a client_id")]
    NoClientId(String),
    /// A registration without the secret the client credentials grant needs.
    #[error("the registration endpoint {0} registered mcpcheck without a client_secret, which the client credentials grant needs")]
    NoClientSecret(String),
    /// No loopback port for the browser to come back to.
    #[error("no loopback port for the redirect: {0}")]
    NoLoopback(std::io::Error),
    /// The user did not sign in in time.
    #[error("no sign-in came back to {redirect_uri} within {seconds} s")]
    NoSignIn {
        /// Where the browser was to come back.
        redirect_uri: String,
        /// How long mcpcheck waited.
        seconds: u64,
    },
    /// A redirect naming another issuer (RFC 9207).
    #[error("the redirect names the issuer {named:?}, not {issuer:?}: an answer of another authorization server (RFC 9207)")]
    ForeignIssuer {
        /// The issuer the redirect names.
        named: String,
        /// The issuer mcpcheck asked.
        issuer: String,
    },
    /// A redirect naming no issuer from a server that says it names itself (RFC 9207).
    #[error("the redirect names no issuer, though {0} says it names itself in every answer: an answer of another authorization server (RFC 9207)")]
    IssuerMissing(String),
    /// The authorization server refused the sign-in.
    #[error("the authorization server refused: {0}")]
    Refused(String),
    /// A redirect without a code.
    #[error("the redirect carries no code")]
    NoCode,
    /// A redirect of a sign-in mcpcheck did not start.
    #[error("the redirect's state is not the one mcpcheck sent: a sign-in mcpcheck did not start")]
    WrongState,
    /// No randomness for PKCE and the state.
    #[error("the system has no randomness to give")]
    NoRandomness,
}

/// How long the user has to sign in (`--auth code`).
const SIGN_IN: Duration = Duration::from_secs(300);

/// Gets a token for the server at `url`. `show` is told the URL the user must open to sign in
/// (`--auth code`), before mcpcheck waits for the browser to come back.
pub async fn obtain(
    url: &str,
    client: &Client,
    show: &(dyn Fn(&str) + Sync),
) -> Result<Obtained, AuthError> {
    let found = discover(url, client).await?;
    if client.flow == Flow::Code && found.authorization_endpoint.is_none() {
        return Err(AuthError::NoAuthorizationEndpoint);
    }
    // The code's redirect listener comes first: a client registers its redirect URI.
    let listener = match client.flow {
        Flow::Code => Some(Redirect::listen().await?),
        Flow::ClientCredentials => None,
    };
    let mut secrets = Vec::new();
    let mut registered = String::new();
    let client = match &client.client_id {
        Some(_) => client.clone(),
        None => {
            let redirect_uri = listener.as_ref().map(|l| l.uri.as_str());
            let (client, endpoint, kept) = register(&found, client, redirect_uri).await?;
            secrets = kept;
            registered = format!(
                ", as the client {} mcpcheck registered at {endpoint}",
                client.client_id.as_deref().unwrap_or_default()
            );
            client
        }
    };
    let client = &client;
    let mut form = vec![("resource", url.to_string())];
    let how = match (client.flow, listener) {
        (Flow::ClientCredentials, _) => {
            form.push(("grant_type", "client_credentials".to_string()));
            if let Some(scope) = &found.scope {
                form.push(("scope", scope.clone()));
            }
            "client credentials grant"
        }
        (Flow::Code, listener) => {
            let endpoint = found
                .authorization_endpoint
                .as_deref()
                .expect("an authorization endpoint, checked for the code flow");
            let listener = listener.expect("a listener for the code flow");
            let redirect_uri = listener.uri.clone();
            let (code, verifier) =
                authorization_code(url, endpoint, client, &found, listener, show).await?;
            form.push(("grant_type", "authorization_code".to_string()));
            form.push(("code", code));
            form.push(("redirect_uri", redirect_uri));
            form.push(("code_verifier", verifier));
            "authorization code grant (PKCE S256)"
        }
    };
    let (other_audience, shared_audience) = match client.flow {
        Flow::ClientCredentials => {
            let mut other = form.clone();
            other[0].1 = OTHER_RESOURCE.to_string();
            // RFC 8707 §2: a token may be asked for several resources, each its own parameter.
            let mut shared = form.clone();
            shared.insert(1, ("resource", OTHER_RESOURCE.to_string()));
            (
                Some(token_request(&found, client, other).await),
                Some(token_request(&found, client, shared).await),
            )
        }
        Flow::Code => (None, None),
    };
    let access_token = token_request(&found, client, form).await?;
    let audience =
        |token: &str| crate::record::token::claims(token).and_then(|c| c.get("aud").cloned());
    // An authorization server that ignores `resource` issues the same audience for both: the
    // second token then says nothing about the server's audience check.
    let other_audience = other_audience.map(|other| {
        let other = other.map_err(|e| e.to_string())?;
        match (audience(&access_token), audience(&other)) {
            (Some(mine), Some(theirs))
                if mine == theirs
                    || theirs == url
                    || theirs.as_array().is_some_and(|a| a.contains(&Value::from(url))) =>
            {
                Err(format!(
                    "the authorization server ignored the resource parameter: the token asked for {OTHER_RESOURCE} has the audience {theirs} too"
                ))
            }
            _ => Ok(other),
        }
    });
    // One asked for both resources names both in its audience, or says nothing of the
    // server's audience check.
    let shared_audience = shared_audience.map(|shared| {
        let shared = shared.map_err(|e| e.to_string())?;
        let names = |aud: &Value, resource: &str| {
            aud.as_array()
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(resource)))
        };
        match audience(&shared) {
            Some(aud) if names(&aud, url) && names(&aud, OTHER_RESOURCE) => Ok(shared),
            Some(aud) => Err(format!(
                "the authorization server, asked for a token for {url} and {OTHER_RESOURCE} at once, issued one with the audience {aud}"
            )),
            None => Err("the token asked for two resources at once is no JWT with an audience to read".into()),
        }
    });
    let issued = [
        ("other-audience", other_audience),
        ("shared-audience", shared_audience),
    ]
    .into_iter()
    .filter_map(|(name, token)| Some((name.to_string(), token?)))
    .collect();
    Ok(Obtained {
        access_token,
        issued,
        secrets,
        how: format!(
            "{how} at {}{}{registered}",
            found.token_endpoint,
            found
                .scope
                .map(|s| format!(", scope \"{s}\""))
                .unwrap_or_default()
        ),
    })
}

/// Follows the server's metadata to its authorization server's endpoints.
async fn discover(url: &str, client: &Client) -> Result<Discovered, AuthError> {
    secure("the server", url)?;
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
        return Err(AuthError::NoChallenge {
            url: url.to_string(),
            status: answer.status,
        });
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
    let resource_metadata =
        first_document(&candidates)
            .await
            .map_err(|tried| AuthError::NoResourceMetadata {
                url: url.to_string(),
                tried,
            })?;
    // A client uses metadata only for the resource it asked about (RFC 9728 §3.3), and the
    // authorization server's only if it speaks for the issuer named (RFC 8414 §3.3): otherwise
    // the token endpoint, and the secret sent to it, would be another's choice.
    let resource = resource_metadata["resource"].as_str().unwrap_or_default();
    if !same_url(resource, url) {
        return Err(AuthError::ForeignResourceMetadata {
            resource: resource.to_string(),
            url: url.to_string(),
        });
    }
    let issuer = resource_metadata["authorization_servers"][0]
        .as_str()
        .ok_or(AuthError::NoAuthorizationServer)?
        .to_string();
    secure("the authorization server", &issuer)?;
    // The authorization server's metadata.
    let (as_origin, as_path) = origin_and_path(&issuer)?;
    let candidates = [
        format!("{as_origin}/.well-known/oauth-authorization-server{as_path}"),
        format!("{as_origin}/.well-known/openid-configuration{as_path}"),
        format!("{as_origin}{as_path}/.well-known/openid-configuration"),
    ];
    let server_metadata =
        first_document(&candidates)
            .await
            .map_err(|tried| AuthError::NoServerMetadata {
                issuer: issuer.clone(),
                tried,
            })?;
    let speaks_for = server_metadata["issuer"].as_str().unwrap_or_default();
    if !same_url(speaks_for, &issuer) {
        return Err(AuthError::ForeignServerMetadata {
            issuer,
            speaks_for: speaks_for.to_string(),
        });
    }
    let endpoint = |name: &str| -> Result<Option<String>, AuthError> {
        let Some(url) = server_metadata[name].as_str() else {
            return Ok(None);
        };
        secure(&format!("the {name}"), url)?;
        Ok(Some(url.to_string()))
    };
    let token_endpoint =
        endpoint("token_endpoint")?.ok_or_else(|| AuthError::NoTokenEndpoint(issuer.clone()))?;
    let authorization_endpoint = endpoint("authorization_endpoint")?;
    if client.flow == Flow::Code {
        let methods = server_metadata["code_challenge_methods_supported"]
            .as_array()
            .map(|m| m.iter().any(|m| m == "S256"))
            .unwrap_or(false);
        if !methods {
            return Err(AuthError::NoS256(issuer));
        }
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
    // Checked when used: a server's registration endpoint is nothing to a client with an id.
    let registration_endpoint = server_metadata["registration_endpoint"]
        .as_str()
        .map(str::to_string);
    Ok(Discovered {
        issuer: speaks_for.to_string(),
        authorization_endpoint,
        token_endpoint,
        registration_endpoint,
        metadata_documents: server_metadata["client_id_metadata_document_supported"] == true,
        names_itself: server_metadata["authorization_response_iss_parameter_supported"] == true,
        scope: scope.filter(|s| !s.is_empty()),
        auth_methods: server_metadata["token_endpoint_auth_methods_supported"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The token request: the grant's form, with the client's authentication
/// (`client_secret_basic` unless the server takes only `client_secret_post`, RFC 8414 §2; a
/// public client sends its id), and the access token of the answer.
async fn token_request(
    found: &Discovered,
    client: &Client,
    mut form: Vec<(&str, String)>,
) -> Result<String, AuthError> {
    let token_endpoint = &found.token_endpoint;
    let post = match client.auth_method.as_deref() {
        Some(method) => method == "client_secret_post",
        None => found.takes_post_only(),
    };
    let client_id = client.client_id.clone().unwrap_or_default();
    let mut headers = vec![
        (
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("Accept".to_string(), "application/json".to_string()),
    ];
    // A client registered as public authenticates with its id alone, whatever else it got.
    let secret = client
        .client_secret
        .as_ref()
        .filter(|_| client.auth_method.as_deref() != Some("none"));
    match secret {
        Some(secret) if post => {
            form.push(("client_id", client_id));
            form.push(("client_secret", secret.clone()));
        }
        Some(secret) => {
            let credentials = format!("{}:{}", form_encode(&client_id), form_encode(secret));
            headers.push((
                "Authorization".to_string(),
                format!("Basic {}", encode_padded(credentials.as_bytes())),
            ));
        }
        None => form.push(("client_id", client_id)),
    }
    let body = form
        .iter()
        .map(|(k, v)| format!("{k}={}", form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let answer = request("POST", token_endpoint, headers, body.into_bytes()).await?;
    let document: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    if !(200..300).contains(&answer.status) {
        let error = document["error"].as_str().unwrap_or("no error code");
        return Err(AuthError::TokenRefused {
            endpoint: token_endpoint.clone(),
            status: answer.status,
            error: error.to_string(),
        });
    }
    let token_type = document["token_type"].as_str().unwrap_or_default();
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::NotBearer {
            endpoint: token_endpoint.clone(),
            token_type: token_type.to_string(),
        });
    }
    document["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .ok_or_else(|| AuthError::NoAccessToken(token_endpoint.clone()))
}

/// Registers mcpcheck with the authorization server (Dynamic Client Registration, RFC 7591
/// §3): a confidential client for the client credentials grant, or a public native client
/// (RFC 8252) with the loopback `redirect_uri` for the authorization code. Returns the client,
/// the registration endpoint, and the secrets the answer carried.
async fn register(
    found: &Discovered,
    client: &Client,
    redirect_uri: Option<&str>,
) -> Result<(Client, String, Vec<String>), AuthError> {
    let Some(endpoint) = &found.registration_endpoint else {
        return Err(AuthError::NoRegistration {
            issuer: found.issuer.clone(),
            metadata_documents: found.metadata_documents,
        });
    };
    secure("the registration_endpoint", endpoint)?;
    let mut metadata = match (client.flow, redirect_uri) {
        (Flow::Code, Some(uri)) => serde_json::json!({
            "client_name": "mcpcheck",
            "application_type": "native",
            "redirect_uris": [uri],
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }),
        (Flow::Code, None) => return Err(AuthError::NoRedirectUri),
        (Flow::ClientCredentials, _) => serde_json::json!({
            "client_name": "mcpcheck",
            "grant_types": ["client_credentials"],
            "response_types": [],
            "redirect_uris": [],
            "token_endpoint_auth_method": if found.takes_post_only() {
                "client_secret_post"
            } else {
                "client_secret_basic"
            },
        }),
    };
    if let Some(scope) = &found.scope {
        metadata["scope"] = Value::from(scope.as_str());
    }
    let answer = request(
        "POST",
        endpoint,
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), "application/json".into()),
        ],
        metadata.to_string().into_bytes(),
    )
    .await?;
    let document: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    if !(200..300).contains(&answer.status) {
        // RFC 7591 §3.2.2: the error and its description.
        return Err(AuthError::RegistrationRefused {
            endpoint: endpoint.clone(),
            status: answer.status,
            error: document["error"]
                .as_str()
                .unwrap_or("no error code")
                .to_string(),
            description: document["error_description"].as_str().map(str::to_string),
        });
    }
    let client_id = document["client_id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .ok_or_else(|| AuthError::NoClientId(endpoint.clone()))?;
    let secret = |name: &str| {
        document[name]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let client_secret = secret("client_secret");
    if client.flow == Flow::ClientCredentials && client_secret.is_none() {
        return Err(AuthError::NoClientSecret(endpoint.clone()));
    }
    let kept = [secret("client_secret"), secret("registration_access_token")]
        .into_iter()
        .flatten()
        .collect();
    Ok((
        Client {
            client_id: Some(client_id.to_string()),
            client_secret,
            auth_method: document["token_endpoint_auth_method"]
                .as_str()
                .map(str::to_string),
            ..client.clone()
        },
        endpoint.clone(),
        kept,
    ))
}

/// The loopback listener the browser comes back to (`--auth code`), on a free port.
struct Redirect {
    listener: tokio::net::TcpListener,
    /// `http://127.0.0.1:PORT/callback`.
    uri: String,
}

impl Redirect {
    async fn listen() -> Result<Redirect, AuthError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(AuthError::NoLoopback)?;
        let port = listener.local_addr().map_err(AuthError::NoLoopback)?.port();
        Ok(Redirect {
            listener,
            uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }
}

/// The authorization code grant's first half: the authorization URL (with PKCE S256, a state,
/// this server as the resource) shown to the user, and the one redirect back to `listener`
/// whose state matches. Returns the code and the PKCE verifier.
async fn authorization_code(
    url: &str,
    endpoint: &str,
    client: &Client,
    found: &Discovered,
    listener: Redirect,
    show: &(dyn Fn(&str) + Sync),
) -> Result<(String, String), AuthError> {
    let redirect_uri = listener.uri.as_str();
    let verifier = random(32)?;
    let challenge = crate::record::token::encode(&sha256(verifier.as_bytes()));
    let state = random(16)?;
    let client_id = client.client_id.clone().unwrap_or_default();
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", redirect_uri),
        ("state", state.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("resource", url),
    ];
    if let Some(scope) = &found.scope {
        query.push(("scope", scope));
    }
    let query = query
        .iter()
        .map(|(k, v)| format!("{k}={}", form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let separator = if endpoint.contains('?') { '&' } else { '?' };
    show(&format!("{endpoint}{separator}{query}"));
    let code = tokio::time::timeout(SIGN_IN, redirect(&listener.listener, &state, found))
        .await
        .map_err(|_| AuthError::NoSignIn {
            redirect_uri: redirect_uri.to_string(),
            seconds: SIGN_IN.as_secs(),
        })??;
    Ok((code, verifier))
}

/// Waits for the browser's redirect to `/callback` and answers it; returns the code, once the
/// state matches. Another path gets 404 and the wait goes on; an error from the authorization
/// server, a state that does not match (a request mcpcheck did not start), or an `iss` that
/// is not the issuer's, or none where the server says it sends one (RFC 9207 §2.4: another
/// server's answer), ends it.
async fn redirect(
    listener: &tokio::net::TcpListener,
    state: &str,
    found: &Discovered,
) -> Result<String, AuthError> {
    let issuer = found.issuer.as_str();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let mut head = Vec::new();
        let mut buffer = [0u8; 1024];
        // The request line and headers, at most 8 KiB, within 10 s.
        let read = tokio::time::timeout(WAIT, async {
            while head.len() < 8192 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buffer[..n]),
                }
            }
        })
        .await;
        let head = String::from_utf8_lossy(&head).into_owned();
        let target = head
            .lines()
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .unwrap_or_default()
            .to_string();
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let reply = |status: &str, text: &str| {
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            )
        };
        if read.is_err() || path != "/callback" {
            let _ = stream
                .write_all(reply("404 Not Found", "not found").as_bytes())
                .await;
            continue;
        }
        let params: Vec<(String, String)> = query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (form_decode(k), form_decode(v)))
            .collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        // Only a redirect with mcpcheck's own state speaks for the sign-in; a forged one is
        // answered and ends it (a sign-in that was tampered with is not to be trusted).
        let outcome = match (param("state"), param("code"), param("error")) {
            (Some(got), _, _) if got == state => match (param("code"), param("error")) {
                // Compared as strings, exactly (RFC 9207 §2.4).
                _ if param("iss").is_some_and(|iss| iss != issuer) => {
                    Err(AuthError::ForeignIssuer {
                        named: param("iss").unwrap_or_default(),
                        issuer: issuer.to_string(),
                    })
                }
                _ if param("iss").is_none() && found.names_itself => {
                    Err(AuthError::IssuerMissing(issuer.to_string()))
                }
                (_, Some(error)) => Err(AuthError::Refused(error)),
                (Some(code), None) => Ok(code),
                (None, None) => Err(AuthError::NoCode),
            },
            (Some(_), _, _) => Err(AuthError::WrongState),
            (None, _, _) => {
                let _ = stream
                    .write_all(reply("400 Bad Request", "no state").as_bytes())
                    .await;
                continue;
            }
        };
        let text = match &outcome {
            Ok(_) => "mcpcheck is signed in; you can close this window.".to_string(),
            Err(why) => format!("mcpcheck could not sign in: {why}"),
        };
        let status = if outcome.is_ok() {
            "200 OK"
        } else {
            "400 Bad Request"
        };
        let _ = stream.write_all(reply(status, &text).as_bytes()).await;
        let _ = stream.shutdown().await;
        return outcome;
    }
}

/// `bytes` random bytes from the system, base64url (a PKCE verifier of 43 characters for 32).
fn random(bytes: usize) -> Result<String, AuthError> {
    use ring::rand::SecureRandom;
    let mut buffer = vec![0u8; bytes];
    ring::rand::SystemRandom::new()
        .fill(&mut buffer)
        .map_err(|_| AuthError::NoRandomness)?;
    Ok(crate::record::token::encode(&buffer))
}

fn sha256(bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).to_vec()
}

/// Decodes `application/x-www-form-urlencoded` (`+` is a space; a bad escape is kept as is).
fn form_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                bytes.get(i + 1).and_then(|b| hex(*b)),
                bytes.get(i + 2).and_then(|b| hex(*b)),
            ) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One request with nothing but these headers (and `Host`), bounded by [`WAIT`].
async fn request(
    method: &str,
    url: &str,
    mut headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<HttpResponse, AuthError> {
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
    Ok(send_within(&request, MAX_BODY, WAIT, Duration::from_millis(500)).await?)
}

/// Checks that `url` is https, or plain HTTP to a loopback address: what decides where
/// credentials go is read only over a channel no one else can rewrite.
fn secure(what: &str, url: &str) -> Result<(), AuthError> {
    let parsed = parse_url(url)?;
    let loopback = matches!(
        parsed.host().unwrap_or_default(),
        "127.0.0.1" | "localhost" | "[::1]" | "::1"
    );
    if parsed.scheme_str() != Some("https") && !loopback {
        return Err(AuthError::Insecure {
            what: what.to_string(),
            url: url.to_string(),
        });
    }
    Ok(())
}

/// Whether two URLs are the same one as a client compares them: identical, or apart only by a
/// trailing slash (RFC 3986 §6.2.3).
fn same_url(a: &str, b: &str) -> bool {
    !a.is_empty() && a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// The first of `urls` that answers 2xx with a JSON object, or the URLs tried, in words.
async fn first_document(urls: &[String]) -> Result<Value, String> {
    let mut tried = Vec::new();
    for url in urls {
        if tried.iter().any(|(u, _): &(String, String)| u == url) {
            continue;
        }
        // A redirect is followed, as a fetch step follows it.
        let mut at = url.clone();
        let mut hops = 0;
        let answer = loop {
            let answer = request(
                "GET",
                &at,
                vec![("Accept".into(), "application/json".into())],
                Vec::new(),
            )
            .await;
            let next = answer
                .as_ref()
                .ok()
                .filter(|a| (300..400).contains(&a.status))
                .and_then(|a| a.header("location"))
                .and_then(|location| crate::record::url::resolve(&at, location).ok());
            match next.map(|next| (secure("a redirect to", &next), next)) {
                // A hop to plain HTTP would let anyone on the path write the document.
                Some((Err(e), _)) => break Err(e),
                Some((Ok(()), next)) if hops < super::MAX_REDIRECTS => {
                    at = next;
                    hops += 1;
                }
                _ => break answer,
            }
        };
        let got = match answer {
            Ok(answer) if (200..300).contains(&answer.status) => {
                match serde_json::from_str::<Value>(&answer.body) {
                    Ok(document) if document.is_object() => return Ok(document),
                    _ => format!("HTTP {}, not a JSON object", answer.status),
                }
            }
            Ok(answer) => format!("HTTP {}", answer.status),
            Err(e) => e.to_string(),
        };
        tried.push((url.clone(), got));
    }
    Err(tried
        .iter()
        .map(|(url, got)| format!("{url}: {got}"))
        .collect::<Vec<_>>()
        .join("; "))
}

/// A URL's origin as written and its path without a trailing slash (checked to be http or
/// https first).
fn origin_and_path(url: &str) -> Result<(String, String), AuthError> {
    parse_url(url)?;
    let (origin, path) = crate::record::url::origin_and_path(url)
        .ok_or_else(|| AuthError::NoScheme(url.to_string()))?;
    Ok((origin.to_string(), path.to_string()))
}

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
        assert_eq!(form_decode("a%20b+c%2F%C3%A9%zz%4"), "a b c/é%zz%4");
        // A byte escape that splits a character, or a sign, is no escape: never a panic.
        assert_eq!(form_decode("%aé%+1"), "%aé% 1");
        assert!(
            same_url("https://a/x/", "https://a/x")
                && !same_url("", "")
                && !same_url("https://b", "https://a")
        );
        assert!(secure("it", "http://127.0.0.1:9/x").is_ok());
        assert!(secure("it", "http://example.com/x").is_err());
    }

    /// A metadata URL on loopback that redirects to plain HTTP elsewhere: the hop is refused
    /// before anything is asked of it, and the reason says so.
    #[tokio::test]
    async fn a_redirect_to_plain_http_is_not_followed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = format!("http://{}/meta", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4096];
            let _ = socket.read(&mut buf).await;
            let _ = socket
                .write_all(
                    b"HTTP/1.1 302 Found\r\nLocation: http://example.invalid/meta\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
        });
        let tried = first_document(std::slice::from_ref(&at)).await.unwrap_err();
        assert!(
            tried.contains("http://example.invalid/meta is not https"),
            "{tried}"
        );
    }
}
