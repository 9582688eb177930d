"""robots.txt rules, parsed from text the crawler fetched itself.

``urllib.robotparser`` fetches with urllib when asked to ``read()``; the
crawler fetches robots.txt through its own client instead (same SSRF guard,
same retries, an injectable transport) and hands the text over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.robotparser import RobotFileParser

MAX_CRAWL_DELAY = 5.0
"""A Crawl-delay above this many seconds is capped: one page per minute is no crawl."""


@dataclass
class RobotsRules:
    """What one site's robots.txt allows the crawler's user agent."""

    user_agent: str
    parser: RobotFileParser | None = None
    sitemaps: list[str] = field(default_factory=list)

    @classmethod
    def allow_all(cls, user_agent: str) -> RobotsRules:
        return cls(user_agent)

    @classmethod
    def deny_all(cls, user_agent: str) -> RobotsRules:
        parser = RobotFileParser()
        parser.disallow_all = True
        return cls(user_agent, parser)

    @classmethod
    def parse(cls, text: str, user_agent: str) -> RobotsRules:
        parser = RobotFileParser()
        parser.parse(text.splitlines())
        sitemaps = [
            line.split(":", 1)[1].strip()
            for line in text.splitlines()
            if line.lower().startswith("sitemap:") and line.split(":", 1)[1].strip()
        ]
        return cls(user_agent, parser, sitemaps)

    @classmethod
    def from_response(cls, status: int, text: str, user_agent: str) -> RobotsRules:
        """Rules for a robots.txt answer, following RFC 9309: 4xx means no rules,
        401/403 (and a 5xx the retries could not get past) mean stay away."""
        if 200 <= status < 300:
            return cls.parse(text, user_agent)
        if status in (401, 403) or status >= 500:
            return cls.deny_all(user_agent)
        return cls.allow_all(user_agent)

    def allowed(self, url: str) -> bool:
        return self.parser is None or self.parser.can_fetch(self.user_agent, url)

    @property
    def crawl_delay(self) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(self.user_agent)
        return None if delay is None else min(float(delay), MAX_CRAWL_DELAY)
