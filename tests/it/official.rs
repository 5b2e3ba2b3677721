//! The official conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! tests/official) against the reference server, in both eras: every scenario a revision
//! requires (`--requirements`), and the skills extension's, passes, and every scenario of the
//! suite (`--suite all`) against the server speaking both eras over HTTP, but for the failures
//! tests/official/expected-failures.yaml lists (each one a disagreement docs/coverage.md
//! explains). mcpcheck's checks and the reference server are written from the specification;
//! this keeps them honest against the suite SDK tier assessments use.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{fixture_missing, HttpServer};

/// How long one run of the suite may take (a revision's requirements take about 15 s).
const RUN_BOUND: Duration = Duration::from_secs(240);

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/official")
}

/// The (scenario, check id) pairs the suite's runs reported.
type Seen = BTreeSet<(String, String)>;

/// Runs `conformance server ARGS` against `url`, within [`RUN_BOUND`]; its output and whether
/// it succeeded. The check ids it reported go into `seen`.
fn suite(url: &str, args: &[&str], seen: &mut Seen) -> (bool, String) {
    let dir = suite_dir();
    let bin = dir.join("node_modules/.bin");
    // The package's own Node.js 22 (the `node` package) comes first on the PATH.
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin.join("conformance"))
        .args(["server", "--url", url])
        .args(args)
        .arg("--expected-failures")
        .arg(dir.join("expected-failures.yaml"))
        .arg("--output-dir")
        .arg(out.path())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the conformance suite starts");
    // Its output is read while it runs, so that a full pipe never stalls it.
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut from: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = from.read_to_string(&mut text);
            text
        })
    };
    let (out_text, err_text) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > RUN_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = format!(
        "{}{}",
        out_text.join().unwrap_or_default(),
        err_text.join().unwrap_or_default()
    );
    collect(out.path(), seen);
    match status {
        Some(status) => (status.success(), text),
        None => (
            false,
            format!("the suite ran longer than {RUN_BOUND:?}\n{text}"),
        ),
    }
}

/// Reads every `checks.json` of an output folder: one folder per scenario run.
fn collect(out: &Path, seen: &mut Seen) {
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = crate::official_map::scenario_of_folder(&folder) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue;
        };
        let checks: serde_json::Value = serde_json::from_str(&text).unwrap();
        for check in checks.as_array().into_iter().flatten() {
            if let Some(id) = check.get("id").and_then(|i| i.as_str()) {
                seen.insert((scenario.to_string(), id.to_string()));
            }
        }
    }
}

/// The official skills scenarios (an extension: no revision requires them).
const SKILLS: &[&str] = &[
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

#[test]
fn the_official_suite_passes_against_the_reference_server_in_both_eras_and_all_of_it_against_both_at_once(
) {
    if !suite_dir()
        .join("node_modules/@modelcontextprotocol/conformance")
        .is_dir()
    {
        fixture_missing(
            "official",
            "the official conformance suite is not installed (npm ci --prefix tests/official)",
        );
        return;
    }
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/reference-server/skills");
    // Each era against a server of its own, and all of the suite against a third, side by side:
    // the suite's runs mostly wait on their scenarios' own pauses.
    let by_era = |era: Option<&'static str>, revision: &'static str| {
        move || {
            let mut seen = Seen::new();
            // One page for every list: the suite reads only the first page of tools/list (a
            // disagreement docs/coverage.md lists), where a client must follow nextCursor.
            let mut args = vec!["--page-size", "1000", "--skills", skills];
            args.extend(era);
            let server = HttpServer::start_with(&args);
            let (ok, text) = suite(&server.url, &["--requirements", revision], &mut seen);
            assert!(
                ok,
                "the official suite's {revision} requirements fail against the reference server:\n{text}"
            );
            assert_total(&text, if era.is_some() { 190 } else { 80 });
            for scenario in SKILLS {
                let mut args = vec!["--scenario", *scenario];
                if revision != "2026-07-28" {
                    // An extension scenario runs at 2026-07-28 unless forced to another revision.
                    args.extend(["--spec-version", revision, "--force"]);
                }
                let (ok, text) = suite(&server.url, &args, &mut seen);
                assert!(
                    ok,
                    "the official {scenario} fails against the reference server at {revision}:\n{text}"
                );
            }
            seen
        }
    };
    // Every scenario of both eras at one URL: a server that speaks both over HTTP.
    let both = || {
        let mut seen = Seen::new();
        let server =
            HttpServer::start_with(&["--dual-era", "--page-size", "1000", "--skills", skills]);
        let (ok, text) = suite(&server.url, &["--suite", "all"], &mut seen);
        assert!(
            ok,
            "the official suite's `--suite all` fails against the dual-era reference server:\n{text}"
        );
        assert_total(&text, 270);
        seen
    };
    let seen: Seen = std::thread::scope(|scope| {
        let runs = [
            named(
                scope,
                "2026-07-28",
                by_era(Some("--stateless"), "2026-07-28"),
            ),
            named(scope, "2025-11-25", by_era(None, "2025-11-25")),
            named(scope, "both eras at one URL", both),
        ];
        runs.into_iter()
            .flat_map(|run| {
                run.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    // Every check the suite reported is in tests/official/parity.toml, with its counterparts:
    // a new release's new checks fail here until they are mapped.
    let mapped: Seen = crate::official_map::entries()
        .into_iter()
        .map(|e| (e.scenario, e.id))
        .collect();
    let missing = |from: &Seen, to: &Seen| -> String {
        from.difference(to)
            .map(|(s, i)| format!("{s} / {i}\n"))
            .collect()
    };
    let unmapped = missing(&seen, &mapped);
    assert!(
        unmapped.is_empty(),
        "official checks tests/official/parity.toml does not map:\n{unmapped}"
    );
    // And every check it maps is one the suite still has.
    let stale = missing(&mapped, &seen);
    assert!(
        stale.is_empty(),
        "tests/official/parity.toml maps checks no run of the suite reported:\n{stale}"
    );
    assert!(
        seen.len() >= 260,
        "only {} official checks were seen",
        seen.len()
    );
}

/// Runs one of the suite's runs on a thread of its own, named after it (a failure's message
/// names the thread).
fn named<'scope, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    run: F,
) -> std::thread::ScopedJoinHandle<'scope, Seen>
where
    F: FnOnce() -> Seen + Send + 'scope,
{
    std::thread::Builder::new()
        .name(format!("official suite, {name}"))
        .spawn_scoped(scope, run)
        .expect("a thread starts")
}

/// The suite's `Total: N passed, M failed` line says none failed and at least `least` passed
/// (a run that judged nothing proves nothing).
fn assert_total(text: &str, least: u32) {
    let total = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Total: "))
        .unwrap_or_else(|| panic!("no Total line in the suite's output:\n{text}"));
    let number = |word: &str| -> u32 {
        total
            .split(", ")
            .find_map(|part| part.strip_suffix(word))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("`Total: {total}` has no count of `{word}`"))
    };
    assert_eq!(number(" failed"), 0, "{text}");
    assert!(number(" passed") >= least, "only `{total}`:\n{text}");
}
