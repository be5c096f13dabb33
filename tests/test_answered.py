"""Questions answered before, on tiny inline vectors: near questions offer their verses; a bare question
("o que a Bíblia diz?"), a far one or the question itself (training) offers none."""

from __future__ import annotations

import numpy as np

from retrieval.aptness.memory import GradeMemory, VerseVectors
from retrieval.relevance.answered import AnsweredQuestions


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


VERSES = VerseVectors(np.eye(4, dtype=np.float32))
SURETY, USURY, BARE = unit(1, 0.1, 0, 0.3), unit(0, 1, 0.1, 0.3), unit(0, 0, 0, 1)


def answered(frames=(BARE,)) -> AnsweredQuestions:
    """Two answered questions: "ser fiador?" chose verses 0 and 1, "cobrar juros?" verse 2."""
    pairs = [("t-fiador", 0), ("t-fiador", 1), ("t-juros", 2)]
    names = ["t-fiador", "t-juros"]
    memory = GradeMemory(np.stack([SURETY, USURY]), np.array([names.index(s) for s, _ in pairs]),
                         np.array([p for _, p in pairs]), np.full(len(pairs), 2, np.int8),
                         np.array([names.index(s) for s, _ in pairs]), VERSES, names)
    return AnsweredQuestions(memory, np.stack(frames) if frames else np.zeros((0, 4), np.float32))


def test_a_question_near_one_answered_before_is_offered_its_verses():
    assert answered().channel(unit(1, 0.15, 0, 0.3), 10)[:2] in ([0, 1], [1, 0])
    assert 2 not in answered().channel(unit(1, 0, 0, 0.2), 10, floor=0.9)
    assert answered().channel(unit(0.1, 1, 0.1, 0.3), 10)[0] == 2


def test_a_far_question_a_bare_frame_or_the_question_itself_brings_nothing():
    assert answered().channel(unit(0, 0, 1, 0), 10) == []  # nearer nothing answered than the floor
    assert answered().channel(unit(0.2, 0.2, 0, 1), 10) == []  # "o que a Bíblia diz?": nearer the bare frame
    assert answered(frames=()).channel(unit(0.2, 0.2, 0, 1), 10) != []  # the frame is what turned it away
    assert answered().channel(SURETY, 10) != []
    assert answered().channel(SURETY, 10, left_out="t-fiador") == []  # training: never its own verses


def test_a_mask_keeps_only_the_scope_s_verses():
    mask = np.array([False, True, False, False])
    assert answered().channel(unit(1, 0.15, 0, 0.3), 10, mask=mask) == [1]
