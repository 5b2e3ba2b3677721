// mcpcheck's peer server for the TypeScript SDK (@modelcontextprotocol/sdk, McpServer API).
//
// It exposes the reference server's fixture set the way a user of the SDK would write it, so
// that the SDK's own behaviour is what mcpcheck observes.
//
//   node server.mjs                # stdio
//   node server.mjs --http PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp, with sessions
//   node server.mjs --http PORT --auth
//
// --auth makes the HTTP server an OAuth resource server the SDK's way (its Express router for the
// metadata, its bearer middleware), taking the tokens of the authorization server whose issuer URL
// is in MCPCHECK_PEERS_ISSUER: JWTs verified with jose (which the SDK brings) against the issuer's
// keys, for this server as the audience, with the scope `mcp`; a token that does not verify is the
// SDK's InvalidTokenError, as its documentation asks of a verifier.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function build() {
  const server = new McpServer({ name: "mcpcheck-peer-typescript", version: "1.0.0" });
  const text = (t) => ({ type: "text", text: t });
  server.registerTool(
    "mcpcheck_echo",
    { description: "Returns the text it is given.", inputSchema: { text: z.string() } },
    async ({ text: t }) => ({ content: [text(t)] }),
  );
  server.registerTool(
    "mcpcheck_empty",
    { description: "Succeeds and returns no content." },
    async () => ({ content: [] }),
  );
  server.registerTool(
    "mcpcheck_error",
    { description: "Always fails while executing, reported as a tool error." },
    async () => {
      throw new Error("the operation failed");
    },
  );
  server.registerTool(
    "mcpcheck_structured",
    {
      description: "Adds two numbers and returns the sum as structured content.",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => {
      const sum = { sum: a + b };
      return { content: [text(JSON.stringify(sum))], structuredContent: sum };
    },
  );
  server.registerTool(
    "mcpcheck_slow",
    {
      description: "Waits a little, reporting progress when asked to.",
      inputSchema: {
        steps: z.number().int().min(1).max(20).optional(),
        delayMs: z.number().int().min(0).max(1000).optional(),
      },
    },
    async ({ steps = 3, delayMs = 20 }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps },
          });
        }
      }
      return { content: [text("done")] };
    },
  );
  server.registerResource(
    "readme",
    "ref://docs/readme",
    { description: "A short text.", mimeType: "text/plain" },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "mcpcheck reference server\n" }],
    }),
  );
  server.registerResource(
    "pixel",
    "ref://images/pixel",
    { description: "A 1x1 PNG.", mimeType: "image/png" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: PIXEL_PNG }] }),
  );
  server.registerResource(
    "item",
    new ResourceTemplate("ref://items/{id}", { list: undefined }),
    { description: "An item by id.", mimeType: "text/plain" },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `item ${id}` }],
    }),
  );
  server.registerPrompt(
    "greeting",
    { description: "Asks for a greeting.", argsSchema: { name: z.string().describe("Who to greet.") } },
    ({ name }) => ({
      messages: [{ role: "user", content: text(`Please greet ${name}.`) }],
    }),
  );
  server.registerPrompt("plain", { description: "A prompt without arguments." }, () => ({
    messages: [{ role: "user", content: text("Say something plain.") }],
  }));
  return server;
}

const portAt = process.argv.indexOf("--http");
if (portAt < 0) {
  await build().connect(new StdioServerTransport());
} else {
  // The SDK's documented stateful pattern: one transport (and McpServer) per session.
  const sessions = new Map();
  const httpServer = createServer(async (req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
    }
    const id = req.headers["mcp-session-id"];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport && req.method === "POST" && !id && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    if (!transport) {
      res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: id ? "Session not found" : "Bad Request: no valid session ID" },
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  const port = Number(process.argv[portAt + 1]);
  if (process.argv.includes("--auth")) {
    await protect(httpServer, port);
  }
  httpServer.listen(port, "127.0.0.1");
}

// Puts the SDK's authorization in front of the server's handler (`--auth`).
async function protect(httpServer, port) {
  const { default: express } = await import("express");
  const { createRemoteJWKSet, jwtVerify } = await import("jose");
  const { requireBearerAuth } = await import("@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js");
  const { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } = await import(
    "@modelcontextprotocol/sdk/server/auth/router.js"
  );
  const { InvalidTokenError } = await import("@modelcontextprotocol/sdk/server/auth/errors.js");
  const issuer = process.env.MCPCHECK_PEERS_ISSUER;
  const resource = new URL(`http://127.0.0.1:${port}/mcp`);
  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  const keys = createRemoteJWKSet(new URL(metadata.jwks_uri));
  const verifier = {
    async verifyAccessToken(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys, { issuer, audience: resource.href }));
      } catch (e) {
        throw new InvalidTokenError(String(e.message));
      }
      return {
        token,
        clientId: String(payload.client_id ?? ""),
        scopes: String(payload.scope ?? "").split(" "),
        expiresAt: payload.exp,
      };
    },
  };
  const handler = httpServer.listeners("request")[0];
  httpServer.removeAllListeners("request");
  const app = express();
  app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: resource, scopesSupported: ["mcp"] }));
  app.all(
    "/mcp",
    requireBearerAuth({
      verifier,
      requiredScopes: ["mcp"],
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
    }),
    handler,
  );
  httpServer.on("request", app);
}
