//! Grading profiles: the versioned set of built-in checks that count toward the verdict, so that
//! upgrading mcpcheck never silently re-grades a server. Checks added after a profile was frozen
//! are still run and reported, but only as observations until the user moves to a newer profile.

/// One frozen set of graded checks.
#[derive(Debug)]
pub struct Profile {
    /// Its name (`YYYY.MM`, or `YYYY.MM.N` for a later profile of the same month).
    pub name: &'static str,
    /// The profile it extends: every check that one grades, this one grades too.
    pub extends: Option<&'static str>,
    /// The ids of the built-in checks it grades beyond those of `extends`.
    pub checks: &'static [&'static str],
}

/// Every profile, oldest first. Add a new profile (never edit a released one) when checks are
/// added; the test `the_latest_profile_grades_every_check` insists on it.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "2026.11",
        extends: None,
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
    },
    Profile {
        name: "2026.11.1",
        extends: Some("2026.11"),
        checks: &[
            "stateless-discover-result",
            "stateless-discover-server-info",
            "stateless-result-type",
            "stateless-meta-required",
            "stateless-meta-client-info-optional",
            "stateless-unsupported-version",
            "stateless-removed-methods",
            "stateless-unknown-method-404",
            "stateless-header-mismatch",
            "everything-tool-content",
            "everything-tool-error",
            "everything-tool-progress",
            "everything-resource-read",
            "everything-resource-template",
            "everything-prompts",
            "everything-prompt-arguments",
            "everything-completion",
            "tools-undeclared-not-served",
            "resources-undeclared-not-served",
            "prompts-undeclared-not-served",
            "wire-result-schema",
            "everything-prompt-missing-argument",
            "http-session-id-visible-ascii",
            "http-sse-priming",
            "tools-schemas-valid",
            "logging-level-filtered",
            "stateless-http-no-session",
            "stateless-http-post-only",
        ],
    },
    Profile {
        name: "2026.11.2",
        extends: Some("2026.11.1"),
        checks: &[
            "wire-notification-schema",
            "wire-uri-rfc3986",
            "wire-base64",
            "tools-name-unique",
            "progress-only-while-active",
            "server-requests-allowed",
            "server-request-id",
            "stateless-error-codes",
            "cancellation-unknown-id-ignored",
            "cancellation-in-flight-no-response",
            "stateless-cancel-no-response",
            "resources-subscribe-served",
            "resources-read-traversal-refused",
            "lifecycle-initialize-after-early-request",
            "stateless-name-mismatch",
            "stateless-name-base64-sentinel",
            "tools-call-invalid-arguments",
            "stateless-log-level-gated",
            "stateless-log-level-invalid",
            "stateless-missing-capability",
            "stateless-tools-order-stable",
            "stateless-x-mcp-header-valid",
            "http-sse-event-id-unique",
            "http-concurrent-streams",
            "stateless-listen-acknowledged",
            "stateless-listen-ack-first",
            "stateless-listen-filter",
            "stateless-input-required-round-trip",
            "stateless-input-required-tampered-state",
            "stateless-input-required-shape",
            "jsonrpc-batch-served",
            "completions-undeclared-not-served",
            "logging-undeclared-not-served",
            "stateless-capability-no-carryover",
            "stateless-param-header-accepted",
            "stateless-param-header-validated",
            "http-cancellation-no-response",
            "http-resume-same-stream",
            "tools-structured-content-mirrored",
            "stateless-server-info-everywhere",
            "stateless-sse-unbuffered",
        ],
    },
    Profile {
        name: "2026.11.3",
        extends: Some("2026.11.2"),
        checks: &[
            "wire-utf8",
            "logging-capability-declared",
            "server-cancel-valid",
            "wire-meta-key-format",
            "tools-embedded-resource-declared",
            "stateless-cache-scope-pages",
            "lifecycle-quiet-before-initialized",
            "lifecycle-ping-before-initialized",
            "http-protocol-version-absent",
            "stateless-protocol-header-missing",
            "stateless-legacy-initialize",
            "stateless-post-last-event-id",
            "logging-set-level-accepted",
            "http-sse-ends-after-response",
            "http-disconnect-not-cancel",
            "http-sse-retry-before-close",
            "everything-tool-reconnection",
            "everything-tool-sampling",
            "everything-tool-elicitation",
            "everything-elicitation-forms",
            "server-elicitation-schema",
            "stateless-input-required-missing",
            "stateless-input-required-extra-ignored",
            "stateless-input-required-validated",
            "stateless-param-header-optional",
            "stateless-param-header-numeric",
        ],
    },
    Profile {
        name: "2026.11.4",
        extends: Some("2026.11.3"),
        checks: &[
            "stateless-listen-tool-change",
            "stateless-listen-prompt-change",
            "stateless-listen-graceful-close",
            "tasks-unknown-id",
            "tasks-create-result",
            "tasks-get-shape",
            "tasks-result-related",
            "tasks-result-blocks",
            "tasks-cancel-working",
            "tasks-cancel-terminal",
            "tasks-list-contains",
            "tools-task-required",
            "tools-task-forbidden",
            "tasks-list-invalid-cursor",
            "tasks-status-transitions",
        ],
    },
    Profile {
        name: "2026.11.5",
        extends: Some("2026.11.4"),
        checks: &[
            "stateless-input-required-first-round",
            "stateless-input-required-next-round",
            "stateless-input-required-last-round",
            "stateless-input-required-prompt-asks",
            "stateless-input-required-prompt-complete",
            "stateless-input-required-resource-asks",
            "stateless-input-required-resource-complete",
        ],
    },
    Profile {
        name: "2026.11.6",
        extends: Some("2026.11.5"),
        checks: &["legacy-sse-endpoint-event", "legacy-sse-message-events"],
    },
    Profile {
        name: "2026.11.7",
        extends: Some("2026.11.6"),
        checks: &[
            "tasks-progress-token",
            "tasks-progress-stops",
            "legacy-sse-origin-rejected",
        ],
    },
    Profile {
        name: "2026.11.8",
        extends: Some("2026.11.7"),
        checks: &["http-resume-server-request"],
    },
    Profile {
        name: "2026.11.9",
        extends: Some("2026.11.8"),
        checks: &[
            "tasks-ext-create-result",
            "tasks-ext-get",
            "tasks-ext-result-inlined",
            "tasks-ext-refused-without-extension",
            "tasks-ext-no-handle-without-extension",
            "tasks-ext-tool-error-completed",
            "tasks-ext-failed-error",
            "tasks-ext-update-ack",
            "tasks-ext-input-requests",
            "tasks-ext-update-resumes",
            "tasks-ext-cancel-ack",
            "tasks-ext-get-unknown",
            "tasks-ext-update-cancel-unknown",
            "tasks-ext-required-capability",
            "tasks-ext-listen-without-extension",
        ],
    },
    Profile {
        name: "2026.11.10",
        extends: Some("2026.11.9"),
        checks: &["legacy-sse-endpoint-same-origin", "jsonrpc-response-once"],
    },
];

