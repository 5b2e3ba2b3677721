//! `reference-server`: an independent, conformant MCP server with switchable quirks.
//!
//! It shares no code with mcpcheck, on purpose: a misreading of the spec mirrored on both sides
//! would hide itself. Over stdio by default; `--http ADDR` serves Streamable HTTP instead, and
//! beside it the 2024-11-05 HTTP+SSE transport (`/sse`).

#![warn(missing_docs)]

#[cfg(test)]
mod acyclic;
mod body;
#[cfg(test)]
mod branches;
mod fixtures;
mod http;
mod issuer;
mod legacy;
mod mrtr;
mod outcome;
mod quirks;
mod rounds;
mod server;
mod skills;
mod stdio;
mod stock;
mod tasks;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use quirks::Quirks;
use server::Server;

const USAGE: &str =
    "usage: reference-server [--http ADDR] [--stateless | --dual-era] [--quirk NAME]... | --list-quirks

Serves MCP over stdio, or over Streamable HTTP at http://ADDR/mcp with --http
(ADDR defaults to a loopback address; port 0 picks a free port, printed on stdout).
With --http the handshake era also serves the 2024-11-05 HTTP+SSE transport at
http://ADDR/sse (its messages are POSTed to the URI its `endpoint` event names).

  --http ADDR      serve Streamable HTTP on ADDR, e.g. 127.0.0.1:8080
  --stateless      speak the stateless era (2026-07-28: server/discover, _meta) instead
                   of the handshake era (2024-11-05 ... 2025-11-25)
  --dual-era       speak both eras, as many SDKs do: over stdio a connection that starts
                   with server/discover (or _meta) is stateless, one that starts with
                   initialize is in the handshake era; over HTTP each request is of the era
                   it says (a session id or initialize: handshake; _meta: stateless)
  --capabilities LIST
                   declare and serve only these capabilities (comma-separated: tools,
                   resources, prompts, completions, logging); the others' methods are unknown
  --no-official-fixtures
                   leave out the official conformance suite's fixtures (test_simple_text,
                   test://static-text, ...), which are served by default
  --startup-cpu MS spend MS milliseconds of CPU time before serving, as an interpreter
                   importing its packages does (a Python SDK server takes about 2000):
                   a slow start under load, for testing the client's start-up bounds
  --page-size N    serve lists N items a page (default 2, so that clients page); the
                   official suite reads only a list's first page: give it a large N
  --empty-lists    answer every list method (tools, resources, templates, prompts) with an
                   empty list, while still declaring the capabilities
  --static-token TOKEN
                   HTTP: a protected resource that takes one bearer token: a request
                   without it (or with another) gets 401 with a Bearer challenge
  --auth ISSUER    HTTP: a protected resource that takes the access tokens the OAuth
                   authorization server ISSUER issues: JWTs verified with its published
                   keys, issued for this server (aud: its URL), with the scope `mcp`
                   (the resource metadata names ISSUER); --static-token may be given too
  --authorization-server URL
                   with --static-token: the authorization server (issuer) the protected
                   resource metadata names (default: this server's origin)
  --expired-token TOKEN
                   with --static-token: a token the server knows as one that has expired
                   (refused with 401 invalid_token, as every other wrong token)
  --token-lacks-scope METHOD
                   with --static-token: the token's scope does not cover METHOD
                   (repeatable), which gets 403 insufficient_scope: a step-up answer
  --stop-answering-after N
                   stdio: write N lines, then nothing more, while still reading and
                   running: a server that stopped answering (a wedged one)
  --skills DIR     serve the skills extension (io.modelcontextprotocol/skills): every
                   folder under DIR with a SKILL.md is a skill, its files skill://PATH/FILE
                   resources (reference-server/skills is an example folder); declared on
                   2025-11-25 and 2026-07-28, with directoryRead
  --quirk NAME     break one rule on purpose (repeatable); see --list-quirks
  --list-quirks    print every quirk, the runs it shows in (handshake: stdio and HTTP;
                   stateless: the same with --stateless; legacy-sse; auth: HTTP with
                   --static-token; stateless-auth: the same with --stateless; oauth:
                   HTTP with --auth) and the rule it breaks";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut quirks = Quirks::default();
    let mut http: Option<SocketAddr> = None;
    let mut stateless = false;
    let mut dual_era = false;
    let mut capabilities: Option<Vec<String>> = None;
    let mut official_fixtures = true;
    let mut static_token: Option<String> = None;
    let mut token_lacks: Vec<String> = Vec::new();
    let mut authorization_server: Option<String> = None;
    let mut auth: Option<String> = None;
    let mut expired_token: Option<String> = None;
    let mut startup_cpu = std::time::Duration::ZERO;
    let mut silent_after = None;
    let mut empty_lists = false;
    let mut skills: Option<std::path::PathBuf> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list-quirks" => {
                for (quirk, name, breaks) in quirks::all() {
                    println!("{name:44} {:10} {breaks}", quirk.modes().as_str());
                }
                return ExitCode::SUCCESS;
            }
            "--quirk" => match args
                .next()
                .as_deref()
                .map(|n| (n.to_string(), quirks::parse(n)))
            {
                Some((_, Some(quirk))) => quirks.insert(quirk),
                Some((name, None)) => {
                    return usage_error(&format!("unknown quirk `{name}` (see --list-quirks)"))
                }
                None => return usage_error("--quirk needs a name"),
            },
            "--http" => match args.next().map(|a| a.parse()) {
                Some(Ok(addr)) => http = Some(addr),
                _ => return usage_error("--http needs an address such as 127.0.0.1:8080"),
            },
            "--stateless" => stateless = true,
            "--dual-era" => dual_era = true,
            "--no-official-fixtures" => official_fixtures = false,
            "--static-token" => match args.next() {
                Some(token) if !token.is_empty() => static_token = Some(token),
                _ => return usage_error("--static-token needs a token"),
            },
            "--expired-token" => match args.next() {
                Some(token) if !token.is_empty() => expired_token = Some(token),
                _ => return usage_error("--expired-token needs a token"),
            },
            "--auth" => match args.next() {
                Some(url) if url.starts_with("http://") => auth = Some(url),
                _ => return usage_error("--auth needs the issuer's http:// URL"),
            },
            "--authorization-server" => match args.next() {
                Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                    authorization_server = Some(url)
                }
                _ => return usage_error("--authorization-server needs an http or https URL"),
            },
            "--token-lacks-scope" => match args.next() {
                Some(method) => token_lacks.push(method),
                None => return usage_error("--token-lacks-scope needs a method"),
            },
            "--empty-lists" => empty_lists = true,
            "--page-size" => match args.next().map(|a| a.parse::<usize>()) {
                Some(Ok(n)) if n > 0 => {
                    fixtures::PAGE_SIZE.store(n, std::sync::atomic::Ordering::Relaxed)
                }
                _ => return usage_error("--page-size needs a number of items, 1 or more"),
            },
            "--skills" => match args.next() {
                Some(dir) => skills = Some(dir.into()),
                None => return usage_error("--skills needs a folder"),
            },
            "--stop-answering-after" => match args.next().map(|a| a.parse::<usize>()) {
                Some(Ok(n)) => silent_after = Some(n),
                _ => return usage_error("--stop-answering-after needs a number of lines"),
            },
            "--startup-cpu" => match args.next().map(|a| a.parse::<u64>()) {
                Some(Ok(ms)) => startup_cpu = std::time::Duration::from_millis(ms),
                _ => return usage_error("--startup-cpu needs a number of milliseconds"),
            },
            "--capabilities" => match args.next() {
                Some(list) => {
                    let names: Vec<String> =
                        list.split(',').map(|c| c.trim().to_string()).collect();
                    let known = ["tools", "resources", "prompts", "completions", "logging"];
                    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
                        return usage_error(&format!(
                            "unknown capability `{bad}`; use {}",
                            known.join(", ")
                        ));
                    }
                    capabilities = Some(names);
                }
                None => return usage_error("--capabilities needs a list, e.g. tools,prompts"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    if dual_era && stateless {
        return usage_error("--dual-era speaks both eras: leave out --stateless");
    }
    let skills = match skills.map(|dir| skills::Skills::load(&dir, &quirks)) {
        Some(Ok(skills)) => Some(skills),
        Some(Err(e)) => {
            eprintln!("reference-server: --skills: {e}");
            return ExitCode::FAILURE;
        }
        None => None,
    };
    spend_cpu(startup_cpu);
    // One thread: the server's work is tiny, and a reply then needs no wake-up of another thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let issuer = match auth {
        Some(url) => match runtime.block_on(issuer::Issuer::discover(&url)) {
            Ok(issuer) => Some(Arc::new(issuer)),
            Err(e) => {
                eprintln!("reference-server: --auth {url}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let authorization_server =
        authorization_server.or_else(|| issuer.as_ref().map(|i| i.url.clone()));
    let server = Arc::new(Server {
        quirks,
        stateless: stateless.into(),
        dual_era,
        capabilities,
        official_fixtures,
        static_token,
        token_lacks,
        authorization_server,
        issuer,
        expired_token,
        silent_after,
        empty_lists,
        skills,
        ..Server::default()
    });
    let result = runtime.block_on(async move {
        match http {
            Some(addr) => http::serve(server, addr).await,
            None => stdio::serve(server).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reference-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Keeps one core busy until the process has used `budget` of CPU time (not wall time: on a
/// loaded machine the start takes longer, as a real interpreter's would).
fn spend_cpu(budget: std::time::Duration) {
    if budget.is_zero() {
        return;
    }
    let used = || {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes only into the timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
        std::time::Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
    };
    let mut sink = 0u64;
    while used() < budget {
        for i in 0..100_000u64 {
            sink = std::hint::black_box(sink.wrapping_mul(31).wrapping_add(i));
        }
    }
    std::hint::black_box(sink);
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("reference-server: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
