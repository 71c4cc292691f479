"""What an import did, in a form commands print and pages show."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ImportSummary:
    """Counts and warnings of one successful import."""

    kind: str
    created: int
    replaced: int = 0
    lines: int = 0
    warnings: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def line(self) -> str:
        """Return a one-line human summary, e.g. ``runs: 3 created, 1 replaced from 150000 lines; 1 warning``."""
        text = f"{self.kind}: {self.created} created"
        if self.replaced:
            text += f", {self.replaced} replaced"
        text += f" from {self.lines} lines"
        if self.warnings:
            text += f"; {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}: " + "; ".join(self.warnings[:3])
            if len(self.warnings) > 3:
                text += f"; ... {len(self.warnings) - 3} more"
        return text
