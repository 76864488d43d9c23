"""The coverage rows tell the truth (issue 28, item 4): every row that names claims says what they do with the printed
item, only an *as printed* claim makes a row checked, and the rows established by the audit keep their status."""
from __future__ import annotations

import pytest

from verify.coverage import AUDITS, Item, uncovered
from verify.registry import coverage_items, papers

# each paper's rows, as it declares them (its package's coverage.py)
COVERAGE = {key: list(paper.coverage) for key, paper in papers().items()}


def _row(paper: str, item: str) -> Item:
    [row] = [it for it in COVERAGE[paper] if it.item == item]
    return row


def test_every_row_naming_claims_is_audited():
    for paper, rows in COVERAGE.items():
        for it in rows:
            if it.claims:
                assert it.audited, (paper, it.item)
                assert len(it.audits) == len(it.claims)
                for a in it.audits:
                    assert a.partition(":")[0].strip() in AUDITS, (paper, it.item, a)


def test_uses_only_and_derived_rows_are_not_counted_as_checked():
    seen = set()
    for paper, rows in COVERAGE.items():
        for it in rows:
            heads = {a.partition(":")[0].strip() for a in it.audits}
            if it.claims and "as printed" not in heads:
                assert not it.covered and it.status in ("derived", "uses only"), (paper, it.item)
                assert it.checked_by == ()
                assert it.item in {u.item for u in uncovered(coverage_items(paper))}
                seen |= heads
            if it.status == "checked":
                assert it.checked_by and "as printed" in heads
    assert seen == {"derived", "uses only"}


def test_the_rule_on_constructed_rows():
    assert Item("eq (1)", ("a",), audit="uses only").status == "uses only"
    assert Item("eq (1)", ("a", "b"), audit=("uses only", "derived: x")).status == "derived"
    assert Item("eq (1)", ("a", "b"), audit=("as printed", "uses only")).checked_by == ("a",)
    assert Item("eq (1)", ("a",)).status == "checked"      # not audited (a plugin's row): as before
    with pytest.raises(ValueError):
        Item("eq (1)", ("a",), audit="checked")
    with pytest.raises(ValueError):
        Item("eq (1)", ("a",), audit="derived")              # must say which form
    with pytest.raises(ValueError):
        Item("eq (1)", ("a", "b"), audit=("as printed",))


GOLDEN = [
    # (paper, item, status)
    ("bn-finite-width", "eq (13)", "checked"),           # lemma5: ε² ∝ 1/d as printed (violated)
    ("bn-finite-width", "eq (19)", "checked"),
    ("bn-finite-width", "Theorem 1", "derived"),         # only the width dependence, probability form corrected
    ("bn-finite-width", "eq (5)", "derived"),            # the sphere form of the fixed point
    ("bn-finite-width", "eq (4)", "uses only"),          # the recursion is never iterated
    ("bn-finite-width", "eq (36)", "derived"),           # checked in eq (13)'s form
    ("bn-mean-field", "eq (24)", "checked"),             # theory.theorem7_rate is eq (24) as printed
    ("bn-mean-field", "eq (16)", "checked"),
    ("bn-mean-field", "eq (26)", "derived"),             # the printed normalising prefactor is never evaluated
    ("bn-mean-field", "eq (21)", "derived"),
    ("isometry", "eq (4)", "checked"),
    ("isometry", "eq (22)", "checked"),                  # Theorem A.2 (was filed as a proof step of Theorem 4)
    ("isometry", "eq (10)", "checked"),                  # the mean-field map (was filed under Corollary 2)
    ("isometry", "eq (11)", "derived"),                  # β via Parseval, 2 − c₁²/Var σ
    ("isometry", "eq (7)", "uses only"),
    ("covariance-sde", "eq (3.4)", "checked"),
    ("covariance-sde", "eq (3.6)", "derived"),           # via the shaped–linear gap, not the SDE
    ("covariance-sde", "eq (3.3)", "uses only"),
]


@pytest.mark.parametrize("paper, item, status", GOLDEN)
def test_golden_rows(paper, item, status):
    assert _row(paper, item).status == status


def test_isometry_equation_numbers_follow_the_text():
    """The audit renumbered the isometry rows by the paper text: (20)–(62) exist, each once."""
    names = [it.item for it in COVERAGE["isometry"]]
    for k in range(1, 63):
        assert names.count(f"eq ({k})") == 1, k
    assert _row("isometry", "eq (23)").claims == ("corollary-a3",)
    assert _row("isometry", "eq (24)").claims == ("lemma-a4",)


def test_the_page_table_has_the_audit_column_and_says_what_checked_means():
    from verify.docs import coverage_section
    lines = coverage_section("isometry")
    assert "| item | checked by | audit | note |" in lines
    text = "\n".join(lines)
    assert "as printed" in text and "audited on" in text
    row = [x for x in lines if x.startswith("| eq (7) |")][0]
    assert "(**uses only**)" in row and row.count("|") == 5
