//! The signed states and the answers of the 2026-07-28 input-required rounds (MRTR, SEP-2322):
//! what the fixtures that ask for input (`mrtr`) and the quirks that change their answers
//! (`quirks`) both read, below either.
//!
//! A round's `requestState` is signed with a key of this process, so that a state the client
//! altered fails verification instead of being acted on.

use serde_json::Value;

/// Signs a round's payload: the payload and a checksum keyed by this process.
pub fn sign(payload: &str) -> String {
    format!("{payload}.{:016x}", checksum(payload))
}

/// The payload of a state this process signed; `None` for one that fails verification.
pub fn verify(state: &str) -> Option<&str> {
    let (payload, sum) = state.rsplit_once('.')?;
    (format!("{:016x}", checksum(payload)) == sum).then_some(payload)
}

fn checksum(payload: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    ("mcpcheck-reference/mrtr", std::process::id(), payload).hash(&mut hasher);
    hasher.finish()
}

/// Whether this request's `_meta` declares a client capability.
pub fn declares(params: &Value, capability: &str) -> bool {
    params
        .pointer("/_meta/io.modelcontextprotocol~1clientCapabilities")
        .and_then(|c| c.get(capability))
        .is_some()
}

/// The text a client entered for `field` in an accepted elicitation answered under `key`;
/// `Err` for an answer that is not an ElicitResult.
pub fn answered(params: &Value, key: &str, field: &str) -> Result<Option<String>, String> {
    let Some(answer) = params.pointer(&format!("/inputResponses/{key}")) else {
        return Ok(None);
    };
    let Some(action) = answer.get("action").and_then(Value::as_str) else {
        return Err(format!("inputResponses.{key} is not an ElicitResult"));
    };
    Ok(Some(match action {
        "accept" => answer
            .pointer(&format!("/content/{field}"))
            .and_then(Value::as_str)
            .unwrap_or("nobody")
            .to_string(),
        _ => "nobody".to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_state_verifies_and_an_altered_one_does_not() {
        let state = sign("round2-416461");
        assert_eq!(verify(&state), Some("round2-416461"));
        assert_eq!(verify(&format!("{state}-altered")), None);
        assert_eq!(verify(&state.replace("round2", "round1")), None);
    }
}
