//! Bearer tokens a protected server must refuse, made from the user's own (RFC 6750, RFC 7519):
//! one that is no JWT at all, a JWT with `alg: none`, a JWT signed with a key mcpcheck made up,
//! and the user's JWT with its claims altered and its signature kept. Where the user's token is a
//! JWT, the made-up ones copy its claims and key id, so that a server that reads the claims but
//! never checks the signature takes them for good. Each is a function of the user's token only
//! (no clock, no randomness): the command line derives the same ones to redact them from every
//! report as the run sends.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The tokens made from one bearer token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MadeUp {
    /// Not a JWT: a string no authorization server issued.
    pub garbage: String,
    /// A JWT whose header says `alg: none`, with no signature.
    pub alg_none: String,
    /// A JWT signed (HS256) with a key mcpcheck made up.
    pub foreign_key: String,
    /// The user's JWT with a claim added to its payload and its signature kept; `None` when the
    /// user's token is not a JWT.
    pub tampered: Option<String>,
}

impl MadeUp {
    /// The tokens made from `real`, the user's bearer token.
    pub fn from(real: &str) -> MadeUp {
        let digest = Sha256::digest(format!("mcpcheck made-up token\n{real}").as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let parts = jwt_parts(real);
        let claims = parts
            .as_ref()
            .map(|(_, payload)| payload.clone())
            .unwrap_or_else(|| {
                let mut claims = Map::new();
                claims.insert("iss".into(), json!("https://mcpcheck.invalid"));
                claims.insert("sub".into(), json!("mcpcheck"));
                // 2100-01-01: never expired, and the same on every run.
                claims.insert("exp".into(), json!(4_102_444_800u64));
                claims
            });
        let kid = parts
            .as_ref()
            .and_then(|(header, _)| header.get("kid").cloned());
        let payload = encode(Value::Object(claims.clone()).to_string().as_bytes());
        let mut none = json!({"alg": "none", "typ": "JWT"});
        let mut hs256 = json!({"alg": "HS256", "typ": "JWT"});
        if let Some(kid) = kid {
            none["kid"] = kid.clone();
            hs256["kid"] = kid;
        }
        let alg_none = format!("{}.{payload}.", encode(none.to_string().as_bytes()));
        let signed = format!("{}.{payload}", encode(hs256.to_string().as_bytes()));
        let signature = hmac_sha256(&digest, signed.as_bytes());
        let foreign_key = format!("{signed}.{}", encode(&signature));
        let tampered = parts.map(|(_, mut claims)| {
            claims.insert("mcpcheck_tampered".into(), json!(true));
            let mut segments = real.split('.');
            let header = segments.next().unwrap_or_default();
            let signature = segments.nth(1).unwrap_or_default();
            let payload = encode(Value::Object(claims).to_string().as_bytes());
            format!("{header}.{payload}.{signature}")
        });
        MadeUp {
            garbage: format!("mcpcheck-not-a-token-{}", &hex[..24]),
            alg_none,
            foreign_key,
            tampered,
        }
    }

    /// Every token made, for redaction.
    pub fn all(&self) -> Vec<String> {
        let mut all = vec![
            self.garbage.clone(),
            self.alg_none.clone(),
            self.foreign_key.clone(),
        ];
        all.extend(self.tampered.clone());
        all
    }

    /// The token a placeholder names (`auth.garbage`, `auth.alg-none`, `auth.foreign-key`,
    /// `auth.tampered`).
    pub fn named(&self, name: &str) -> Option<&str> {
        match name {
            "garbage" => Some(&self.garbage),
            "alg-none" => Some(&self.alg_none),
            "foreign-key" => Some(&self.foreign_key),
            "tampered" => self.tampered.as_deref(),
            _ => None,
        }
    }
}

/// The names of the tokens [`MadeUp`] makes from the user's (and `mcpcheck token` makes again).
pub const MADE: &[&str] = &["garbage", "alg-none", "foreign-key", "tampered"];

/// Tokens the authorization server issued besides the run's own, by name (one of [`ISSUED`]),
/// or why it issued none.
pub type Issued = std::collections::BTreeMap<String, Result<String, String>>;

/// The names of the tokens the authorization server issues for the checks when the run gets its
/// own with client credentials: for another resource, and for the server and that one at once.
pub const ISSUED: &[&str] = &["other-audience", "shared-audience"];

/// The names of the tokens a scenario may send (`{{auth.NAME}}`): those [`MadeUp::named`] makes,
/// those in [`ISSUED`], and `expired`, one the user gave (`--expired-token-env`).
pub const NAMES: &[&str] = &[
    "garbage",
    "alg-none",
    "foreign-key",
    "tampered",
    "other-audience",
    "shared-audience",
    "expired",
];

/// A JWT's claims, if `token` is one.
pub fn claims(token: &str) -> Option<Map<String, Value>> {
    jwt_parts(token).map(|(_, claims)| claims)
}

/// The bearer token of an `Authorization` header value (`Bearer X`, the scheme in any case).
pub fn bearer_of(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A JWT's header and claims, if `token` is one (three base64url segments, the first two JSON
/// objects).
fn jwt_parts(token: &str) -> Option<(Map<String, Value>, Map<String, Value>)> {
    let mut segments = token.split('.');
    let (header, payload, _signature) = (segments.next()?, segments.next()?, segments.next()?);
    if segments.next().is_some() {
        return None;
    }
    let object = |segment: &str| match serde_json::from_slice::<Value>(&decode(segment)?) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    };
    Some((object(header)?, object(payload)?))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648 §5), as JWTs write their segments.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// base64 with padding (RFC 4648 §4), as HTTP Basic credentials are written (RFC 7617).
pub fn encode_padded(bytes: &[u8]) -> String {
    let mut out: String = encode(bytes)
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while out.len() % 4 != 0 {
        out.push('=');
    }
    out
}

/// Decodes base64url with or without padding; `None` for anything else.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut n = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|a| *a == c)? as u32;
        n = n << 6 | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((n >> bits) as u8);
            n &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_and_refuses_other_alphabets() {
        for text in [
            "",
            "f",
            "fo",
            "foo",
            "foob",
            "fooba",
            "foobar",
            "\u{ff}\u{fe}?",
        ] {
            assert_eq!(decode(&encode(text.as_bytes())).unwrap(), text.as_bytes());
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(encode_padded(&[0xfb, 0xff]), "+/8=");
        assert_eq!(encode_padded(b"client:s3cret"), "Y2xpZW50OnMzY3JldA==");
        assert_eq!(decode("Zm9vYg=="), Some(b"foob".to_vec()));
        assert_eq!(decode("a+b/"), None);
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        // RFC 4231 test case 2.
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn made_up_tokens_copy_a_jwts_claims_and_key_id_and_are_the_same_every_time() {
        let header = encode(br#"{"alg":"RS256","kid":"k1"}"#);
        let payload = encode(br#"{"iss":"https://as","aud":"https://mcp/mcp","exp":99}"#);
        let real = format!("{header}.{payload}.c2lnbmF0dXJl");
        let made = MadeUp::from(&real);
        assert_eq!(made, MadeUp::from(&real));
        let claims = |token: &str| -> Value {
            serde_json::from_slice(&decode(token.split('.').nth(1).unwrap()).unwrap()).unwrap()
        };
        let head = |token: &str| -> Value {
            serde_json::from_slice(&decode(token.split('.').next().unwrap()).unwrap()).unwrap()
        };
        assert_eq!(claims(&made.alg_none)["aud"], "https://mcp/mcp");
        assert_eq!(head(&made.alg_none)["alg"], "none");
        assert!(made.alg_none.ends_with('.'));
        assert_eq!(head(&made.foreign_key)["kid"], "k1");
        assert_eq!(head(&made.foreign_key)["alg"], "HS256");
        let tampered = made.tampered.as_deref().unwrap();
        assert!(tampered.starts_with(&header) && tampered.ends_with(".c2lnbmF0dXJl"));
        assert_eq!(claims(tampered)["mcpcheck_tampered"], true);
        assert_eq!(claims(tampered)["iss"], "https://as");
        // A token that is no JWT: claims of mcpcheck's own, nothing to tamper with.
        let opaque = MadeUp::from("s3cret");
        assert_eq!(opaque.tampered, None);
        assert_eq!(claims(&opaque.foreign_key)["sub"], "mcpcheck");
        assert!(!opaque.garbage.contains("s3cret"));
        assert_eq!(opaque.all().len(), 3);
        assert_eq!(bearer_of("bearer  abc "), Some("abc"));
        assert_eq!(bearer_of("Basic abc"), None);
    }
}
