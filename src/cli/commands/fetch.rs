//! `mcpcheck schemas fetch`: the official schema files, downloaded for `--official-schemas`.

use std::process::ExitCode;

use super::{emit, usage};
use crate::{cli, exit};

/// `mcpcheck schemas fetch`: every file is tried; the worst outcome decides the exit code.
pub(super) fn fetch_schemas(args: &cli::FetchArgs) -> ExitCode {
    use crate::cli::schemas::{self as official, FetchError, Fetched};
    if let Err(e) = crate::record::url::parse_url(&args.from) {
        return usage(format!("--from: {e}"));
    }
    let dir = args.dir.clone().unwrap_or_else(official::default_dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("mcpcheck: cannot create {}: {e}", dir.display());
        return ExitCode::from(exit::USAGE);
    }
    let versions: Vec<&str> = if args.versions.is_empty() {
        crate::record::version::revisions()
            .iter()
            .map(|r| r.name.as_str())
            .collect()
    } else {
        args.versions.iter().map(String::as_str).collect()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let timeout = std::time::Duration::from_secs(args.timeout.max(1));
    let mut code = exit::SUCCESS;
    for version in versions {
        let outcome = runtime.block_on(official::fetch_one(&dir, &args.from, version, timeout));
        match outcome {
            Ok(Fetched::Downloaded) => eprintln!("{version}.json: downloaded, sha256 checked"),
            Ok(Fetched::Present) => eprintln!("{version}.json: already there, sha256 checked"),
            Err(e) => {
                eprintln!("mcpcheck: {version}.json: {e}");
                code = code.max(match e {
                    FetchError::Checksum(_) => exit::FAILURES,
                    FetchError::Io(_) => exit::USAGE,
                    FetchError::Download(_) => exit::UNTESTABLE,
                });
            }
        }
    }
    if code == exit::SUCCESS {
        emit(&format!("{}\n", dir.display()));
        eprintln!(
            "use them with: mcpcheck run --official-schemas {} …",
            dir.display()
        );
    }
    ExitCode::from(code)
}
