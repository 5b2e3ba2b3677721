//! The exit codes of `mcpcheck`, as documented in the README.

/// No check failed and none could not be carried out.
pub const SUCCESS: u8 = 0;
/// At least one check failed (a MUST was broken).
pub const FAILURES: u8 = 1;
/// Bad usage: an unknown flag, a bad value, or an invalid scenario file.
pub const USAGE: u8 = 2;
/// The server could not be tested at all: it did not start, was unreachable, or no handshake.
pub const UNTESTABLE: u8 = 3;
/// No check failed, but some could not be carried out (timeouts, the server went away).
pub const HARNESS_ERRORS: u8 = 4;
/// Interrupted by Ctrl-C.
pub const INTERRUPTED: u8 = 130;
