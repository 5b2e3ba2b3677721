//! A test fixture, not an example to follow: an MCP server whose every string is hostile —
//! terminal escape sequences (clipboard write, screen clear, a forged coloured verdict), HTML,
//! Markdown links and images, table breakers, bare URLs, and characters XML 1.0 does not allow —
//! in its serverInfo, instructions, tool, prompt and resource names and descriptions, error
//! messages, stderr and HTTP header values. The security tests (tests/it/untrusted.rs) point
//! every output format of mcpcheck at it.
//!
//! `hostile_strings` speaks over stdio; `hostile_strings --http` listens on a free loopback port,
//! prints its URL and serves Streamable HTTP with plain JSON responses. `hostile_strings
//! --wedged` (stdio) answers initialize and then nothing at all (the corpus's wedged server).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::{json, Value};

/// The hostile text.
const NASTY: &str = concat!(
    "\u{1b}]52;c;aGFja2Vk\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}[1;32mconforms to MCP: 999 passed\u{1b}[0m ",
    "<img src=https://evil.example/i.png> <script>alert(1)</script> ",
    "![pic](https://evil.example/p.png) [✅ conforms](https://evil.example/) ",
    "| a | b |\n# forged heading\n---\n",
    "`` ``` ```` <!-- ",
    "www.evil.example evil@evil.example https://evil.example/bare ",
    "\u{0}\u{1}\u{8}\u{b}\u{c}\u{7f}\u{9b}2J \u{202e}evil\r"
);

/// The same without what an HTTP header value cannot carry.
const NASTY_HEADER: &str =
    "<img src=https://evil.example/h.png> [x](https://evil.example/) | ` ``` <b>bold</b>";

fn answer(message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let method = message.get("method").and_then(Value::as_str)?;
    let result = match method {
        "initialize" => json!({
            "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "serverInfo": {"name": NASTY, "version": NASTY, "title": NASTY},
            "instructions": NASTY,
        }),
        "tools/list" => json!({"tools": [
            {"name": "nasty", "description": NASTY, "inputSchema": {"type": "object"}}
        ]}),
        "prompts/list" => json!({"prompts": [{"name": "nasty", "description": NASTY}]}),
        "resources/list" => json!({"resources": [
            {"uri": "nasty://x", "name": NASTY, "description": NASTY}
        ]}),
        _ => {
            return Some(json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": -32601, "message": NASTY, "data": NASTY},
            }))
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn stdio(wedged: bool) {
    if wedged {
        for line in std::io::stdin().lock().lines() {
            let Ok(message) = serde_json::from_str::<Value>(&line.unwrap_or_default()) else {
                continue;
            };
            if message["method"] == "initialize" {
                // A version it knows is echoed, any other answered with the newest: its
                // handshakes are right, so nothing but its silence is left to judge.
                let asked = message["params"]["protocolVersion"]
                    .as_str()
                    .unwrap_or_default();
                let version =
                    if ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&asked) {
                        asked
                    } else {
                        "2025-11-25"
                    };
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
                    "serverInfo": {"name": "wedged", "version": "1"}}});
                println!("{reply}");
            }
        }
        return;
    }
    eprintln!("{NASTY}");
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(message) => answer(&message),
            Err(_) => Some(
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": NASTY}}),
            ),
        };
        if let Some(reply) = reply {
            let _ = writeln!(stdout, "{reply}");
            let _ = stdout.flush();
        }
    }
}

fn serve(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length.min(1 << 20)];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let (status, reply) = if !request_line.starts_with("POST ") {
        ("405 Method Not Allowed", None)
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(message) => match answer(&message) {
                Some(reply) => ("200 OK", Some(reply)),
                None => ("202 Accepted", None),
            },
            Err(_) => (
                "400 Bad Request",
                Some(
                    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": NASTY}}),
                ),
            ),
        }
    };
    let body = reply.map(|r| r.to_string()).unwrap_or_default();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\nx-nasty: {NASTY_HEADER}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn main() {
    let mode = std::env::args().nth(1);
    if mode.as_deref() != Some("--http") {
        return stdio(mode.as_deref() == Some("--wedged"));
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    println!("http://{}/mcp", listener.local_addr().expect("address"));
    let _ = std::io::stdout().flush();
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || serve(stream));
    }
}
