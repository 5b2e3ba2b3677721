//! Whether a scenario applies to this server and run: transport, era and version window,
//! declared capabilities, fixtures, and what the user allowed; if not, the reason.

use super::{declares, CallTools, Context};
use crate::record::Reason;
use crate::scenario::Scenario;

/// Why a scenario does not apply, if it does not.
///
/// Long by design: one test per `[requires]` key, in the file's order, each with the reason a
/// user reads when the scenario does not apply.
pub(super) fn not_applicable(context: &Context, scenario: &Scenario) -> Option<Reason> {
    let requires = &scenario.requires;
    let transport = context.target.kind();
    let version = context.info.version.as_deref().unwrap_or("");
    if !crate::record::allows(&requires.transports, transport) {
        return Some(Reason::Transport {
            transports: requires.transports.clone(),
        });
    }
    if let Some(set) = &requires.fixtures {
        if context.fixtures.as_ref() != Some(set) {
            return Some(Reason::FixtureSet { set: set.clone() });
        }
    }
    if let Some(era) = requires.era.filter(|e| Some(*e) != context.info.era) {
        return Some(Reason::Era {
            era: era.to_string(),
            server: context.info.era.map(|e| e.to_string()).unwrap_or_default(),
        });
    }
    if !requires.versions.contains(version) {
        return Some(Reason::Version {
            versions: requires.versions.to_string(),
            negotiated: version.to_string(),
            main: None,
        });
    }
    if let Some(missing) = requires
        .capabilities
        .iter()
        .find(|c| !declares(&context.info, c))
    {
        return Some(match missing.strip_prefix("extensions.") {
            Some(extension) => {
                let (extension, setting) = super::connect::extension_setting(extension);
                Reason::Extension {
                    extension: extension.to_string(),
                    setting: setting.map(str::to_string),
                }
            }
            None => Reason::Capability {
                capability: missing.to_string(),
            },
        });
    }
    if !requires.undeclared.is_empty() && context.info.capabilities.is_none() {
        return Some(Reason::CapabilitiesUnknown);
    }
    if let Some(declared) = requires
        .undeclared
        .iter()
        .find(|c| declares(&context.info, c))
    {
        return Some(Reason::Declared {
            capability: declared.to_string(),
        });
    }
    if requires.call_tools {
        match context.call_tools {
            None => return Some(Reason::CallTools),
            Some(which) if context.probe.is_none() => {
                return Some(Reason::NoToolToProbe {
                    read_only: which == CallTools::ReadOnly,
                })
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
        return Some(Reason::Fixture {
            fixture: "tool".into(),
            name: missing.clone(),
            list_failed: context
                .tools_failure
                .as_ref()
                .map(|why| ("tools/list".to_string(), why.clone())),
        });
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
        let list_failed = match listed {
            Some((_, Some(why))) => Some((method.to_string(), why.clone())),
            _ => None,
        };
        return Some(Reason::Fixture {
            fixture: kind.into(),
            name: missing.clone(),
            list_failed,
        });
    }
    None
}
