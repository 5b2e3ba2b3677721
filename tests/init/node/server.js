#!/usr/bin/env node
// The sample project's server: it hands its stdio to mcpcheck's reference server (named by the
// test in MCPCHECK_SAMPLE_SERVER), as a real project's server would speak MCP itself.
const { spawn } = require("node:child_process");
const child = spawn(process.env.MCPCHECK_SAMPLE_SERVER, [], { stdio: "inherit" });
child.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => child.kill("SIGTERM"));
