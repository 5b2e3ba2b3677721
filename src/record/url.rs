//! URLs as the HTTP transports and their checks compare them: parsing, origins (RFC 6454) and
//! resolving an endpoint an SSE stream names (RFC 3986 §5.2).

use hyper::Uri;

/// Why a URL is none mcpcheck can reach, or a reference no endpoint it can resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// No scheme: what was likely meant.
    #[error("`{url}` has no scheme; did you mean http://{guess}?")]
    NoScheme {
        /// The URL as given.
        url: String,
        /// It with `http://` before it.
        guess: String,
    },
    /// A scheme other than http or https (`file`, `ws`, …), said of the user's URL.
    #[error("`{0}` is not an http or https URL (mcpcheck speaks Streamable HTTP and HTTP+SSE at http:// or https:// URLs; a local command goes to --stdio)")]
    NotHttpGiven(String),
    /// Not a URL at all (the parser's words).
    #[error("`{url}` is not a valid URL: {why}")]
    Invalid {
        /// The URL as given.
        url: String,
        /// What the parser said.
        why: String,
    },
    /// Another scheme, found after parsing.
    #[error("`{0}` is not an http or https URL")]
    NotHttp(String),
    /// No host.
    #[error("`{0}` has no host")]
    NoHost(String),
    /// A reference to resolve that is empty.
    #[error("it is empty")]
    Empty,
    /// A reference that holds whitespace or a control character.
    #[error("it holds whitespace")]
    Whitespace,
    /// A reference to another scheme.
    #[error("`{0}` is not an http or https URL")]
    OtherScheme(String),
}

impl From<UrlError> for String {
    fn from(error: UrlError) -> String {
        error.to_string()
    }
}

/// Checks that a URL is an absolute http or https URL; returns it parsed. A URL without a
/// scheme gets "did you mean http://…?"; any other scheme, one message whatever it is.
pub fn parse_url(url: &str) -> Result<Uri, UrlError> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme).filter(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    match scheme {
        None if !url.contains("://")
            && !url.trim().is_empty()
            && !url.contains(char::is_whitespace) =>
        {
            return Err(UrlError::NoScheme {
                url: url.to_string(),
                guess: url.trim_start_matches('/').to_string(),
            });
        }
        Some(scheme)
            if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") =>
        {
            return Err(UrlError::NotHttpGiven(url.to_string()));
        }
        _ => {}
    }
    let uri: Uri = url
        .parse()
        .map_err(|e: hyper::http::uri::InvalidUri| UrlError::Invalid {
            url: url.to_string(),
            why: e.to_string(),
        })?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        _ => return Err(UrlError::NotHttp(url.to_string())),
    }
    if uri.host().is_none() {
        return Err(UrlError::NoHost(url.to_string()));
    }
    Ok(uri)
}

/// The origin of an http or https URL (RFC 6454: scheme, host and port, the default port
/// filled in), as `scheme://host:port` in lower case.
pub fn origin(url: &str) -> Option<String> {
    let uri = parse_url(url).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Some(format!("{scheme}://{host}:{port}"))
}

