"""mcpcheck's peer server for the Python frameworks with a FastMCP-style API.

It exposes the reference server's fixture set (tools mcpcheck_echo, _empty, _error, _structured,
_slow; resources ref://docs/readme, ref://images/pixel and the template ref://items/{id}; prompts
greeting and plain), written the way a user of each framework would write it, so that the
framework's own behaviour is what mcpcheck observes.

    python server.py mcp2|mcp1|fastmcp [--http PORT [--auth] | --sse PORT]

mcp2: the official SDK 2.x (MCPServer); mcp1: the official SDK 1.x (FastMCP); fastmcp: the
standalone FastMCP package. Without --http it speaks stdio; --sse serves the 2024-11-05 HTTP+SSE
transport (mcp1 only) at /sse. --auth (mcp1 only) makes the HTTP server an OAuth resource server
the SDK's way (a token verifier and AuthSettings), taking the tokens of the authorization server
whose issuer URL is in MCPCHECK_PEERS_ISSUER: JWTs verified with PyJWT (which the SDK brings)
against the issuer's keys, for this server as the audience, with the scope `mcp`.
"""

import argparse
import asyncio
import base64

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

parser = argparse.ArgumentParser()
parser.add_argument("sdk", choices=["mcp2", "mcp1", "fastmcp"])
parser.add_argument("--http", type=int, metavar="PORT")
parser.add_argument("--sse", type=int, metavar="PORT")
parser.add_argument("--auth", action="store_true")
options = parser.parse_args()

if options.sdk == "mcp2":
    from mcp.server.mcpserver import Context, MCPServer as Server
elif options.sdk == "mcp1":
    from mcp.server.fastmcp import Context, FastMCP as Server
else:
    from fastmcp import Context, FastMCP as Server

from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12


def protected() -> dict:
    """The arguments that make the server a resource server of the issuer in MCPCHECK_PEERS_ISSUER."""
    import json
    import os
    import urllib.request

    import jwt
    from mcp.server.auth.provider import AccessToken, TokenVerifier
    from mcp.server.auth.settings import AuthSettings

    issuer = os.environ["MCPCHECK_PEERS_ISSUER"]
    resource = f"http://127.0.0.1:{options.http}/mcp"
    with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=10) as answer:
        keys = jwt.PyJWKClient(json.load(answer)["jwks_uri"])

    class Verifier(TokenVerifier):
        async def verify_token(self, token: str):
            try:
                key = keys.get_signing_key_from_jwt(token).key
                claims = jwt.decode(token, key, algorithms=["RS256"], audience=resource, issuer=issuer)
            except jwt.PyJWTError:
                return None
            return AccessToken(
                token=token,
                client_id=str(claims.get("client_id", "")),
                scopes=str(claims.get("scope", "")).split(),
                expires_at=claims.get("exp"),
                resource=resource,
            )

    settings = AuthSettings(
        issuer_url=issuer,
        resource_server_url=resource,
        required_scopes=["mcp"],
        validate_token_resource=False,
    )
    return {"token_verifier": Verifier(), "auth": settings}


server = Server("mcpcheck-peer-" + options.sdk, **(protected() if options.auth else {}))


class Sum(TypedDict):
    sum: float


@server.tool(description="Returns the text it is given.")
def mcpcheck_echo(text: str) -> str:
    return text


@server.tool(description="Succeeds and returns no content.")
def mcpcheck_empty() -> list:
    return []


@server.tool(description="Always fails while executing, reported as a tool error.")
def mcpcheck_error() -> str:
    raise RuntimeError("the operation failed")


@server.tool(description="Adds two numbers and returns the sum as structured content.")
def mcpcheck_structured(a: float, b: float) -> Sum:
    return {"sum": a + b}


@server.tool(description="Waits a little, reporting progress when asked to.")
async def mcpcheck_slow(ctx: Context, steps: int = 3, delayMs: int = 20) -> str:
    steps = max(1, min(steps, 20))
    for step in range(1, steps + 1):
        await asyncio.sleep(min(delayMs, 1000) / 1000)
        await ctx.report_progress(step, steps)
    return "done"


@server.resource("ref://docs/readme", name="readme", description="A short text.", mime_type="text/plain")
def readme() -> str:
    return "mcpcheck reference server\n"


@server.resource("ref://images/pixel", name="pixel", description="A 1x1 PNG.", mime_type="image/png")
def pixel() -> bytes:
    return PIXEL_PNG


@server.resource("ref://items/{id}", name="item", description="An item by id.", mime_type="text/plain")
def item(id: str) -> str:
    return f"item {id}"


@server.prompt(description="Asks for a greeting.")
def greeting(name: str) -> str:
    return f"Please greet {name}."


@server.prompt(description="A prompt without arguments.")
def plain() -> str:
    return "Say something plain."


if options.sse is not None:
    server.settings.host = "127.0.0.1"
    server.settings.port = options.sse
    server.run(transport="sse")
elif options.http is None:
    server.run()
elif options.sdk == "fastmcp":
    server.run(transport="http", host="127.0.0.1", port=options.http, path="/mcp", show_banner=False)
elif options.sdk == "mcp2":
    server.run(transport="streamable-http", host="127.0.0.1", port=options.http)
else:
    server.settings.host = "127.0.0.1"
    server.settings.port = options.http
    server.run(transport="streamable-http")
