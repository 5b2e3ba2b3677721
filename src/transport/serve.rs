//! `--serve`: start an HTTP server's command before a run, wait until its port accepts
//! connections, and stop its whole process group afterwards.
//!
//! This is how a CI job (or `mcpcheck compare`) tests an HTTP server it has not started itself.
//! `{port}` in the command and the URL stands for a free port chosen by mcpcheck. The process is
//! started like a stdio server (own process group, stderr kept, registered for Ctrl-C cleanup),
//! and its stdout is read and discarded so that it never blocks on a full pipe.

use std::time::{Duration, Instant};

use super::stdio::{Inbound, StdioProcess};
use super::{Limits, StdioSpec};

/// A command that serves HTTP, and how long it may take to start listening.
#[derive(Clone, Debug)]
pub struct ServeSpec {
    /// The command (program, arguments, environment, working directory).
    pub command: StdioSpec,
    /// How long to wait for the port to accept a connection.
    pub startup_timeout: Duration,
}

/// The `{port}` placeholder of `--serve` commands and URLs.
pub const PORT_PLACEHOLDER: &str = "{port}";

/// A free TCP port on the loopback interface (bound and released at once).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A running served process.
pub struct Served {
    process: StdioProcess,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Served { .. }")
    }
}

impl Served {
    /// Starts the command and waits until `host:port` accepts a TCP connection. Fails (with the
    /// command's stderr) if it exits first or does not listen within the start-up timeout.
    pub async fn start(
        spec: &ServeSpec,
        host: &str,
        port: u16,
        limits: &Limits,
    ) -> Result<Served, ServeFailure> {
        let (process, mut stdout) =
            StdioProcess::spawn(&spec.command, limits).map_err(|why| ServeFailure {
                why: why.to_string(),
                stderr_tail: String::new(),
            })?;
        tokio::spawn(async move {
            while let Some(events) = stdout.next().await {
                if events.iter().any(|e| matches!(e, Inbound::Closed)) {
                    break;
                }
            }
        });
        let served = Served { process };
        let started = Instant::now();
        let address = format!("{host}:{port}");
        loop {
            if let Some(status) = served.process.try_status().await {
                served.stop().await;
                return Err(ServeFailure {
                    why: format!(
                        "the --serve command exited ({status}) before listening on {address}"
                    ),
                    stderr_tail: served.process.stderr_tail(),
                });
            }
            if tokio::net::TcpStream::connect(&address).await.is_ok() {
                return Ok(served);
            }
            if started.elapsed() >= spec.startup_timeout {
                served.stop().await;
                return Err(ServeFailure {
                    why: format!(
                        "the --serve command did not listen on {address} within {:.1} s (--serve-timeout)",
                        spec.startup_timeout.as_secs_f64(),
                    ),
                    stderr_tail: served.process.stderr_tail(),
                });
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Stops the served process group (SIGTERM, then SIGKILL); nothing is left running.
    pub async fn stop(&self) {
        self.process.shutdown(Duration::from_millis(50)).await;
    }
}

/// Why a `--serve` command could not be used, and the end of what it wrote on stderr (shown
/// as the stdio server's is).
#[derive(Debug)]
pub struct ServeFailure {
    /// What happened.
    pub why: String,
    /// The end of its stderr; empty when it wrote none.
    pub stderr_tail: String,
}