/// Whether a check is one of mcpcheck's own: a built-in wire check, or a check of the scenario
/// library compiled into this binary (its source names the library file it came from). A user's
/// check loaded from a folder that happens to be named `scenarios` is not.
fn is_builtin(id: &str, source: &str) -> bool {
    static LIBRARY: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    if source == "built-in" {
        return true;
    }
    let library = LIBRARY.get_or_init(|| {
        crate::scenario::load::library()
            .unwrap_or_default()
            .iter()
            .flat_map(|s| {
                s.checks
                    .iter()
                    .map(|c| format!("{}@{}", c.def.id, c.def.source))
            })
            .collect()
    });
    library.contains(&format!("{id}@{source}"))
}

/// The newest profile, used when none is named.
pub fn latest() -> &'static Profile {
    PROFILES.last().expect("at least one profile")
}

/// Looks a profile up by name.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    /// Whether a check counts toward the verdict. Checks of the user's own scenarios always do
    /// (wherever their folder is, even one named `scenarios`); built-in ones only if this
    /// profile lists them.
    pub fn grades(&self, id: &str, source: &str) -> bool {
        !is_builtin(id, source) || self.graded().any(|c| c == id)
    }

    /// Every check this profile grades, its ancestors' included.
    pub fn graded(&self) -> impl Iterator<Item = &'static str> + '_ {
        let parent = self
            .extends
            .map(|name| find(name).expect("a profile extends a known one"));
        let inherited: Box<dyn Iterator<Item = &'static str>> = match parent {
            Some(parent) => Box::new(parent.graded()),
            None => Box::new(std::iter::empty()),
        };
        inherited.chain(self.checks.iter().copied())
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
        let graded: Vec<&str> = latest().graded().collect();
        for id in &ids {
            assert!(
                graded.contains(&id.as_str()),
                "`{id}` is in no profile: add a new profile to src/profile.rs that grades it"
            );
        }
        assert_eq!(
            graded.len(),
            ids.len(),
            "the latest profile names a check that no longer exists"
        );
    }

    #[test]
    fn a_profile_grades_what_it_extends_and_no_later_check() {
        let first = find("2026.11").unwrap();
        let second = find("2026.11.1").unwrap();
        assert!(first.grades(
            "jsonrpc-parse-error",
            "scenarios/jsonrpc/parse-error.toml:1"
        ));
        assert!(second.grades(
            "jsonrpc-parse-error",
            "scenarios/jsonrpc/parse-error.toml:1"
        ));
        assert!(second.grades("stateless-meta-required", "scenarios/stateless/meta.toml:1"));
    }

    #[test]
    fn user_checks_are_always_graded() {
        assert!(latest().grades("my-own-check", "my/scenarios/x.toml:3"));
        // A user's folder named `scenarios` does not make their checks built-in.
        assert!(latest().grades("my-own-check", "scenarios/x.toml:3"));
        assert!(find("2026.11")
            .unwrap()
            .grades("my-own-check", "scenarios/x.toml:3"));
        // A built-in check newer than a profile is not graded by it.
        let library = crate::scenario::load::library().unwrap();
        let meta = library
            .iter()
            .flat_map(|s| &s.checks)
            .find(|c| c.def.id == "stateless-meta-required")
            .unwrap();
        assert!(!find("2026.11")
            .unwrap()
            .grades(&meta.def.id, &meta.def.source));
    }
}
