//! `mcpcheck token`: a token the authorization checks make from the user's, for the replay
//! scripts, since every report redacts it.

use std::process::ExitCode;

use super::{emit, usage};
use crate::cli;

/// `mcpcheck token`: a token the authorization checks make from the user's, from the
/// environment; exit 2 when the variable is unset or the token cannot be made (`tampered` from a
/// token that is no JWT).
pub(super) fn token(args: &cli::TokenArgs) -> ExitCode {
    let Ok(value) = std::env::var(&args.from_env) else {
        return usage(format!(
            "${} is not set: set it to your Authorization header's value (Bearer TOKEN)",
            args.from_env
        ));
    };
    let user = crate::record::token::bearer_of(&value).unwrap_or(value.trim());
    if user.is_empty() {
        return usage(format!(
            "${} is empty: set it to your Authorization header's value (Bearer TOKEN)",
            args.from_env
        ));
    }
    match crate::record::token::MadeUp::from(user).named(&args.name) {
        Some(made) => {
            emit(&format!("Bearer {made}\n"));
            ExitCode::SUCCESS
        }
        None => usage(format!(
            "no {} token can be made from ${}: it is not a JWT",
            args.name, args.from_env
        )),
    }
}
