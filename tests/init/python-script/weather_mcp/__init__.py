"""The sample project's server: its console script becomes mcpcheck's reference server (named
by the test in MCPCHECK_SAMPLE_SERVER), as a real project's server would speak MCP itself."""
import os


def main():
    server = os.environ["MCPCHECK_SAMPLE_SERVER"]
    os.execv(server, [server])
