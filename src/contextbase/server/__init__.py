"""The MCP server: thin tools over the features, grouped and switchable."""
