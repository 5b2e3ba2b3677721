//! A protected server that takes a static bearer token: with a token whose scope does not cover
//! `tools/call`, its 403 `insufficient_scope` answers (a JSON body that is not JSON-RPC) fail no
//! check; the checks that rest on them are not testable and say why, and the token never shows.

use serde_json::{json, Value};

use crate::support::{run_json_with_env, AuthorizationServer, HttpServer};

/// The protected server's one token: a JWT (the server compares it whole), so that the checks
/// of bad tokens alter its claims too.
const TOKEN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNlbGZ0ZXN0In0.eyJpc3MiOiJodHRwczovL2l0LmludmFsaWQiLCJzdWIiOiJtY3BjaGVjay1pdCIsInNjb3BlIjoibWNwIiwiZXhwIjo0MTAyNDQ0ODAwfQ.XqOiIIJ43-p6hi7XqBT1-M2J9pLdyarCzLWlYrjw9Os";

/// The flags that have mcpcheck get its token by the client credentials grant, as the test
/// client of oauth2-mock-server (which takes any client), its secret from [`CLIENT_SECRET`].
const CLIENT_CREDENTIALS: [&str; 6] = [
    "--auth",
    "client-credentials",
    "--client-id",
    "mcpcheck-test",
    "--client-secret-env",
    "MCPCHECK_TEST_SECRET",
];

/// The environment variable holding the test client's secret, and the secret.
const CLIENT_SECRET: (&str, &str) = ("MCPCHECK_TEST_SECRET", "mcpcheck-test-client-secret");

/// Runs the library over HTTP with the token from the environment, as a user would pass it;
/// returns the exit code, the report, and all it printed (the report and stderr).
fn run_with_token(server: &HttpServer) -> (i32, Value, String) {
    let (code, report, stderr) = run_json_with_env(
        &[
            "--url",
            &server.url,
            "-H",
            "Authorization: Bearer $MCPCHECK_TEST_BEARER",
            "-q",
        ],
        &[("MCPCHECK_TEST_BEARER", TOKEN)],
    );
    let printed = format!("{report}\n{stderr}");
    (code, report, printed)
}

/// Asserts that mcpcheck exited with `code` and that its stderr says each of `words`.
fn exits_saying(output: &std::process::Output, code: i32, words: &[&str]) {
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{said}");
    for word in words {
        assert!(said.contains(word), "{word:?} not in: {said}");
    }
}

#[test]
fn a_step_up_refusal_is_not_testable_never_a_failure() {
    let server =
        HttpServer::start_with(&["--static-token", TOKEN, "--token-lacks-scope", "tools/call"]);
    let (code, report, text) = run_with_token(&server);
    assert!(
        !text.contains(TOKEN),
        "the token leaked into what mcpcheck printed"
    );
    let checks = report["checks"].as_array().unwrap();
    let problems: Vec<String> = checks
        .iter()
        .filter(|c| ["fail", "warn", "error"].contains(&c["status"].as_str().unwrap()))
        .map(|c| format!("{} {}: {}", c["id"], c["status"], c["message"]))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(code, 0);
    // The checks that call a tool say that the authorization layer refused the call.
    for id in [
        "tools-call-malformed",
        "tools-call-unknown-tool",
        "tools-call-empty-result",
    ] {
        let check = checks.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(check["status"], "not-testable", "{check}");
        assert_eq!(
            check["reason"],
            json!({"kind": "authorization", "refusal": "HTTP 403 insufficient_scope (scope \"mcp:tools/call\")"}),
            "{check}"
        );
    }
    // The refusals' bodies are not read as the server's JSON-RPC by the checks over the run.
    for id in ["jsonrpc-version-field", "jsonrpc-error-shape"] {
        let check = checks.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(check["status"], "pass", "{check}");
    }
}

