"""What every browser test checks on a page: no sideways scrolling, axe-core, screenshots kept as artifacts.

axe-core is vendored under ``tests/browser/vendor`` (version, checksum and licence beside it), so
the accessibility checks run offline in CI; it is injected into the page under test only, never
served by the app. Screenshots go to ``tests/browser/artifacts/`` (git-ignored; CI keeps them).
"""
from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
AXE = HERE / "vendor" / "axe.min.js"
ARTIFACTS = HERE / "artifacts"

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
SEVERE = ("serious", "critical")


def screenshot(page, name: str, *, full_page: bool = False) -> Path:
    """Save a PNG of the page under tests/browser/artifacts/ and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name) + ".png")
    page.screenshot(path=str(path), full_page=full_page)
    return path


def horizontal_overflow(page) -> tuple[int, int]:
    """Return (scrollWidth, clientWidth) of the page; scrollWidth > clientWidth means sideways scrolling."""
    return tuple(page.evaluate(
        "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
    ))


def assert_fits(page, what: str) -> None:
    """Fail, naming the widest elements, if the page scrolls sideways."""
    scroll, client = horizontal_overflow(page)
    if scroll > client:
        culprits = page.evaluate(
            """(limit) => Array.from(document.querySelectorAll('body *'))
                 .filter(e => e.getBoundingClientRect().right > limit + 1)
                 .slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))""",
            client,
        )
        raise AssertionError(f"{what}: page is {scroll}px wide in a {client}px window; too wide: {culprits}")


def axe_violations(page, *, impacts: tuple[str, ...] = SEVERE) -> list[dict]:
    """Run axe-core (WCAG 2 A/AA rules) on the page and return the violations of the given impacts."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        """async () => {
             const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
             return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
           }"""
    )
    return [v for v in result if v["impact"] in impacts]


def assert_accessible(page, what: str) -> None:
    """Fail if axe-core finds a serious or critical violation on the page."""
    violations = axe_violations(page)
    assert not violations, f"{what}: axe-core found {violations}"
