//! Grading profiles: the versioned set of built-in checks that count toward the verdict, so that
//! upgrading mcpcheck never silently re-grades a server. Checks added after a profile was frozen
//! are still run and reported, but only as observations until the user moves to a newer profile.

/// One frozen set of graded checks.
#[derive(Debug)]
pub struct Profile {
    /// Its name (`YYYY.MM`).
    pub name: &'static str,
    /// The ids of the built-in checks it grades.
    pub checks: &'static [&'static str],
}

/// Every profile, oldest first. Add a new profile (never edit a released one) when checks are
/// added; the test `the_latest_profile_grades_every_check` insists on it.
pub const PROFILES: &[Profile] = &[Profile {
    name: "2026.11",
    checks: &[
        "lifecycle-initialize-result",
        "lifecycle-version-echo",
        "lifecycle-initialized-no-response",
        "ping-empty-result",
        "lifecycle-version-unsupported",
        "resources-read-missing-error",
        "resources-read-missing-data-uri",
        "tools-call-unknown-tool",
        "tools-call-empty-result",
        "jsonrpc-parse-error",
        "jsonrpc-parse-error-recovery",
        "jsonrpc-invalid-request-empty-object",
        "jsonrpc-invalid-request-version",
        "jsonrpc-invalid-request-id-type",
        "jsonrpc-method-not-found",
        "jsonrpc-notification-no-response",
        "jsonrpc-id-types",
        "stdio-framing",
        "stdio-exit-on-stdin-eof",
        "jsonrpc-version-field",
        "jsonrpc-response-id",
        "jsonrpc-response-result-xor-error",
        "jsonrpc-error-shape",
        "http-notification-accepted",
        "http-response-content-type",
        "jsonrpc-batch-rejected",
        "pagination-invalid-cursor",
        "logging-set-level-invalid",
        "http-origin-rejected",
        "http-protocol-version-invalid",
        "tools-list-shape",
        "resources-list-shape",
        "prompts-get-unknown",
        "prompts-list-shape",
        "resources-templates-list-shape",
        "resources-read-contents-shape",
        "completion-unknown-prompt",
        "tools-structured-content-valid",
        "tools-call-malformed",
        "http-get-sse-or-405",
        "jsonrpc-invalid-request-null-id",
        "tools-name-format",
        "resources-uri-scheme",
        "http-session-delete",
        "http-session-terminated-404",
        "http-session-required-400",
        "progress-notifications",
        "pagination-cursor-advances",
    ],
}];

/// The newest profile, used when none is named.
pub fn latest() -> &'static Profile {
    PROFILES.last().expect("at least one profile")
}

/// Looks a profile up by name.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    /// Whether a check counts toward the verdict. Checks of the user's own scenarios always do;
    /// built-in ones only if this profile lists them.
    pub fn grades(&self, id: &str, source: &str) -> bool {
        let builtin = source == "built-in" || source.starts_with("scenarios/");
        !builtin || self.checks.contains(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_profile_grades_every_check() {
        let library = crate::scenario::load::library().unwrap();
        let ids: Vec<String> = library
            .iter()
            .flat_map(|s| s.checks.iter().map(|c| c.def.id.clone()))
            .chain(crate::check::wire::ids().into_iter().map(String::from))
            .collect();
        for id in &ids {
            assert!(
                latest().checks.contains(&id.as_str()),
                "`{id}` is in no profile: add a new profile to src/profile.rs that grades it"
            );
        }
        assert_eq!(
            latest().checks.len(),
            ids.len(),
            "the latest profile names a check that no longer exists"
        );
    }

    #[test]
    fn user_checks_are_always_graded() {
        assert!(latest().grades("my-own-check", "my/scenarios/x.toml:3"));
        assert!(!latest().grades("some-future-check", "scenarios/x.toml:3"));
    }
}
