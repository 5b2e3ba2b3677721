//! The quirks that stay branches in the handlers, tested to be exactly those listed here: a quirk
//! that only changes what the conformant server produces is data (its entry in `quirks.rs` names
//! where it acts), so a new branch is added to this list on purpose, saying what control flow,
//! timing or state it changes that no place of the quirks can.

use std::collections::BTreeSet;
use std::path::Path;

/// Every quirk a handler names with `quirks.has(Quirk::…)`, and why it is a branch.
const BRANCHES: &[(&str, &str)] = &[
    (
        "ExitOnParseError",
        "stops serving: the process exits, or the session ends",
    ),
    (
        "ProgressAfterResponse",
        "sends a notification after the response, in time",
    ),
    (
        "RequestsBeforeInitialized",
        "asks the client before it has said it is ready",
    ),
    (
        "ExtTaskCapabilityRemembered",
        "keeps what one request declared for later ones",
    ),
    (
        "StatelessCapabilityCarryover",
        "keeps what one request declared for later ones",
    ),
    (
        "StatelessRootsCarryover",
        "keeps what one request declared for later ones",
    ),
    (
        "StatelessResourcesPerConnection",
        "keeps a connection's first method",
    ),
    (
        "StatelessMrtrResourceAsksAgain",
        "a round's outcome depends on the state sent back",
    ),
    (
        "StatelessMrtrResourceWithoutState",
        "a round's outcome depends on the state sent back",
    ),
    (
        "StatelessMrtrPromptNeverAsks",
        "a fixture's round skips asking",
    ),
    (
        "ElicitationFixtureSilent",
        "a fixture does not ask the client, and waits on no answer",
    ),
    (
        "SamplingFixtureSilent",
        "a fixture does not ask the client, and waits on no answer",
    ),
    (
        "TaskProgressAfterTerminal",
        "a task reports again once it is over, with a later request",
    ),
    (
        "TaskResultEarly",
        "tasks/result answers without waiting for the task",
    ),
    (
        "LegacySseAnswerInPost",
        "the HTTP+SSE transport answers on another channel",
    ),
    (
        "StatelessSessionId",
        "a stateless-era response carries a session id made for it",
    ),
    (
        "HttpRefusalWrongCode",
        "refuses at the HTTP level, before the session is looked up",
    ),
    ("DisconnectCancels", "a dropped stream stops the work"),
    ("ReconnectionLosesResponse", "what resumption keeps"),
    (
        "ResumeForgetsRequests",
        "what resumption keeps and waits on",
    ),
    ("ResumeReplaysOtherStreams", "what resumption replays"),
    ("ResumeRequestIdReused", "what a resumed stream sends first"),
    ("SseStreamLingers", "a stream closes late"),
];

/// The quirks named as `quirks.has(Quirk::NAME)` in the source files under `dir` (whitespace
/// between the parts allowed), outside `quirks.rs`, where they are declared, and this file.
fn branches_in(dir: &Path, into: &mut BTreeSet<String>) {
    let mut sources = Vec::new();
    crate::acyclic::files(dir, &mut sources);
    for path in sources {
        if path.ends_with("quirks.rs") || path.ends_with("branches.rs") {
            continue;
        }
        let text: String = std::fs::read_to_string(&path)
            .expect("a source file")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        for (at, _) in text.match_indices("quirks.has(Quirk::") {
            let name: String = text[at + "quirks.has(Quirk::".len()..]
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            into.insert(name);
        }
    }
}

#[test]
fn only_the_listed_quirks_are_branches() {
    let mut found = BTreeSet::new();
    branches_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    let listed: BTreeSet<String> = BRANCHES.iter().map(|(q, _)| q.to_string()).collect();
    let unlisted: Vec<&String> = found.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "{unlisted:?} are branches in the handlers: make each data (a place in quirks.rs), or list it in BRANCHES with what it changes that no place can"
    );
    let gone: Vec<&String> = listed.difference(&found).collect();
    assert!(
        gone.is_empty(),
        "{gone:?} are listed in BRANCHES but no longer branches"
    );
}