#[test]
fn with_a_token_that_covers_everything_the_protected_server_passes() {
    let server = HttpServer::start_with(&["--static-token", TOKEN]);
    let (code, report, text) = run_with_token(&server);
    assert!(
        !text.contains(TOKEN),
        "the token leaked into what mcpcheck printed"
    );
    assert_eq!(code, 0, "{}", report["summary"]);
    assert_eq!(report["summary"]["notTestable"], 0, "{}", report["summary"]);
    // Without the token the handshake is refused: the authorization checks are made as a
    // client without a token makes them, and every other check needs the token.
    let (code, report, _) = run_json_with_env(&["--url", &server.url, "-q"], &[]);
    assert_eq!(code, 0, "{}", report["summary"]);
    assert!(
        report["erasNote"].as_str().is_some_and(
            |n| n.contains("the server is protected") && n.contains("Authorization: Bearer")
        ),
        "{}",
        report["erasNote"]
    );
    let checks = report["checks"].as_array().unwrap();
    let judged: Vec<&Value> = checks.iter().filter(|c| c["status"] != "skip").collect();
    assert!(
        judged
            .iter()
            .all(|c| c["area"] == "authorization" && c["status"] == "pass"),
        "{judged:?}"
    );
    assert!(judged
        .iter()
        .any(|c| c["id"] == "auth-metadata-discoverable"));
    let needs_token = checks
        .iter()
        .filter(|c| c["reason"]["kind"] == "token")
        .count();
    assert!(
        needs_token > 50,
        "{needs_token} checks said they need a token"
    );
    // What the run chose still decides the rest: a stdio check is for stdio.
    let stdio = checks.iter().find(|c| c["id"] == "stdio-framing").unwrap();
    assert_eq!(stdio["reason"]["kind"], "transport", "{stdio}");
}

#[test]
fn without_a_token_the_era_is_unknown_and_a_pinned_stateless_version_is_honoured() {
    let server = HttpServer::start_with(&["--stateless", "--static-token", TOKEN]);
    // Unpinned: judged at the newest handshake revision, and the report says why and how to
    // judge the other era.
    let (_, report, _) = run_json_with_env(&["--url", &server.url, "--check", "auth-*", "-q"], &[]);
    assert_eq!(
        report["protocol"]["version"], "2025-11-25",
        "{}",
        report["protocol"]
    );
    let detection = report["protocol"]["detection"].as_str().unwrap();
    assert!(
        detection.contains("era the server speaks is unknown")
            && detection.contains("--spec-version 2026-07-28"),
        "{detection}"
    );
    // Pinned to 2026-07-28: judged there, the stateless era's own checks with it.
    let (code, report, _) = run_json_with_env(
        &[
            "--url",
            &server.url,
            "--spec-version",
            "2026-07-28",
            "--check",
            "auth-*",
            "-q",
        ],
        &[],
    );
    assert_eq!(code, 0, "{}", report["summary"]);
    assert_eq!(
        report["protocol"]["version"], "2026-07-28",
        "{}",
        report["protocol"]
    );
    assert_eq!(report["protocol"]["era"], "stateless");
    let checks = report["checks"].as_array().unwrap();
    for id in ["auth-missing-token-401", "auth-metadata-offline-access"] {
        let check = checks.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(check["status"], "pass", "{check}");
        assert_eq!(check["version"], "2026-07-28", "{check}");
    }
}

/// The statuses of the authorization checks of a run with the token, by id.
fn authorization_checks(server: &HttpServer) -> Vec<(String, String, String)> {
    let (_, report, text) = run_with_token(server);
    assert!(!text.contains(TOKEN), "the token leaked");
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["area"] == "authorization")
        .map(|c| {
            let field = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (field("id"), field("status"), field("message"))
        })
        .collect()
}

#[test]
fn discovery_passes_against_a_real_authorization_server_and_catches_a_wrong_issuer() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    // The resource metadata names oauth2-mock-server, whose OpenID Connect Discovery document
    // (it serves no RFC 8414 one) is found in the order clients try.
    let server = HttpServer::start_with(&[
        "--static-token",
        TOKEN,
        "--authorization-server",
        &oauth.issuer,
    ]);
    let checks = authorization_checks(&server);
    for id in [
        "auth-metadata-discoverable",
        "auth-metadata-resource",
        "auth-server-metadata-found",
        "auth-server-metadata-issuer",
        "auth-server-metadata-endpoints",
        "auth-server-metadata-pkce",
    ] {
        assert!(checks.iter().any(|(c, _, _)| c == id), "{id} did not run");
    }
    // (A static token: no token for another resource to send, and no expired one given; the
    // offline_access checks are for 2026-07-28, the origin's for 2025-03-26, and this server
    // speaks 2025-11-25; oauth2-mock-server offers no client registration, a warning.)
    let problems: Vec<_> = checks
        .iter()
        .filter(|(id, s, _)| {
            s != "pass"
                && id != "auth-other-audience-refused"
                && id != "auth-shared-audience-refused"
                && id != "auth-server-metadata-registration"
                && id != "auth-expired-token-refused"
                && !id.ends_with("-offline-access")
                && !id.starts_with("auth-origin-")
        })
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    // The same server under another name for the same host: its metadata speaks for
    // http://localhost:PORT, not for the URL the resource metadata names.
    let elsewhere = oauth.issuer.replace("localhost", "127.0.0.1");
    let server = HttpServer::start_with(&[
        "--static-token",
        TOKEN,
        "--authorization-server",
        &elsewhere,
    ]);
    let checks = authorization_checks(&server);
    let issuer = checks
        .iter()
        .find(|(c, _, _)| c == "auth-server-metadata-issuer")
        .unwrap();
    assert_eq!(issuer.1, "fail", "{issuer:?}");
    assert!(issuer.2.contains(&oauth.issuer), "{issuer:?}");
}

