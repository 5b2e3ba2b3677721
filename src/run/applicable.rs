//! Whether a scenario applies to this server and run: transport, era and version window,
//! declared capabilities, fixtures, and what the user allowed; if not, the reason in words.

use super::*;

/// What follows "applies to the … era only" when a scenario is for the other era; [`era_skip`]
/// recognizes it.
const ERA_MISMATCH: &str = "; the server speaks the ";

/// Whether a skip's reason is only that the check belongs to the other era (the era passes
/// prefer another reason for a check that applied in neither).
pub(super) fn era_skip(message: &str) -> bool {
    message.starts_with("applies to the ") && message.contains(&format!(" era only{ERA_MISMATCH}"))
}

/// Why a scenario does not apply, if it does not.
///
/// Long by design: one test per `[requires]` key, in the file's order, each with the reason a
/// user reads when the scenario does not apply.
pub(super) fn not_applicable(context: &Context, scenario: &Scenario) -> Option<String> {
    let requires = &scenario.requires;
    let transport = context.target.kind();
    let version = context.info.version.as_deref().unwrap_or("");
    if !transport::allows(&requires.transports, transport) {
        return Some(format!(
            "applies to {} only",
            transport::describe(&requires.transports)
        ));
    }
    if let Some(set) = &requires.fixtures {
        if context.fixtures.as_ref() != Some(set) {
            return Some(format!(
                "a fixture check of the `{set}` fixtures (run with --fixtures {set} against a server that has them)"
            ));
        }
    }
    if let Some(era) = requires.era.filter(|e| Some(*e) != context.info.era) {
        return Some(format!(
            "applies to the {era} era only{ERA_MISMATCH}{} era",
            context.info.era.map(|e| e.to_string()).unwrap_or_default()
        ));
    }
    if !requires.versions.contains(version) {
        return Some(format!(
            "applies to protocol versions {}; the server negotiated {version}",
            requires.versions
        ));
    }
    if let Some(missing) = requires
        .capabilities
        .iter()
        .find(|c| !declares(&context.info, c))
    {
        return Some(match missing.strip_prefix("extensions.") {
            Some(extension) => format!("the server does not declare the `{extension}` extension"),
            None => format!("the server does not declare the `{missing}` capability"),
        });
    }
    if !requires.undeclared.is_empty() && context.info.capabilities.is_none() {
        return Some(
            "the server's capabilities are unknown (its server/discover answer gave none), so what it leaves undeclared cannot be told"
                .into(),
        );
    }
    if let Some(declared) = requires
        .undeclared
        .iter()
        .find(|c| declares(&context.info, c))
    {
        return Some(format!(
            "the server declares the `{declared}` capability (this checks an undeclared one)"
        ));
    }
    if requires.call_tools {
        match context.call_tools {
            None => {
                return Some(
                    "calls a tool the server lists, which mcpcheck only does with --call-tools read-only|all"
                        .into(),
                )
            }
            Some(which) if context.probe.is_none() => {
                return Some(format!(
                    "no listed tool{} has a required or typed argument to get wrong",
                    if which == CallTools::ReadOnly {
                        " annotated readOnlyHint: true"
                    } else {
                        ""
                    }
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(missing) = requires.tools.iter().find(|t| {
        !context
            .tools
            .as_ref()
            .is_some_and(|tools| tools.contains_key(*t))
    }) {
        if let Some(why) = &context.tools_failure {
            return Some(format!(
                "the run's tools/list got no list ({why}), so the fixture `{missing}` cannot be found"
            ));
        }
        return Some(format!(
            "the server lists no tool named `{missing}`, the fixture this scenario calls"
        ));
    }
    let fixtures = [
        (
            "prompt",
            "prompts/list",
            &requires.prompts,
            &context.prompts,
        ),
        (
            "resource",
            "resources/list",
            &requires.resources,
            &context.resources,
        ),
    ];
    for (kind, method, wanted, listed) in fixtures {
        let Some(missing) = wanted.iter().find(|w| {
            !listed
                .as_ref()
                .is_some_and(|(items, _)| items.contains_key(*w))
        }) else {
            continue;
        };
        if let Some((_, Some(why))) = listed {
            return Some(format!(
                "the run's {method} got no list ({why}), so the fixture `{missing}` cannot be found"
            ));
        }
        return Some(format!(
            "the server lists no {kind} `{missing}`, the fixture this scenario uses"
        ));
    }
    None
}
