"""Problems found in an import, and the exception that refuses the whole import."""
from __future__ import annotations

from dataclasses import dataclass

from qrelsmith.errors import ProblemsError

MAX_PROBLEMS = 50


@dataclass(frozen=True)
class ImportProblem:
    """One thing wrong with an uploaded file, pinned to a line when it has one."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}: {self.message}"


class ImportFailed(ProblemsError):
    """Raised when an import is refused; nothing was changed (the API lists its problems: ``qrelsmith.errors``)."""

    def __init__(self, problems: list[ImportProblem], *, code: str = "invalid_file", total: int | None = None) -> None:
        self.problems = list(problems)[:MAX_PROBLEMS]
        self.code = code
        self.total = max(total or 0, len(problems))
        super().__init__(self._message())

    def _message(self) -> str:
        lines = [str(problem) for problem in self.problems]
        rest = self.total - len(self.problems)
        if rest > 0:
            lines.append(f"... and {rest} more problems")
        return "\n".join(lines)


class ProblemList:
    """Collect problems up to a cap while counting all of them, so one bad file can't flood memory."""

    def __init__(self) -> None:
        self.items: list[ImportProblem] = []
        self.count = 0
        self.code = "invalid_file"

    def add(self, file: str, line: int | None, message: str, *, code: str | None = None) -> None:
        self.count += 1
        if code and self.code == "invalid_file":
            self.code = code
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(ImportProblem(file, line, message))

    def __bool__(self) -> bool:
        return self.count > 0

    def raise_if_any(self) -> None:
        """Raise ImportFailed listing what was collected, if anything was."""
        if self.count:
            raise ImportFailed(self.items, code=self.code, total=self.count)


def fail(file: str, line: int | None, message: str, *, code: str = "invalid_file") -> ImportFailed:
    """Return an ImportFailed for a single problem (callers ``raise fail(...)``)."""
    return ImportFailed([ImportProblem(file, line, message)], code=code)
