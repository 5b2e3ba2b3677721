//! mcpcheck's peer server for the Rust SDK (rmcp): the reference server's fixture set, written
//! the way an rmcp user would write it (tool and prompt routers from the SDK's macros, resources
//! by hand, as rmcp has no resource macro), so that rmcp's own behaviour is what mcpcheck sees.
//!
//!     mcpcheck-peer-rmcp                # stdio
//!     mcpcheck-peer-rmcp --http PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp

use std::sync::Arc;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ProgressNotificationParam, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, RequestMetaObject, ResourceContents, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{
    prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router, ErrorData, Json, Peer,
    RoleServer, ServerHandler, ServiceExt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SlowArgs {
    steps: Option<u32>,
    delay_ms: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
struct GreetingArgs {
    /// Who to greet.
    name: String,
}

#[derive(Clone)]
struct Peer_ {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

#[tool_router]
impl Peer_ {
    #[tool(description = "Returns the text it is given.")]
    fn mcpcheck_echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Succeeds and returns no content.")]
    fn mcpcheck_empty(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(Vec::new()))
    }

    #[tool(description = "Always fails while executing, reported as a tool error.")]
    fn mcpcheck_error(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "the operation failed",
        )]))
    }

    #[tool(description = "Adds two numbers and returns the sum as structured content.")]
    fn mcpcheck_structured(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }

    #[tool(description = "Waits a little, reporting progress when asked to.")]
    async fn mcpcheck_slow(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        meta: RequestMetaObject,
        client: Peer<RoleServer>,
    ) -> String {
        let steps = args.steps.unwrap_or(3).clamp(1, 20);
        let delay = args.delay_ms.unwrap_or(20).min(1000);
        for step in 1..=steps {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
            if let Some(token) = meta.get_progress_token() {
                let _ = client
                    .notify_progress(
                        ProgressNotificationParam::new(token, step as f64).with_total(steps as f64),
                    )
                    .await;
            }
        }
        "done".into()
    }
}

#[prompt_router]
impl Peer_ {
    #[prompt(description = "Asks for a greeting.")]
    async fn greeting(
        &self,
        Parameters(GreetingArgs { name }): Parameters<GreetingArgs>,
    ) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Please greet {name}."),
        )]
    }

    #[prompt(description = "A prompt without arguments.")]
    async fn plain(&self) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(Role::User, "Say something plain.")]
    }
}

fn from_json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("fixture JSON matches rmcp's model")
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Peer_ {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // The SDK's constructors fill in resultType (and the server adds caching hints).
        Ok(ListResourcesResult::with_all_items(from_json(json!([
            {"uri": "ref://docs/readme", "name": "readme", "mimeType": "text/plain", "description": "A short text."},
            {"uri": "ref://images/pixel", "name": "pixel", "mimeType": "image/png", "description": "A 1x1 PNG."}
        ]))))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(from_json(
            json!([
                {"uriTemplate": "ref://items/{id}", "name": "item", "mimeType": "text/plain", "description": "An item by id."}
            ]),
        )))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        // Built with the SDK's own constructors, which fill in what the SDK fills in
        // (resultType, for one): the matrix then shows the SDK's behaviour, not this peer's.
        let contents = match uri {
            "ref://docs/readme" => ResourceContents::text("mcpcheck reference server\n", uri)
                .with_mime_type("text/plain"),
            "ref://images/pixel" => {
                ResourceContents::blob(PIXEL_PNG, uri).with_mime_type("image/png")
            }
            _ => match uri.strip_prefix("ref://items/") {
                Some(id) if !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric()) => {
                    ResourceContents::text(format!("item {id}"), uri).with_mime_type("text/plain")
                }
                // What the SDK offers for a missing resource.
                _ => {
                    return Err(ErrorData::resource_not_found(
                        format!("no resource {uri}"),
                        Some(json!({"uri": uri})),
                    ))
                }
            },
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

impl Peer_ {
    fn new() -> Self {
        Peer_ {
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--http") {
        None => {
            let service = Peer_::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
        }
        Some(at) => {
            let port: u16 = args.get(at + 1).ok_or("--http needs a port")?.parse()?;
            let service = StreamableHttpService::new(
                || Ok(Peer_::new()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let app = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            axum::serve(listener, app).await?;
        }
    }
    Ok(())
}
