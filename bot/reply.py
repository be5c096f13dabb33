"""What the pipeline returns to every channel."""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.results import Status

ANSWERED, REFERENCE, REFERENCE_MISSING, NO_EVIDENCE = (Status.ANSWERED, Status.REFERENCE, Status.REFERENCE_MISSING,
                                                      Status.NO_EVIDENCE)
CRISIS, REJECTED, LLM_ERROR = Status.CRISIS, Status.REJECTED, Status.LLM_ERROR


@dataclass(frozen=True)
class Source:
    """A retrieved verse shown to the user under the answer."""

    id: str  # "JHN.3.16"
    reference: str  # "João 3:16"
    text: str

    def as_dict(self) -> dict:
        return {"id": self.id, "reference": self.reference, "text": self.text}


@dataclass(frozen=True)
class Reply:
    text: str
    status: str
    sources: list[Source] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)  # kept, as "João 3:16"
    removed_citations: list[str] = field(default_factory=list)
    llm_called: bool = False
    crisis_level: str | None = None
    query: str = ""  # what was searched (the follow-up rewritten, when it was one)
    timings: dict = field(default_factory=dict, compare=False)  # this reply's stages in seconds (llm, total…)
    corrected_quotes: list[dict] = field(default_factory=list)  # {"reference", "quoted", "action", "now"}
    removed_contacts: list[str] = field(default_factory=list)  # numbers, links, addresses the model invented
    replaced_directives: list[str] = field(default_factory=list)  # treatment directives replaced by the referral
    crisis_kind: str | None = None  # "suicide-indirect", "domestic-violence"... (bot.safety kinds)
    crisis_also: str | None = None  # a second kind whose help the reply names too
    offer_care: bool = False  # a crisis where a human of the care team should be offered

    def as_dict(self) -> dict:
        """The `python -m bot ask --json` contract."""
        return {"text": self.text, "status": self.status, "sources": [s.id for s in self.sources],
                "citations": self.citations, "removed_citations": self.removed_citations,
                "llm_called": self.llm_called, "corrected_quotes": self.corrected_quotes,
                "removed_contacts": self.removed_contacts, "replaced_directives": self.replaced_directives,
                "crisis": {"level": self.crisis_level, "kind": self.crisis_kind, "also": self.crisis_also}
                if self.crisis_level else None}
