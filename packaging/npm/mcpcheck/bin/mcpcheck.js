#!/usr/bin/env node
// The npm launcher of mcpcheck: the binary itself comes in a per-platform package
// (@mcpcheck/<os>-<cpu>), an optional dependency npm installs only on its platform. This
// script finds it and runs it with the same arguments, standard streams and exit code.
"use strict";

const { spawnSync } = require("node:child_process");

const PLATFORMS = {
  "linux-x64": "@mcpcheck/linux-x64",
  "linux-arm64": "@mcpcheck/linux-arm64",
  "darwin-x64": "@mcpcheck/darwin-x64",
  "darwin-arm64": "@mcpcheck/darwin-arm64",
  "win32-x64": "@mcpcheck/win32-x64",
};

function fail(message) {
  process.stderr.write(`mcpcheck: ${message}\n`);
  // 2: mcpcheck's exit code for a usage problem (this one is in the installation).
  process.exit(2);
}

function binary() {
  // An escape hatch for platforms without a package: a binary built from source.
  if (process.env.MCPCHECK_BINARY) return process.env.MCPCHECK_BINARY;
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    fail(`no prebuilt binary for ${key}; install with cargo (cargo install mcpcheck) and set MCPCHECK_BINARY to it`);
  }
  const exe = process.platform === "win32" ? "mcpcheck.exe" : "mcpcheck";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`${pkg} is not installed. It is the optional dependency of mcpcheck that carries the binary for ${key}; npm leaves it out when it could not fetch it (a registry or network error, a mirror without it) or when optional dependencies were omitted (--omit=optional, --no-optional). Reinstall mcpcheck with optional dependencies from a registry that has ${pkg}, or set MCPCHECK_BINARY to an mcpcheck binary (cargo install mcpcheck, or the release archive).`);
  }
}

const result = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) fail(`cannot run ${result.error.path || "the binary"}: ${result.error.message}`);
if (result.signal) {
  process.kill(process.pid, result.signal);
} else {
  process.exit(result.status === null ? 1 : result.status);
}
