//! Starting a conversation: era detection with `server/discover`, the `initialize` handshake,
//! and the ping barrier that settles a stdio connection between steps.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Link, Outgoing, SendOptions, Session, SessionInfo};
use crate::record::exchange::{client_capabilities, client_info};
use crate::record::version::{self, Era};
use crate::record::{Exchange, Reply};

impl Session {
    /// Detects the era: probes `server/discover` (stateless era); anything else means handshake.
    pub async fn discover(&self) -> (Option<Value>, Exchange) {
        let wire = version::wire(version::latest_stateless());
        let params = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": wire,
            "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
            "io.modelcontextprotocol/clientInfo": client_info(),
        }});
        let options = SendOptions {
            headers: vec![
                ("MCP-Protocol-Version".into(), wire.into()),
                ("Mcp-Method".into(), "server/discover".into()),
            ],
            // The first frame on the connection: an answer without an id (a handshake-era
            // server's -32601, say) can only be to it, and must not cost a timeout.
            accept_unmatched: true,
            ..SendOptions::default()
        };
        let id = self.next_id();
        let sent_id = id.clone();
        let mut exchange = self
            .send(
                Outgoing::Request {
                    id,
                    method: "server/discover".into(),
                    params: Some(params),
                },
                &options,
            )
            .await;
        // Only an answer without an id can be taken for the probe's (the connection's first
        // frame); one naming another id answers nothing mcpcheck sent.
        if let Reply::Message { message, .. } = &exchange.reply {
            let foreign = message
                .get("id")
                .is_some_and(|got| !got.is_null() && got != &sent_id);
            if foreign {
                exchange.reply = Reply::Nothing {
                    waited_ms: exchange.elapsed_ms,
                };
            }
        }
        let result = match &exchange.reply {
            Reply::Message { message, .. } => message
                .get("result")
                .filter(|r| r.get("supportedVersions").is_some_and(Value::is_array))
                .cloned(),
            _ => None,
        };
        (result, exchange)
    }

    /// Adopts the stateless era after a successful discovery (why not: the versions it lists,
    /// none of which mcpcheck speaks).
    pub fn adopt_stateless(&self, discovered: &Value) -> Result<(), HandshakeError> {
        let supported: Vec<&str> = discovered["supportedVersions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // The listed strings are wire strings; the newest revision of the era among them.
        let version = version::revisions()
            .iter()
            .rev()
            .find(|r| r.era == Era::Stateless && supported.contains(&r.wire.as_str()))
            .map(|r| &r.name)
            .ok_or_else(|| HandshakeError::NoVersionSpoken(format!("{supported:?}")))?;
        let server_info = discovered
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .cloned();
        self.set_info(SessionInfo {
            era: Some(Era::Stateless),
            version: Some(version.to_string()),
            server_info,
            capabilities: discovered.get("capabilities").cloned(),
            http_session: None,
            supported_versions: supported.iter().map(|v| v.to_string()).collect(),
            param_headers: HashMap::new(),
        });
        Ok(())
    }

    /// Adopts the stateless era at `version` for a server whose `server/discover` answer shows a
    /// 2026-07-28 server but is defective (no `supportedVersions`, or a refusal with one of the
    /// era's own error codes): the run judges it in that era, where the discover checks say what
    /// is wrong, instead of falling back to `initialize`. What the answer declares (if anything)
    /// is taken as the capabilities; no version counts as offered.
    pub fn adopt_stateless_defective(&self, version: &str, answer: Option<&Value>) {
        self.set_info(SessionInfo {
            era: Some(Era::Stateless),
            version: Some(version.to_string()),
            server_info: answer
                .and_then(|a| a.pointer("/_meta/io.modelcontextprotocol~1serverInfo"))
                .cloned(),
            capabilities: answer
                .and_then(|a| a.get("capabilities"))
                .filter(|c| c.is_object())
                .cloned(),
            http_session: None,
            supported_versions: Vec::new(),
            param_headers: HashMap::new(),
        });
    }

    /// The handshake: `initialize` asking for revision `version` (by its wire string), then
    /// `notifications/initialized`. On failure, why, with the exchange of `initialize`.
    pub async fn handshake(&self, version: &str) -> Result<Exchange, (HandshakeError, Exchange)> {
        let params = json!({"protocolVersion": version::wire(version), "capabilities": client_capabilities(), "clientInfo": client_info()});
        let exchange = self.request("initialize", Some(params)).await;
        let result = match &exchange.reply {
            Reply::Message { message, .. } => match (message.get("result"), message.get("error")) {
                (Some(result), None) if result.is_object() => result.clone(),
                (_, Some(error)) => {
                    let error = HandshakeError::Error(error.clone());
                    return Err((error, exchange));
                }
                _ => return Err((HandshakeError::NoResult, exchange)),
            },
            Reply::Nothing { waited_ms } => {
                let came = exchange
                    .unanswered_stream()
                    .map(|s| format!(" ({s} came, without the answer)"))
                    .unwrap_or_default();
                let silent = HandshakeError::NoAnswer {
                    waited_ms: *waited_ms,
                    bound: self.bound_named().to_string(),
                    came,
                };
                return Err((silent, exchange));
            }
            Reply::Rejected { status, .. } if (300..400).contains(status) => {
                let redirect = crate::record::exchange::describe(&exchange, true);
                return Err((HandshakeError::Redirected(redirect), exchange));
            }
            Reply::Rejected { status, body } => {
                let refusal = exchange.http.as_ref().and_then(|http| {
                    crate::record::exchange::authorization_refusal(http.status, &http.headers)
                });
                let rejected = match refusal {
                    Some(refusal) => HandshakeError::Unauthorized(refusal),
                    None => HandshakeError::Rejected {
                        status: *status,
                        body: body.trim().to_string(),
                    },
                };
                return Err((rejected, exchange));
            }
            Reply::Closed { detail } => {
                return Err((HandshakeError::Closed(detail.clone()), exchange))
            }
        };
        let Some(negotiated) = result.get("protocolVersion").and_then(Value::as_str) else {
            return Err((HandshakeError::NoVersion, exchange));
        };
        let Some(negotiated) = version::by_wire(negotiated).filter(|r| r.era == Era::Handshake)
        else {
            let unknown = HandshakeError::UnknownVersion(negotiated.to_string());
            return Err((unknown, exchange));
        };
        {
            let mut info = self.info.lock().expect("info lock");
            info.era = Some(Era::Handshake);
            info.version = Some(negotiated.name.clone());
            info.server_info = result.get("serverInfo").cloned();
            info.capabilities = result.get("capabilities").cloned();
        }
        let options = SendOptions {
            wait: Some(Duration::from_millis(0)),
            ..SendOptions::default()
        };
        self.send(
            Outgoing::Notification {
                method: "notifications/initialized".into(),
                params: None,
            },
            &options,
        )
        .await;
        Ok(exchange)
    }

    /// Waits until the server has answered everything sent so far, by sending a `ping` (on
    /// 2026-07-28 `server/discover`) and waiting
    /// (briefly) for its answer: a stdio server answers in order, so stray replies to earlier
    /// frames arrive before it and cannot be mistaken for the answer to a later frame.
    pub async fn barrier(&self) {
        if let Link::Stream(_) = &self.link {
            let id = self.next_id();
            let options = SendOptions {
                timeout: Some(self.limits.request_timeout.min(Duration::from_secs(1))),
                ..SendOptions::default()
            };
            self.send(self.barrier_request(id), &options).await;
        }
    }

    /// Which bound a request left unanswered ran out, named with the flag that sets it: a
    /// stream server not heard from yet waits up to the start-up bound (or the per-request one
    /// if longer), any other request the per-request one.
    pub fn bound_named(&self) -> &'static str {
        if self.is_stream()
            && !self.heard()
            && self.limits.startup_timeout >= self.limits.request_timeout
        {
            "the start-up bound (--startup-timeout)"
        } else {
            "the per-request bound (--timeout)"
        }
    }
}

