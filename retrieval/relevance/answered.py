"""Questions answered before: the verses a pastor chose for the training questions nearest a new one, offered as
one more channel of a question's fusion (the judges' memory of the care path, for questions)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.aptness.grades import GradedPair, position_of
from retrieval.aptness.memory import GradeMemory, VerseVectors, message_vectors

APT = 2  # every verse chosen for a question counts as apt for it
FLOOR = 0.45  # cosine below which an answered question is no neighbour
MARGIN = 0.05  # and nearer the message than any question with no subject is ("como é o céu segundo a Bíblia?")


@dataclass(frozen=True)
class AnsweredQuestions:
    """The answered questions as a graded memory, and the bare question frames their nearness is measured against."""

    memory: GradeMemory
    frames: np.ndarray  # unit vectors of questions with no subject (retrieval/data/topic_frames.txt)

    def channel(self, vector: np.ndarray, limit: int, mask=None, left_out: str | None = None,
                floor: float = FLOOR) -> list[int]:
        """Verses chosen for the answered questions near the message (``left_out`` a question id: training)."""
        bare = float((self.frames @ np.asarray(vector, np.float32)).max()) if len(self.frames) else -1.0
        return self.memory.channel(vector, limit, mask, self.memory.situations.get(left_out),
                                   floor=max(floor, bare + MARGIN))


def answered_questions(questions: list[dict], frames: Sequence[str], bible, embed, verses: VerseVectors,
                       cache_dir: Path | None, slug: str, prepare) -> AnsweredQuestions:
    """The training questions (``{"id", "q", "relevant"}``) as graded pairs, one situation per question id (so a
    question can be left out of its own memory while the ranker is trained)."""
    pairs = [GradedPair(str(item.get("id") or item["q"]), item["q"], verse, APT)
             for item in questions for verse in item["relevant"]]
    memory = GradeMemory.build(pairs, lambda vid: position_of(bible, vid), embed, verses, cache_dir, slug, prepare)
    return AnsweredQuestions(memory, message_vectors(list(frames), embed, cache_dir, slug, prepare))
