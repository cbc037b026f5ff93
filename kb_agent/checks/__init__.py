"""Docs checks for CI: `kb check` (does the KB still answer these questions?) and `kb links`."""
