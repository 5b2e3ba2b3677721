//! The sample project's server: it becomes mcpcheck's reference server (named by the test in
//! MCPCHECK_SAMPLE_SERVER), as a real project's server would speak MCP itself over stdio.

use std::os::unix::process::CommandExt;

fn main() {
    let server = std::env::var("MCPCHECK_SAMPLE_SERVER").expect("MCPCHECK_SAMPLE_SERVER");
    let error = std::process::Command::new(server).exec();
    eprintln!("cannot start the server: {error}");
    std::process::exit(1);
}
