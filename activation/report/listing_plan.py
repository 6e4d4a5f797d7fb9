"""`--dry-run --show-listing`: the listing each variant's trials show the model, exactly as
the cell's agent renders and sends it, so a user can read what the model chooses from
(which skills, cut where, in what words) before paying for a single call."""

from __future__ import annotations

from collections.abc import Mapping

from activation._models import VARIANTS, RunSpec, VariantName
from activation.report import phrases
from activation.trials.listing.model import Listing


def listing_text(spec: RunSpec, listings: Mapping[VariantName, Listing]) -> str:
    """Each variant's listing as sent, under a line saying whose and how large; the
    candidate's only once when it is the baseline's, byte for byte."""
    agent = phrases.agent_title(spec.coding_agent)
    blocks = []
    baseline, candidate = (listings[name] for name in VARIANTS)
    same = baseline.as_sent == candidate.as_sent
    shown: tuple[VariantName, ...] = VARIANTS[:1] if same else VARIANTS
    for name in shown:
        listing = listings[name]
        whose = "baseline and candidate (identical)" if same else name
        head = (
            f"listing as sent, {whose}: {agent}'s, {len(listing.entries)} entries, "
            f"{listing.size_text}"
        )
        body = listing.as_sent or "(nothing listed: the agent sends no listing)"
        blocks.append(f"{head}\n{'-' * len(head)}\n{body}\n")
    return "\n".join(blocks)
