//! mcpcheck's integration tests, in one binary to keep link time down. The quirk self-test is
//! a binary of its own (`tests/selftest`), one test per quirk and run.

/// Starting mcpcheck and the reference server, reading reports.
mod support;

/// Over HTTP, responses sent as SSE streams and the notifications in them are read.
mod sse;

/// Servers that exit at once, hang, flood, or leave children behind; Ctrl-C.
mod hostile;

/// Usage errors, scenario-file errors, `list`, user scenarios.
mod cli;

/// Snapshots of reports, and redaction of secrets.
mod report;

/// The terminal report at a glance, `--show`, progress outside a terminal, GitHub annotations.
mod glance;

/// JUnit, Markdown, HTML, badge and official outputs; baselines, strictness, config files.
mod outputs;

/// Sharding a run and merging the shards' reports.
mod scale;

/// `mcpcheck compare`: the servers × checks matrix.
mod compare;

/// The official suite's known false results do not happen here.
mod parity;

/// docs/sdk-comparison.md's sentences about cells agree with peers/matrix.md.
mod sdk_claims;

/// Every check of the official suite, mapped to mcpcheck's (tests/official/parity.toml).
mod official_map;

/// mcpcheck's own result schemas against the official schema files.
mod schemas;

/// Safe by default: no discovered tool is called without `--call-tools`.
mod safety;

/// The server under test cannot steer mcpcheck: no credentials to another origin, no escape
/// sequences on the terminal, no markup in reports.
mod untrusted;

/// The hostile-server corpus: stalls, floods, redirects, crashes; bounds in time and memory.
mod corpus;

/// The reference server fed arbitrary frames over stdio and HTTP never panics.
mod fuzz;

/// A server that speaks both eras is judged in both; pinned versions; `--check id@version`.
mod eras;

/// `mcpcheck repro`: the printed script replays a quirk's deviation.
mod repro;

/// `mcpcheck init` on sample Node and Python projects, and the config it writes runs.
mod init;

/// A protected server's authorization refusals (a step-up 403) are not judged as JSON-RPC.
mod authorization;

/// The official conformance suite, pinned in tests/official, passes against the reference server.
mod official;
