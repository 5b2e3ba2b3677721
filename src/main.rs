//! The `mcpcheck` binary: prepare the process, parse the command line, hand it to the library
//! ([`mcpcheck::cli::commands::execute`]), and leave nothing running.

use std::process::ExitCode;

use clap::Parser;
use mcpcheck::cli::{commands, Cli};
use mcpcheck::transport::stdio;

fn main() -> ExitCode {
    bound_the_allocator();
    stdio::become_subreaper();
    let code = commands::execute(Cli::parse());
    // A server group still registered (none, when every server was stopped) is stopped, then
    // whatever escaped a server's process group, and the keeper: nothing is left running.
    stdio::kill_all_groups();
    stdio::reap_orphans();
    code
}

/// Keeps memory given back: large blocks (a flooding server's megabyte frames) are mapped and
/// returned to the system when freed instead of fragmenting the heap, and the threads share two
/// arenas. Without it glibc keeps such memory, and a flood of large frames costs several times
/// what mcpcheck holds.
fn bound_the_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
