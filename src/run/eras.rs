//! Judging every era a server speaks. A server that answers `server/discover` is judged at
//! 2026-07-28; when it also completes the initialize handshake (many SDKs speak both), it is
//! judged again in the handshake era, the one most clients in the field use: over stdio that
//! pass runs beside the first, from the moment the first knows its era. Versions pinned
//! with `--spec-version` are judged one pass each instead. The passes are joined into one
//! report by [`crate::report::assemble`].

use std::time::{Duration, Instant};

use super::{connect, run_started, RunConfig, Shared};
use crate::protocol::Session;
use crate::record::version::latest_handshake;
use crate::report::assemble::Pass;
use crate::transport::Target;

/// Less than this left of the run bound, and a second era is not started.
const MIN_PASS: Duration = Duration::from_secs(5);

/// Runs one pass per era (or per pinned version): the passes, in the order they were started,
/// and why an era was not judged, when mcpcheck tried it.
pub(super) async fn run_eras(config: &RunConfig) -> (Vec<Pass>, Option<String>) {
    let clock = Instant::now();
    let shared = Shared::new();
    let mut passes = Vec::new();
    let mut note = None;
    if config.versions.is_empty() {
        // Over stdio every era's connections are processes of their own, so the handshake era
        // starts as soon as the first pass knows it is in the stateless one, while that pass
        // goes on (a server slow to start pays its starts once, not twice in a row). Over HTTP
        // both eras would speak to one server whose state they share: one after the other.
        let concurrent = matches!(config.target, Target::Stdio(_));
        let (known, era) = tokio::sync::oneshot::channel();
        let first = run_started(config.clone(), None, &shared, concurrent.then_some(known));
        let handshake = async {
            match era.await {
                Ok(true) => Some(handshake_pass(config, clock, &shared).await),
                _ => None,
            }
        };
        let (first, second) = tokio::join!(first, handshake);
        let stateless = first.fatal.is_none() && first.protocol.era.as_deref() == Some("stateless");
        passes.push(first);
        // A first pass that could not be completed stands alone, as if the other era had not
        // been tried.
        let second = match second {
            Some(second) => Some(second),
            None if stateless && !concurrent => Some(handshake_pass(config, clock, &shared).await),
            None => None,
        };
        if let (true, Some(second)) = (stateless, second) {
            match second {
                Ok(second) => passes.push(second),
                Err(why) => note = Some(why),
            }
        }
    } else {
        for version in &config.versions {
            let mut pass = config.clone();
            pass.spec_version = Some(version.clone());
            pass.run_timeout = config.run_timeout.saturating_sub(clock.elapsed());
            let pass = run_started(pass, None, &shared, None).await;
            let fatal = pass.fatal.is_some();
            passes.push(pass);
            if fatal {
                break;
            }
        }
    }
    (passes, note)
}

/// The handshake-era pass of a server found in the stateless era: on a connection of its own
/// that completes the initialize handshake, under what is left of the run bound. The pass, or
/// why the era was not judged.
async fn handshake_pass(
    config: &RunConfig,
    clock: Instant,
    shared: &Shared,
) -> Result<Pass, String> {
    let left = config.run_timeout.saturating_sub(clock.elapsed());
    if left < MIN_PASS {
        return Err(format!(
            "the handshake era was not tried: the run bound of {} s was used up",
            config.run_timeout.as_secs()
        ));
    }
    let session = completes_handshake(config, left, shared)
        .await
        .map_err(|why| {
            format!(
                "the handshake era was not judged: the server does not complete initialize ({why})"
            )
        })?;
    let mut pass = config.clone();
    pass.spec_version = Some(latest_handshake().to_string());
    // What is left once the handshake probe is done.
    pass.run_timeout = config.run_timeout.saturating_sub(clock.elapsed());
    let mut second = run_started(pass, Some(session), shared, None).await;
    // What the first era judged stands: the run is not untestable.
    if let Some(fatal) = second.fatal.take() {
        return Err(format!("the handshake era was not judged: {fatal}"));
    }
    second.protocol.detection = format!(
        "the server also completed initialize (asked for {})",
        latest_handshake()
    );
    Ok(second)
}

/// Whether the server completes an initialize handshake on a connection of its own: the
/// connection, handshake done, on which the handshake-era pass then goes on (one start fewer).
async fn completes_handshake(
    config: &RunConfig,
    left: Duration,
    shared: &Shared,
) -> Result<Session, String> {
    // Its start waits for a core like every other (it may run beside the first pass's).
    let permit = shared.starts.acquire(&config.target).await;
    let session = Session::open(&config.target, &config.limits)?;
    if let (Some(permit), Some(heard)) = (permit, session.heard_flag()) {
        let group = session.process_group();
        tokio::spawn(connect::hold_while_starting(
            permit,
            heard,
            group,
            config.limits.startup_timeout,
        ));
    }
    // Under what is left of the run bound, too.
    let bound = (config.limits.startup_timeout + config.limits.request_timeout).min(left);
    let outcome = tokio::time::timeout(bound, session.handshake(latest_handshake())).await;
    let why = match outcome {
        Ok(Ok(_)) => return Ok(session),
        Ok(Err((why, _))) => why.to_string(),
        Err(_) => format!("no answer within {} s", bound.as_secs()),
    };
    session.close().await;
    Err(why)
}
