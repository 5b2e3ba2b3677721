//! The 2026-07-28 request headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) checked against the body, and the HTTP status each stateless error gets.

use hyper::StatusCode;
use serde_json::{json, Value};

use crate::quirks::{Demand, Waiver};

/// The HTTP status of a stateless-era response: errors of a malformed request are 400, an
/// unknown method is 404 (2026-07-28, Streamable HTTP).
pub(super) fn stateless_status(body: &Value) -> StatusCode {
    match body.pointer("/error/code").and_then(Value::as_i64) {
        Some(-32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        Some(-32601) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// What is wrong with a stateless request's routing headers, if anything: `MCP-Protocol-Version`
/// must equal `_meta`'s version, `Mcp-Method` the method, and `Mcp-Name` the tool, prompt or
/// resource named (2026-07-28).
pub(super) fn stateless_header_problem(
    quirks: &crate::quirks::Quirks,
    message: &Value,
    protocol_version: &str,
    mcp_method: &Option<String>,
    mcp_name: &Option<String>,
) -> Option<String> {
    let method = message.get("method").and_then(Value::as_str)?;
    let params = message.get("params");
    let body_version = params
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
        .and_then(Value::as_str);
    let unchecked = protocol_version.is_empty() && quirks.waives(Waiver::MissingProtocolHeader);
    if let (Some(body_version), false) = (body_version, unchecked) {
        if protocol_version != body_version {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version `{protocol_version}` differs from _meta protocolVersion `{body_version}`"
            ));
        }
    }
    let same_method = match mcp_method.as_deref() {
        Some(header) if quirks.waives(Waiver::MethodHeaderCase) => {
            header.eq_ignore_ascii_case(method)
        }
        header => header == Some(method),
    };
    if !same_method {
        return Some(format!(
            "Header mismatch: Mcp-Method must be `{method}`, got {mcp_method:?}"
        ));
    }
    let named = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
        "resources/read" => params.and_then(|p| p.get("uri")),
        // The tasks extension routes by task.
        "tasks/get" | "tasks/update" | "tasks/cancel" if !quirks.waives(Waiver::TaskNameHeader) => {
            params.and_then(|p| p.get("taskId"))
        }
        _ => None,
    }
    .and_then(Value::as_str);
    if let (Some(named), false) = (named, quirks.waives(Waiver::NameHeader)) {
        let header = match mcp_name.as_deref() {
            Some(value) if !quirks.waives(Waiver::SentinelDecoding) => {
                match decode_sentinel(value, quirks.waives(Waiver::Base64Sentinel)) {
                    Ok(decoded) => Some(decoded),
                    Err(problem) => return Some(problem),
                }
            }
            other => other.map(str::to_string),
        };
        if header.as_deref() != Some(named) {
            return Some(format!(
                "Header mismatch: Mcp-Name must be `{named}`, got {mcp_name:?}"
            ));
        }
    }
    None
}

/// Whether a request is a `tools/call` of this tool.
pub(super) fn body_names(message: &Option<Value>, tool: &str) -> bool {
    message.as_ref().is_some_and(|m| {
        m.get("method") == Some(&json!("tools/call"))
            && m.pointer("/params/name") == Some(&json!(tool))
    })
}

/// An `Mcp-Name` value as the name it stands for: a value of the form `=?base64?…?=` (the
/// Base64 sentinel, for names a header cannot carry) is decoded; any other value is literal.
/// `lenient` (a quirk) skips what is not Base64 instead of refusing it.
pub(super) fn decode_sentinel(value: &str, lenient: bool) -> Result<String, String> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Ok(value.to_string());
    };
    let invalid = || format!("Header mismatch: Mcp-Name holds invalid Base64 `{encoded}`");
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut bytes = Vec::new();
    let trimmed = encoded.trim_end_matches('=');
    if !lenient && (encoded.len() % 4 != 0 || encoded.len() - trimmed.len() > 2) {
        return Err(invalid());
    }
    for c in trimmed.bytes() {
        let sextet = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ if lenient => continue,
            _ => return Err(invalid()),
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(bytes).map_err(|_| invalid())
}

/// What is wrong with the `Mcp-Param-Region` header of a call of `mcpcheck_region` (whose
/// `region` argument is marked `x-mcp-header: Region`), if anything: it must be there when the
/// argument is, and decode to the same value.
pub(super) fn param_header_problem(
    message: &Value,
    header: &Option<String>,
    quirks: &crate::quirks::Quirks,
) -> Option<String> {
    let literal = quirks.waives(Waiver::SentinelDecoding);
    if message.get("method").and_then(Value::as_str) != Some("tools/call")
        || message.pointer("/params/name").and_then(Value::as_str) != Some("mcpcheck_region")
    {
        return None;
    }
    // A null or absent argument needs no header (with the quirk, it is required anyway).
    let argument = match message.pointer("/params/arguments/region") {
        Some(v) if !v.is_null() => v,
        _ if quirks.demands(Demand::ParamHeaderAlways) && header.is_none() => {
            return Some("Header mismatch: Mcp-Param-Region is required on every call".into())
        }
        _ => return None,
    };
    let Some(header) = header else {
        return Some(
            "Header mismatch: the argument `region` needs the header Mcp-Param-Region".into(),
        );
    };
    let decoded = match decode_sentinel(header, false) {
        _ if literal => header.clone(),
        Ok(decoded) => decoded,
        Err(problem) => return Some(problem.replace("Mcp-Name", "Mcp-Param-Region")),
    };
    let expected = match argument {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    (decoded != expected).then(|| {
        format!("Header mismatch: Mcp-Param-Region is {decoded:?}, the argument `region` is {expected:?}")
    })
}

/// What is wrong with the `Mcp-Param-Zone` header of a `mcpcheck_region` call, if anything:
/// the integer argument `zone` compares numerically (`07` is 7), textually with the quirk.
pub(super) fn zone_header_problem(
    message: &Value,
    header: &Option<String>,
    quirks: &crate::quirks::Quirks,
) -> Option<String> {
    if message.pointer("/params/name").and_then(Value::as_str) != Some("mcpcheck_region") {
        return None;
    }
    let zone = message
        .pointer("/params/arguments/zone")
        .filter(|v| !v.is_null())?;
    let Some(header) = header else {
        return Some("Header mismatch: the argument `zone` needs the header Mcp-Param-Zone".into());
    };
    let same = if quirks.waives(Waiver::NumericParamHeader) {
        header == &zone.to_string()
    } else {
        header.trim().parse::<i64>().ok() == zone.as_i64()
    };
    (!same).then(|| {
        format!("Header mismatch: Mcp-Param-Zone is {header:?}, the argument `zone` is {zone}")
    })
}
