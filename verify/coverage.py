"""Coverage of printed formulas: every numbered item of a paper → the claims that check it, or why none does.

One row per numbered equation, theorem, lemma, corollary, proposition, definition, assumption, example, table and
figure (for bn-mean-field: of shared/papers/yang2019-equations.md and the paper text). ``claims`` empty means the item
is not checked; ``note`` says why and ``kind`` which of these it is (``Item.status``):

* ``no claim`` — a definition or setting implemented (and tested) in numerics/theory, notation, a remark with no
  statement of its own, a proof step whose conclusion a listed claim checks, an illustration;
* ``vacuous`` — a statement that cannot fail in any setting the package can build (reported with the measurement);
* ``text lost`` — a statement whose content (the settings compared, an appendix) is not in the text copies;
* ``offline`` — needs data or pretrained weights that cannot exist offline;
* ``not yet`` — a statement that could be checked and is not (none today: a test keeps it so).

``python -m verify list`` shows the status of every unchecked item; ``python -m verify.docs`` renders the table into
docs/papers/<paper>.md.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


UNCHECKED_KINDS = ("no claim", "vacuous", "text lost", "offline", "not yet")

#: What a claim named in a row does with the printed item (the head of :attr:`Item.audit`, before any ": remark").
AUDITS = ("as printed", "derived", "uses only")

#: When the rows of the four built-in papers were last audited, by reading each named claim's code (its statement,
#: ``how``, its check function and the ``theory.*`` function that computes its reference) against the printed item.
AUDIT_DATE = "2026-11-25"


@dataclass(frozen=True)
class Item:
    """One numbered item of a paper (a theorem, an equation, a figure) and the claims that check it, or why none does.

    The rule: a row is ``checked`` (``covered``) only when some claim checks it *as printed*. A row whose best claim
    checks a derived form has status ``"derived"``, one whose claims only use the item ``"uses only"``: both keep
    their claims (so the table says who uses what) but are not counted as checked — ``verify list`` shows them among
    the unchecked items, with the audit remark. A printed identity without an *as printed* row is a hole.

    Attributes
    ----------
    item : str
        As printed: ``"Theorem 1"``, ``"eq (13)"``, ``"Fig 2"``, ``"Table B.1"``.
    claims : tuple of str
        The names of the claims named for it (without the paper prefix); empty: unchecked.
    note : str
        A remark, shown in the coverage table.
    kind : str
        For an unchecked item, why: one of ``"no claim"``, ``"vacuous"``, ``"text lost"``, ``"offline"``,
        ``"not yet"``.
    audit : str or tuple of str
        What each named claim does with the item *as printed* — normalising constants, exponents and prefactors
        included: ``"as printed"`` (it compares the printed formula with an independent route, or checks the printed
        statement directly), ``"derived: …"`` (an equivalent or derived form, or only part of the statement — the
        remark says which; required) or ``"uses only"`` (an ingredient it uses without checking it); each may carry
        ``": remark"``. One string applies to every claim of the row; a tuple gives one per claim, in order. Empty: not
        audited (a plugin's rows, counted as before).

    Examples
    --------
    >>> from verify.api import Item
    >>> Item("Theorem 1", ("theorem1",), audit="as printed").status
    'checked'
    >>> Item("eq (7)", (), "a definition").status
    'no claim'
    >>> row = Item("eq (36)", ("lemma5", "lemma9"), audit=("derived: eq (13)'s form", "uses only"))
    >>> row.status, row.covered, row.checked_by, row.audit_of("lemma9")
    ('derived', False, (), 'uses only')
    >>> Item("eq (5)", ("a",), audit="uses only").covered
    False
    >>> Item("Lemma 1", ("a",)).status          # not audited (a plugin's row): counted as before
    'checked'
    """

    item: str                   # as printed: "Theorem 1", "eq (13)", "Fig 2", "Table B.1"
    claims: tuple[str, ...]     # claim names of this paper (without the paper prefix)
    note: str = ""
    kind: str = "no claim"      # for an unchecked item: one of UNCHECKED_KINDS
    audit: str | tuple[str, ...] = ""   # per claim: "as printed" | "derived: …" | "uses only" (see AUDITS)

    def __post_init__(self):
        if self.kind not in UNCHECKED_KINDS:
            raise ValueError(f"{self.item}: kind {self.kind!r} is not one of {UNCHECKED_KINDS}")
        if not self.audit:
            return
        if not self.claims:
            raise ValueError(f"{self.item}: an audit without claims")
        if not isinstance(self.audit, str) and len(self.audit) != len(self.claims):
            raise ValueError(f"{self.item}: {len(self.audit)} audit values for {len(self.claims)} claims")
        for a in self.audits:
            head, _, remark = a.partition(":")
            if head.strip() not in AUDITS:
                raise ValueError(f"{self.item}: audit {a!r} is not one of {AUDITS} (optionally ': remark')")
            if head.strip() == "derived" and not remark.strip():
                raise ValueError(f"{self.item}: a 'derived' audit must say which form or part is checked")

    @property
    def audited(self) -> bool:
        return bool(self.audit)

    @property
    def audits(self) -> tuple[str, ...]:
        """One audit value per claim (empty strings when the row is not audited)."""
        if isinstance(self.audit, str):
            return (self.audit,) * len(self.claims)
        return tuple(self.audit)

    def audit_of(self, claim: str) -> str:
        return dict(zip(self.claims, self.audits))[claim]

    @staticmethod
    def _head(audit: str) -> str:
        return audit.partition(":")[0].strip()

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The claims that check the item as printed (all named claims for a row that is not audited)."""
        if not self.audited:
            return tuple(self.claims)
        return tuple(c for c, a in zip(self.claims, self.audits) if self._head(a) == "as printed")

    @property
    def covered(self) -> bool:
        """Checked as printed by some claim: what ``checked`` means."""
        return bool(self.checked_by)

    @property
    def status(self) -> str:
        if not self.claims:
            return self.kind
        if self.covered:
            return "checked"
        heads = {self._head(a) for a in self.audits}
        return "derived" if "derived" in heads else "uses only"

    @property
    def audit_text(self) -> str:
        """The audit as one line: the common value, or ``claim: value`` per claim."""
        if not self.audited:
            return ""
        values = self.audits
        if len(set(values)) == 1:
            return values[0]
        return "; ".join(f"{c}: {a}" for c, a in zip(self.claims, values))


def uncovered(rows) -> list[Item]:
    """Of a paper's coverage rows (:func:`verify.registry.coverage_items`), those no claim checks as printed:
    unchecked items, and audited rows whose claims check a derived form or only use the item (``status``
    ``"derived"`` or ``"uses only"``; their note then ends with the audit, for ``verify list``)."""
    out = []
    for it in rows:
        if it.covered:
            continue
        if it.claims:
            why = f"[{', '.join(it.claims)}: {it.audit_text}]"
            it = replace(it, note=f"{it.note} {why}".strip())
        out.append(it)
    return out