/// The origin of an http or https URL as a browser sends it in an `Origin` header (RFC 6454
/// §6.2): scheme and host in lower case, the port only when it is not the scheme's default, no
/// user information.
pub fn web_origin(url: &str) -> Option<String> {
    let uri = parse_url(url).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let default = if scheme == "https" { 443 } else { 80 };
    Some(match uri.port_u16().filter(|p| *p != default) {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

/// The authority of an http or https URL as written (`host:port`, the port only when given):
/// the `Host` header of a request to it (RFC 9110 §7.2), which mcpcheck's client sets itself.
pub fn authority(url: &str) -> Option<String> {
    parse_url(url).ok()?.authority().map(|a| a.to_string())
}

/// A URL split as written into its origin (`scheme://authority`, case and port as given) and
/// its path without query, fragment or trailing slash (empty for none): the parts a well-known
/// URI is built from (RFC 8615, RFC 8414 §3.1, RFC 9728 §3.1).
pub fn origin_and_path(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = &url[..scheme.len() + 3 + authority];
    let path = url[origin.len()..].split(['?', '#']).next().unwrap_or("");
    Some((origin, path.trim_end_matches('/')))
}

/// Whether two URLs have the same origin (neither without one).
pub fn same_origin(a: &str, b: &str) -> bool {
    matches!((origin(a), origin(b)), (Some(a), Some(b)) if a == b)
}

/// Resolves the endpoint an SSE stream named against the stream's URL (RFC 3986 §5.2, for the
/// forms servers use: absolute, absolute-path and relative-path references, with a query).
pub fn resolve(base: &str, reference: &str) -> Result<String, UrlError> {
    if reference.is_empty() {
        return Err(UrlError::Empty);
    }
    if reference
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(UrlError::Whitespace);
    }
    if let Some((scheme, _)) = reference.split_once("://") {
        if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
            parse_url(reference)?;
            return Ok(reference.to_string());
        }
        return Err(UrlError::OtherScheme(scheme.to_string()));
    }
    let uri = parse_url(base)?;
    let origin = format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("http"),
        uri.authority().map(|a| a.as_str()).unwrap_or_default()
    );
    let resolved = if let Some(rest) = reference.strip_prefix("//") {
        format!("{}://{rest}", uri.scheme_str().unwrap_or("http"))
    } else if reference.starts_with('/') {
        format!("{origin}{reference}")
    } else {
        let path = uri.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        if let Some(query) = reference.strip_prefix('?') {
            format!("{origin}{path}?{query}")
        } else {
            format!("{origin}{dir}{reference}")
        }
    };
    parse_url(&resolved)?;
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::{parse_url, resolve, same_origin, web_origin};

    #[test]
    fn a_web_origin_is_serialized_as_a_browser_sends_it() {
        assert_eq!(
            web_origin("HTTPS://User:pw@Example.COM:443/mcp?x=1").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            web_origin("http://127.0.0.1:8080/mcp").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(web_origin("http://h:80").as_deref(), Some("http://h"));
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let stream = "http://127.0.0.1:8000/sse";
        assert!(same_origin("http://127.0.0.1:8000/messages?s=1", stream));
        assert!(same_origin("HTTP://127.0.0.1:8000/m", stream));
        assert!(same_origin(
            "http://example.com/m",
            "http://EXAMPLE.com:80/sse"
        ));
        assert!(same_origin(
            "https://example.com:443/m",
            "https://example.com/sse"
        ));
        assert!(!same_origin("http://127.0.0.1:8001/m", stream));
        assert!(!same_origin("http://localhost:8000/m", stream));
        assert!(!same_origin("https://127.0.0.1:8000/m", stream));
        assert!(!same_origin("http://127.0.0.1:8000.evil.example/m", stream));
    }

    #[test]
    fn endpoints_resolve_against_the_stream_url() {
        let base = "http://127.0.0.1:8000/mcp/sse?x=1";
        assert_eq!(
            resolve(base, "/messages?sessionId=a1").unwrap(),
            "http://127.0.0.1:8000/messages?sessionId=a1"
        );
        assert_eq!(
            resolve(base, "messages/?session_id=b").unwrap(),
            "http://127.0.0.1:8000/mcp/messages/?session_id=b"
        );
        assert_eq!(
            resolve(base, "https://other.example/m").unwrap(),
            "https://other.example/m"
        );
        assert_eq!(
            resolve(base, "?s=1").unwrap(),
            "http://127.0.0.1:8000/mcp/sse?s=1"
        );
        assert!(resolve(base, "").is_err());
        assert!(resolve(base, "/a b").is_err());
        assert!(resolve(base, "ftp://x/y").is_err());
    }

    #[test]
    fn a_url_without_a_scheme_is_answered_with_a_suggestion_and_any_other_scheme_alike() {
        let e = parse_url("127.0.0.1:3000/mcp").unwrap_err().to_string();
        assert!(e.contains("did you mean http://127.0.0.1:3000/mcp?"), "{e}");
        let e = parse_url("localhost:3000").unwrap_err().to_string();
        assert!(e.contains("did you mean http://localhost:3000?"), "{e}");
        for url in ["file:///tmp/x", "ftp://host/y", "ws://host/mcp"] {
            let e = parse_url(url).unwrap_err();
            assert_eq!(e, super::UrlError::NotHttpGiven(url.into()), "{url}");
            assert!(e.to_string().contains("is not an http or https URL"), "{e}");
        }
        assert!(parse_url("https://example.com/mcp").is_ok());
    }
}
