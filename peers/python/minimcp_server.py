"""mcpcheck's peer server for MiniMCP (the `minimcp` package), exposing the reference server's
fixture set the way a MiniMCP user would write it.

    python minimcp_server.py [--http PORT]

Without --http it speaks stdio; with it, MiniMCP's StreamableHTTPTransport served by uvicorn at
http://127.0.0.1:PORT/mcp.
"""

import argparse
import base64

import anyio
from typing_extensions import TypedDict

from minimcp import MiniMCP, StdioTransport, StreamableHTTPTransport

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

parser = argparse.ArgumentParser()
parser.add_argument("--http", type=int, metavar="PORT")
options = parser.parse_args()

mcp = MiniMCP("mcpcheck-peer-minimcp", version="1.0.0")


class Sum(TypedDict):
    sum: float


@mcp.tool(description="Returns the text it is given.")
def mcpcheck_echo(text: str) -> str:
    return text


@mcp.tool(description="Succeeds and returns no content.")
def mcpcheck_empty() -> list:
    return []


@mcp.tool(description="Always fails while executing, reported as a tool error.")
def mcpcheck_error() -> str:
    raise RuntimeError("the operation failed")


@mcp.tool(description="Adds two numbers and returns the sum as structured content.")
def mcpcheck_structured(a: float, b: float) -> Sum:
    return {"sum": a + b}


@mcp.tool(description="Waits a little, reporting progress when asked to.")
async def mcpcheck_slow(steps: int = 3, delayMs: int = 20) -> str:
    steps = max(1, min(steps, 20))
    responder = mcp.context.get_responder()
    for step in range(1, steps + 1):
        await anyio.sleep(min(delayMs, 1000) / 1000)
        await responder.report_progress(step, steps)
    return "done"


@mcp.resource("ref://docs/readme", name="readme", description="A short text.", mime_type="text/plain")
def readme() -> str:
    return "mcpcheck reference server\n"


@mcp.resource("ref://images/pixel", name="pixel", description="A 1x1 PNG.", mime_type="image/png")
def pixel() -> bytes:
    return PIXEL_PNG


@mcp.resource("ref://items/{id}", name="item", description="An item by id.", mime_type="text/plain")
def item(id: str) -> str:
    return f"item {id}"


@mcp.prompt(description="Asks for a greeting.")
def greeting(name: str) -> str:
    return f"Please greet {name}."


@mcp.prompt(description="A prompt without arguments.")
def plain() -> str:
    return "Say something plain."


if options.http is None:
    anyio.run(StdioTransport(mcp).run)
else:
    import uvicorn

    app = StreamableHTTPTransport(mcp).as_starlette(path="/mcp")
    uvicorn.run(app, host="127.0.0.1", port=options.http, log_level="warning")
