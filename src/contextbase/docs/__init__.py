"""Libraries, the resolver and Context7-style documentation answers."""
