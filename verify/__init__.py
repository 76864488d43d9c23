"""The claim registry, verdicts, reports and the command line (``python -m verify``)."""
__version__ = "0.1.0"

from .core import (HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, Erratum, Evidence,
                   Verdict)

__all__ = ["HOLDS", "HYPOTHESES_NOT_MET", "INCONCLUSIVE", "VIOLATED", "Claim", "Context", "Erratum",
           "Evidence", "Verdict", "__version__"]
