//! Built-in checks of what results and notifications carry: their per-version schemas, tool
//! input and output schemas, resource URIs, base64 payloads, tool names and structured content.

use super::Builtin;

mod server_elicitation_schema;
mod tasks_status_transitions;
mod tools_embedded_resource_declared;
mod tools_name_unique;
mod tools_schemas_valid;
mod tools_structured_content_mirrored;
mod wire_base64;
mod wire_meta_key_format;
mod wire_notification_schema;
mod wire_result_schema;
mod wire_uri_rfc3986;

/// The area's checks, a file each, in the order reports list them.
pub(super) const BUILTINS: &[Builtin] = &[
    tasks_status_transitions::CHECK,
    wire_notification_schema::CHECK,
    wire_uri_rfc3986::CHECK,
    wire_base64::CHECK,
    tools_name_unique::CHECK,
    tools_structured_content_mirrored::CHECK,
    tools_schemas_valid::CHECK,
    wire_result_schema::CHECK,
    wire_meta_key_format::CHECK,
    tools_embedded_resource_declared::CHECK,
    server_elicitation_schema::CHECK,
];

#[cfg(test)]
mod tests;