/// Why a connection could not be set up in an era: the handshake's `initialize`, or the
/// versions `server/discover` listed.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// initialize was answered with a JSON-RPC error.
    #[error("initialize was answered with an error: {0}")]
    Error(Value),
    /// initialize was answered with neither a result object nor an error.
    #[error("initialize was answered without a result")]
    NoResult,
    /// No answer within the bound.
    #[error("no answer to initialize within {waited_ms} ms, {bound}{came}")]
    NoAnswer {
        /// How long mcpcheck waited.
        waited_ms: u64,
        /// The bound, named as the flag that sets it.
        bound: String,
        /// What came instead, in words (with its leading space), or nothing.
        came: String,
    },
    /// HTTP: a redirect, described.
    #[error("initialize was answered {0}")]
    Redirected(String),
    /// HTTP: the authorization layer's refusal, in words.
    #[error("initialize was refused for authorization ({0}): the server is protected; pass its credentials with -H (for OAuth, -H \"Authorization: Bearer $TOKEN\")")]
    Unauthorized(String),
    /// HTTP: any other refusal.
    #[error("initialize was rejected with HTTP {status}: {body}")]
    Rejected {
        /// The status.
        status: u16,
        /// The body, trimmed.
        body: String,
    },
    /// The connection closed first (how, in words).
    #[error("{0} before answering initialize")]
    Closed(String),
    /// The result has no protocolVersion.
    #[error("the initialize result has no protocolVersion")]
    NoVersion,
    /// The version chosen is not one of the handshake era mcpcheck knows.
    #[error("the server chose protocol version `{0}`, which mcpcheck does not know for the handshake era")]
    UnknownVersion(String),
    /// server/discover lists no version mcpcheck speaks (the list, as written).
    #[error("server/discover lists no version mcpcheck speaks (it lists {0})")]
    NoVersionSpoken(String),
}