#[test]
fn bad_tokens_are_refused_and_never_shown_and_a_token_that_is_no_jwt_cannot_be_tampered_with() {
    let server = HttpServer::start_with(&["--static-token", TOKEN]);
    let (_, report, text) = run_with_token(&server);
    let status = |id: &str| crate::support::check(&report, id)["status"].clone();
    for id in [
        "auth-garbage-token-refused",
        "auth-alg-none-token-refused",
        "auth-foreign-key-token-refused",
        "auth-tampered-token-refused",
        "auth-invalid-token-error",
    ] {
        assert_eq!(status(id), "pass", "{id}");
    }
    // The made-up tokens carry the token's claims, one its signature: none is ever printed.
    for made_up in mcpcheck::record::token::MadeUp::from(TOKEN).all() {
        assert!(
            !text.contains(&made_up),
            "a made-up token leaked: {made_up}"
        );
        let payload = made_up.split('.').nth(1).unwrap_or(&made_up);
        assert!(!text.contains(payload), "a made-up token's claims leaked");
    }
    // A token that is no JWT has no signature to keep: that one check cannot be made.
    let opaque = "mcpcheck-opaque-token-0123456789";
    let server = HttpServer::start_with(&["--static-token", opaque]);
    let (_, report, _) = run_json_with_env(
        &[
            "--url",
            &server.url,
            "-H",
            "Authorization: Bearer $MCPCHECK_TEST_BEARER",
            "--check",
            "auth-*",
            "-q",
        ],
        &[("MCPCHECK_TEST_BEARER", opaque)],
    );
    let tampered = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "auth-tampered-token-refused")
        .unwrap();
    assert_eq!(tampered["status"], "not-testable", "{tampered}");
    assert!(
        tampered["message"].as_str().unwrap().contains("not a JWT"),
        "{tampered}"
    );
}

#[test]
fn a_server_mcpcheck_serves_is_up_while_its_token_is_got() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    // `--serve`: the server is not running before mcpcheck starts it, and its token (for its
    // own URL) can only be had once it is: its 401 names the authorization server.
    let serve = format!(
        "{} --http 127.0.0.1:{{port}} --auth {}",
        crate::support::reference_server().display(),
        oauth.issuer
    );
    let served = ["--url", "http://127.0.0.1:{port}/mcp", "--serve", &serve];
    let (code, report, stderr) = run_json_with_env(
        &[&served[..], &CLIENT_CREDENTIALS, &["--check", "auth-*"]].concat(),
        &[CLIENT_SECRET],
    );
    assert!(
        stderr.contains("got a token by the client credentials grant at"),
        "{stderr}"
    );
    assert_eq!(code, 0, "{}\n{stderr}", report["summary"]);
    let checks = report["checks"].as_array().unwrap();
    for id in [
        "auth-other-audience-refused",
        "auth-shared-audience-refused",
    ] {
        let check = checks.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(check["status"], "pass", "{check}");
    }
}

