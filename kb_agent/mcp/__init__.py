"""`kb mcp`: the knowledge base as a Model Context Protocol server (search, ask, read, files, related, status).

`specs` (tool names, descriptions and JSON Schemas) and `service` (the warm index and agent) are plain
Python; only `server` imports the `mcp` SDK, and only `kb mcp` imports `server`.
"""
