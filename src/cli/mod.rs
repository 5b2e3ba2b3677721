//! Command-line arguments (clap), the `mcpcheck.toml` config file, and their resolution into a
//! [`RunConfig`] plus what the binary does around the run (outputs, grading). Only the resolved
//! config reaches the engine; nothing below this module knows about flags.

mod args;
pub mod commands;
mod config;
pub mod init;
mod resolve;
pub mod schemas;

pub use args::*;
pub use config::*;
pub use resolve::*;

/// A usage problem: a bad flag value, a bad config or baseline file, or bad scenario files.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A flag's value is wrong.
    #[error("{0}")]
    Flag(String),
    /// Scenario files are wrong.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n\n"))]
    Scenarios(Vec<crate::scenario::LoadError>),
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::Parser;

    use super::*;
    use crate::transport::Target;

    fn args(extra: &[&str]) -> RunArgs {
        let mut argv = vec!["mcpcheck", "run", "--no-builtin"];
        argv.extend_from_slice(extra);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Run(run) => *run,
            _ => unreachable!(),
        }
    }

    #[test]
    fn stdio_commands_split_like_a_shell() {
        let resolved = args(&["--stdio", "python -m 'my server' --flag"])
            .resolve()
            .unwrap();
        let Target::Stdio(spec) = resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.argv, ["python", "-m", "my server", "--flag"]);
    }

    #[test]
    fn header_values_from_the_environment_are_secrets() {
        std::env::set_var("MCPCHECK_TEST_TOKEN", "tok-123456");
        let resolved = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "Authorization: Bearer $MCPCHECK_TEST_TOKEN",
        ])
        .resolve()
        .unwrap();
        let Target::Http(spec) = resolved.config.target else {
            panic!()
        };
        assert_eq!(
            spec.headers,
            [("Authorization".to_string(), "Bearer tok-123456".to_string())]
        );
        assert!(resolved.secrets.contains(&"tok-123456".to_string()));
        let err = args(&[
            "--url",
            "http://127.0.0.1:1/mcp",
            "-H",
            "X: $MCPCHECK_SURELY_UNSET",
        ])
        .resolve()
        .unwrap_err();
        assert!(err.to_string().contains("MCPCHECK_SURELY_UNSET"));
    }

    #[test]
    fn bad_values_are_usage_errors() {
        assert!(args(&["--url", "ftp://x/mcp"]).resolve().is_err());
        assert!(args(&["--stdio", "x", "--spec-version", "2025-13-01"])
            .resolve()
            .is_err());
        assert!(args(&["--stdio", "x", "--timeout", "0"]).resolve().is_err());
        assert!(args(&["--stdio", "x", "--grading-profile", "1999.01"])
            .resolve()
            .is_err());
        assert!(
            Cli::try_parse_from(["mcpcheck", "run", "--stdio", "x", "--url", "http://a/"]).is_err()
        );
    }

    #[test]
    fn a_config_file_fills_in_and_flags_override() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcpcheck.toml");
        std::fs::write(
            &path,
            "stdio = \"./server --flag\"\ntimeout = 2.5\nstrict = true\nno-builtin = true\nchecks = [\"jsonrpc-*\"]\n[output]\njunit = \"out/junit.xml\"\n",
        )
        .unwrap();
        let resolved = args(&["--config", path.to_str().unwrap(), "--timeout", "1"])
            .resolve()
            .unwrap();
        let Target::Stdio(spec) = &resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.argv, ["./server", "--flag"]);
        assert_eq!(
            resolved.config.limits.request_timeout,
            Duration::from_secs(1)
        );
        assert!(resolved.strict);
        assert_eq!(resolved.config.only, ["jsonrpc-*"]);
        assert_eq!(
            resolved.outputs.junit.unwrap(),
            dir.path().join("out/junit.xml")
        );
        std::fs::write(&path, "stdio = \"x\"\ntimout = 1\n").unwrap();
        let err = args(&["--config", path.to_str().unwrap()])
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mcpcheck.toml:2: unknown field `timout`"),
            "{err}"
        );
    }
}