#[test]
fn the_whole_library_passes_with_a_token_mcpcheck_gets_from_a_real_authorization_server() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    // The server takes only the tokens oauth2-mock-server issues for it (signature, issuer,
    // audience, scope), as a real resource server does.
    let server = HttpServer::start_with(&["--auth", &oauth.issuer]);
    let (code, report, stderr) = run_json_with_env(
        &[&["--url", server.url.as_str()][..], &CLIENT_CREDENTIALS].concat(),
        &[CLIENT_SECRET],
    );
    assert!(
        stderr.contains("got a token by the client credentials grant at")
            && stderr.contains("scope \"mcp\""),
        "{stderr}"
    );
    assert_eq!(code, 0, "{}\n{stderr}", report["summary"]);
    assert_eq!(report["summary"]["notTestable"], 0, "{}", report["summary"]);
    assert!(
        report["summary"]["pass"].as_u64().unwrap() > 100,
        "{}",
        report["summary"]
    );
    // Every check of a token the server must refuse was made, with a real JWT to alter.
    for id in ["auth-tampered-token-refused", "auth-alg-none-token-refused"] {
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        assert_eq!(check["status"], "pass", "{check}");
    }
    // Neither the secret nor any token (each a JWT: `eyJ…`) is ever shown, in any format, nor
    // in a repro script of an authorization check (which sent made-up tokens).
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["run", "--url", &server.url, "--auth", "client-credentials"])
        .args([
            "--client-id",
            "mcpcheck-test",
            "--client-secret-env",
            "MCPCHECK_TEST_SECRET",
        ])
        .args([
            "--json",
            &out("r.json"),
            "--junit",
            &out("r.xml"),
            "--markdown",
            &out("r.md"),
        ])
        .args([
            "--html",
            &out("r.html"),
            "--sarif",
            &out("r.sarif"),
            "--verbose",
        ])
        .env("MCPCHECK_TEST_SECRET", "mcpcheck-test-client-secret")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let repro = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args([
            "repro",
            "auth-alg-none-token-refused",
            "--report",
            &out("r.json"),
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&repro.stdout).contains("curl"),
        "{}",
        String::from_utf8_lossy(&repro.stderr)
    );
    let mut shown = format!(
        "{report}{stderr}{}{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&repro.stdout),
    );
    for name in ["r.json", "r.xml", "r.md", "r.html", "r.sarif"] {
        shown.push_str(&std::fs::read_to_string(dir.path().join(name)).unwrap());
    }
    assert!(!shown.contains("mcpcheck-test-client-secret"));
    let jwt = regex::Regex::new(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ").unwrap();
    assert!(
        !jwt.is_match(&shown),
        "a token was shown: {:?}",
        jwt.find(&shown)
    );
    // A client the authorization server cannot give a token to: the server cannot be tested,
    // and the run says why.
    let refused = HttpServer::start_with(&["--static-token", TOKEN]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["run", "--url", &refused.url, "--auth", "client-credentials"])
        .args([
            "--client-id",
            "x",
            "--client-secret-env",
            "MCPCHECK_TEST_SECRET",
        ])
        .env("MCPCHECK_TEST_SECRET", "mcpcheck-test-client-secret")
        .output()
        .unwrap();
    exits_saying(&output, 3, &["could not get a token"]);
}

#[test]
fn the_code_flow_signs_in_through_a_browser_and_refuses_a_forged_redirect() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    let server = HttpServer::start_with(&["--auth", &oauth.issuer]);
    let browser = |flags: &str| {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth/browse.mjs");
        format!("node {} {flags}", script.display())
    };
    let run = |browser: String| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
            .args([
                "run",
                "--url",
                &server.url,
                "--auth",
                "code",
                "--client-id",
                "mcpcheck-cli",
            ])
            .args(["--check", "auth-*", "--check", "lifecycle-*"])
            .env("BROWSER", browser)
            .output()
            .unwrap()
    };
    // Signed in: the token the code was exchanged for (PKCE S256, for this server) is taken.
    let output = run(browser(""));
    exits_saying(
        &output,
        0,
        &[
            "sign in to authorize mcpcheck: http://localhost:",
            "code_challenge_method=S256",
            "got a token by the authorization code grant (PKCE S256)",
        ],
    );
    // A redirect whose state is not the one mcpcheck sent is refused, and nothing is tested.
    exits_saying(
        &run(browser("--tamper-state")),
        3,
        &["state is not the one mcpcheck sent"],
    );
}

