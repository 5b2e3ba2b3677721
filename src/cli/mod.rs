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

    use std::path::PathBuf;

    use clap::{Args, Parser};

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
            err.contains("mcpcheck.toml:2: unknown key `timout`"),
            "{err}"
        );
        std::fs::write(&path, "stdio = \"x\"\n\nstrict = 3\n").unwrap();
        let err = args(&["--config", path.to_str().unwrap()])
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mcpcheck.toml:3: `strict`: invalid type: integer `3`"),
            "a value serde reads from a copy is still found at its line: {err}"
        );
    }

    #[test]
    fn config_errors_point_at_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcpcheck.toml");
        let error = |text: &str| {
            std::fs::write(&path, text).unwrap();
            args(&["--config", path.to_str().unwrap()])
                .resolve()
                .unwrap_err()
                .to_string()
        };
        for (text, said) in [
            (
                "stdio = \"x\"\n\n[grading]\nstrict = true\n",
                "mcpcheck.toml:3: unknown key `grading`",
            ),
            (
                "stdio = \"x\"\n[output]\n\njson = 3\n",
                "mcpcheck.toml:4: `output`: invalid type",
            ),
            (
                "stdio = \"x\"\n'stdoi' = 1\n",
                "mcpcheck.toml:2: unknown key `stdoi`",
            ),
            (
                "timeout = 2\n\nstrict = 3\n",
                "mcpcheck.toml:3: `strict`: invalid type",
            ),
        ] {
            let error = error(text);
            assert!(error.contains(said), "{text:?}: {error}");
        }
        // Both servers in the file, and one named on the command line: the file's are replaced.
        std::fs::write(&path, "stdio = \"x\"\nurl = \"http://a/\"\n").unwrap();
        assert!(args(&["--config", path.to_str().unwrap(), "--stdio", "y"])
            .resolve()
            .is_ok());
        // A key of an earlier server's table does not take the line of a later server's.
        let servers = dir.path().join("servers.toml");
        std::fs::write(
            &servers,
            "[[server]]\nname = \"a\"\nstdio = \"x\"\n[server.env]\ntimeout = \"1\"\n\n[[server]]\nname = \"b\"\nstdio = \"y\"\ntimeout = 3\n",
        )
        .unwrap();
        let argv = ["mcpcheck", "compare", "--config", servers.to_str().unwrap()];
        let Command::Compare(compare) = Cli::try_parse_from(argv).unwrap().command else {
            unreachable!()
        };
        let error = compare.resolve().err().unwrap().to_string();
        assert!(
            error.contains("servers.toml:10: server `b`: `timeout`"),
            "{error}"
        );
    }

    #[test]
    fn the_config_file_speaks_as_the_flags_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcpcheck.toml");
        std::fs::write(
            &path,
            "url = \"http://127.0.0.1:1/mcp\"\nheaders = { X-One = \"1\" }\nspec-version = \"2025-06-18\"\nprofile-version = \"2026.11\"\nbaseline = \"known.toml\"\n[output]\nshow = \"all\"\njson = \"-\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("known.toml"), "").unwrap();
        let resolved = args(&["--config", path.to_str().unwrap()])
            .resolve()
            .unwrap();
        let Target::Http(spec) = &resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.headers, [("X-One".to_string(), "1".to_string())]);
        assert_eq!(resolved.config.versions.len(), 1);
        assert_eq!(resolved.profile.name, "2026.11");
        assert_eq!(resolved.outputs.show, Some(ShowArg::All));
        assert_eq!(resolved.outputs.json.unwrap(), PathBuf::from("-"));
        assert!(resolved
            .baseline
            .unwrap()
            .1
            .starts_with(dir.path().to_str().unwrap()));
        // A server on the command line replaces the file's, and how it is reached.
        let flag = [
            "--config",
            path.to_str().unwrap(),
            "--url",
            "http://127.0.0.1:2/m",
        ];
        let resolved = args(&flag).resolve().unwrap();
        let Target::Http(spec) = &resolved.config.target else {
            panic!()
        };
        assert_eq!(spec.url.as_str(), "http://127.0.0.1:2/m");
    }

    #[test]
    fn every_flag_of_run_is_a_key_of_the_config_file() {
        // Each key with a value of no setting's type: a key the file knows fails on its value
        // (or reads an empty table); one it does not know is left over, or refused by name.
        let keys = |args: clap::Command| -> Vec<String> {
            args.get_arguments()
                .filter_map(|a| a.get_long())
                .filter(|l| !["config", "shard", "quiet", "progress", "verbose"].contains(l))
                .map(|l| match l {
                    "header" | "check" => format!("{l}s"),
                    l => l.to_string(),
                })
                .collect()
        };
        let outputs = keys(OutputArgs::augment_args(clap::Command::new("o")));
        let all = keys(RunArgs::augment_args(clap::Command::new("run")));
        assert!(all.len() > 30 && outputs.len() == 9, "{all:?}");
        for key in all {
            let text = match outputs.contains(&key) {
                true => format!("[output]\n{key} = {{}}\n"),
                false => format!("{key} = {{}}\n"),
            };
            match toml::from_str::<RunArgs>(&text) {
                Ok(read) => assert!(read.unknown.is_empty(), "`{key}` is not a key"),
                Err(e) => assert!(!e.message().contains("unknown"), "`{key}`: {e}"),
            }
        }
        let unknown = toml::from_str::<RunArgs>("stdoi = {}\n").unwrap();
        assert!(unknown.unknown.contains_key("stdoi"), "the test can tell");
    }

    #[test]
    fn a_servers_file_sets_per_server_keys_and_compare_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.toml");
        std::fs::write(
            &path,
            "[[server]]\nname = \"a\"\nstdio = \"./a\"\nstartup-timeout = 3\ncwd = \"sub\"\n\n[[server]]\nname = \"b\"\nstdio = \"./b\"\n",
        )
        .unwrap();
        let compare = |extra: &[&str]| {
            let mut argv = vec!["mcpcheck", "compare", "--no-builtin", "--config"];
            argv.push(path.to_str().unwrap());
            argv.extend_from_slice(extra);
            match Cli::try_parse_from(argv).unwrap().command {
                Command::Compare(compare) => compare.resolve(),
                _ => unreachable!(),
            }
        };
        let entries = compare(&["--timeout", "2", "--startup-timeout", "9"]).unwrap();
        let limits = |i: usize| &entries[i].entry.config.limits;
        assert_eq!(limits(0).startup_timeout, Duration::from_secs(3));
        assert_eq!(limits(1).startup_timeout, Duration::from_secs(9));
        assert_eq!(limits(0).request_timeout, Duration::from_secs(2));
        let Target::Stdio(spec) = &entries[0].entry.config.target else {
            panic!()
        };
        assert_eq!(spec.cwd.as_deref(), Some(dir.path().join("sub").as_path()));
        std::fs::write(
            &path,
            "[[server]]\nname = \"a\"\nstdio = \"./a\"\ntimeout = 3\n",
        )
        .unwrap();
        let err = compare(&[]).err().unwrap().to_string();
        assert!(
            err.contains("servers.toml:4: server `a`: `timeout` is not a key of a [[server]]"),
            "{err}"
        );
    }
}
