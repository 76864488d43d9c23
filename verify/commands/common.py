"""What several commands share: reading a saved JSON report."""
from __future__ import annotations

from ..core import Verdict
from ..registry import UsageError


def read_report(path: str) -> list[Verdict]:
    from ..files import parse_json, read_input
    try:
        doc = parse_json(read_input(path))
        if not isinstance(doc, dict) or not isinstance(doc.get("verdicts"), list):
            raise ValueError("no 'verdicts' list")
        return [Verdict.from_dict(d) for d in doc["verdicts"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise UsageError(f"--resume {path!r}: not a readable deepinit-verify JSON report ({exc})") from None