#[test]
fn without_a_client_id_mcpcheck_registers_itself_for_either_grant() {
    let Some(oauth) = AuthorizationServer::registering() else {
        return;
    };
    // oidc-provider lets any client register (RFC 7591) and binds each token to the one
    // resource asked for; the server takes only its tokens for it, with the scope `mcp`.
    let server = HttpServer::start_with(&["--auth", &oauth.issuer]);
    let (code, report, stderr) =
        run_json_with_env(&["--url", &server.url, "--auth", "client-credentials"], &[]);
    assert!(
        stderr.contains("got a token by the client credentials grant at")
            && stderr.contains(&format!("mcpcheck registered at {}/reg", oauth.issuer)),
        "{stderr}"
    );
    assert_eq!(code, 0, "{}\n{stderr}", report["summary"]);
    assert!(
        report["summary"]["pass"].as_u64().unwrap() > 100,
        "{}",
        report["summary"]
    );
    let checks = report["checks"].as_array().unwrap();
    let check = |id: &str| checks.iter().find(|c| c["id"] == id).unwrap().clone();
    assert_eq!(check("auth-other-audience-refused")["status"], "pass");
    // oidc-provider issues no token for two resources at once, which is its right: the check
    // says so, and it is the run's only one not testable.
    let shared = check("auth-shared-audience-refused");
    assert_eq!(shared["status"], "not-testable", "{shared}");
    assert_eq!(report["summary"]["notTestable"], 1, "{}", report["summary"]);
    // What the registration gave (a client secret, a registration access token) is never shown.
    let issued = oauth.issued_secrets();
    assert_eq!(issued.len(), 2, "{issued:?}");
    let shown = format!("{report}{stderr}");
    for secret in &issued {
        assert!(
            !shown.contains(secret.as_str()),
            "a registration secret was shown"
        );
    }

    // The code flow registers a public native client with its loopback redirect URI, then
    // signs in through oidc-provider's sign-in and consent pages.
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth/browse.mjs");
    let code_flow = |flags: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
            .args(["run", "--url", &server.url, "--auth", "code"])
            .args(["--check", "auth-*", "--check", "lifecycle-*"])
            .env("BROWSER", format!("node {} {flags}", script.display()))
            .output()
            .unwrap()
    };
    exits_saying(
        &code_flow(""),
        0,
        &[
            "got a token by the authorization code grant (PKCE S256)",
            "mcpcheck registered at",
        ],
    );
    // A redirect that names another issuer, or none from a server that says it names itself
    // (RFC 9207), is another server's answer.
    for (flags, why) in [
        (
            "--tamper-iss",
            "names the issuer \"https://another-issuer.invalid\"",
        ),
        ("--drop-iss", "names no issuer"),
    ] {
        exits_saying(
            &code_flow(flags),
            3,
            &[why, "an answer of another authorization server"],
        );
    }
}

#[test]
fn without_a_client_id_a_server_that_offers_no_registration_cannot_be_tested() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    // oauth2-mock-server has no registration endpoint.
    let server = HttpServer::start_with(&["--auth", &oauth.issuer]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["run", "--url", &server.url, "--auth", "client-credentials"])
        .output()
        .unwrap();
    exits_saying(
        &output,
        3,
        &["offers no registration_endpoint (RFC 7591)", "--client-id"],
    );
    // A secret without the client it belongs to is a usage error.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["run", "--url", &server.url, "--auth", "client-credentials"])
        .args(["--client-secret-env", "MCPCHECK_TEST_SECRET"])
        .env("MCPCHECK_TEST_SECRET", "x")
        .output()
        .unwrap();
    exits_saying(&output, 2, &["--client-secret-env goes with --client-id"]);
}

#[test]
fn compare_gets_each_protected_servers_token_as_run_does() {
    let Some(oauth) = AuthorizationServer::start() else {
        return;
    };
    let protected = HttpServer::start_with(&["--auth", &oauth.issuer]);
    let open = HttpServer::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("servers.toml");
    std::fs::write(
        &servers,
        format!(
            "[[server]]\nname = \"protected\"\nurl = \"{}\"\nauth = \"client-credentials\"\nclient-id = \"mcpcheck-test\"\nclient-secret-env = \"MCPCHECK_TEST_SECRET\"\n\n[[server]]\nname = \"open\"\nurl = \"{}\"\n",
            protected.url, open.url
        ),
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["compare", "--config"])
        .arg(&servers)
        .args(["--json", "-"])
        .env("MCPCHECK_TEST_SECRET", "mcpcheck-test-client-secret")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("server `protected`: getting its token")
            && stderr.contains("got a token by the client credentials grant"),
        "{stderr}"
    );
    let matrix: Value = serde_json::from_str(&stdout).unwrap();
    let reports = matrix["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    // The protected server was judged authenticated, as a whole library: its authorization
    // checks passed with the token, the rest of the library ran.
    let protected = &reports[0];
    assert!(protected["fatal"].is_null(), "{}", protected["fatal"]);
    assert!(
        protected["summary"]["pass"].as_u64().unwrap() > 100,
        "{}",
        protected["summary"]
    );
    let status = |id: &str| {
        protected["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status("auth-missing-token-401"), "pass");
    assert_eq!(status("auth-session-token-required"), "pass");
    // No token, and not the client secret, in anything compare printed (each token a JWT).
    for text in [&*stdout, &*stderr] {
        assert!(!text.contains("eyJ"), "a token was printed");
        assert!(!text.contains("mcpcheck-test-client-secret"));
    }
}
