"""axe-core, installed from the npm registry by ``make test``, run inside a Playwright page."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE_SCRIPT = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = ("critical", "serious", "moderate")


def audit(page) -> list[dict]:
    """Run axe-core on ``page`` and return its violations of impact moderate or worse.

    Parameters
    ----------
    page : playwright.sync_api.Page
        A loaded page.

    Returns
    -------
    list of dict
        One entry per rule violated: ``id``, ``impact``, ``help`` and the offending ``targets``.
    """
    if not AXE_SCRIPT.exists():
        raise FileNotFoundError(f"{AXE_SCRIPT} is missing: `make test` installs axe-core from the npm registry")
    # Evaluated through the browser's debugging protocol, not as an inline <script>: the pages' own
    # Content-Security-Policy (app.web.security_headers) runs no inline script without its nonce.
    page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8"))
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", TAGS)
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "targets": [node["target"] for node in violation["nodes"]][:5],
            "count": len(violation["nodes"]),
        }
        for violation in result["violations"]
        if violation["impact"] in BLOCKING
    ]


def describe(violations: list[dict]) -> str:
    """One line per violation, for an assertion message."""
    return "\n".join(f"{v['impact']}: {v['id']} ×{v['count']} ({v['help']}) at {v['targets']}" for v in violations)
