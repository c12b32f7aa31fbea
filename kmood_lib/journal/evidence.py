"""The one rule for when a difference between days with and days without something says
anything (SPEC §11), used by the insights and by the Stats tables alike: below it a row is
"few days", shown after the rows with evidence and never as a finding."""

from __future__ import annotations

from dataclasses import dataclass

MIN_EACH = 14  # KMOOD_INSIGHTS_MIN_EACH's default


@dataclass(frozen=True)
class Evidence:
    """At least `min_each` logged days with and as many without."""

    min_each: int = MIN_EACH

    def enough(self, days_with: int, days_without: int) -> bool:
        return min(days_with, days_without) >= self.min_each

    def short_of(self, days_with: int, days_without: int) -> str | None:
        """Which side is short ("with" first), or None when both have enough."""
        if days_with < self.min_each:
            return "with"
        if days_without < self.min_each:
            return "without"
        return None


DEFAULT = Evidence()


def evidence_from(config) -> Evidence:
    return Evidence(config.insights_min_each)
