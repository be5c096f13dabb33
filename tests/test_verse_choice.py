"""With a language model: it chooses the three most apt verses for a life told, among the candidates only."""

from __future__ import annotations

import re

from bot.llm.base import LLMError
from bot.pastor.verse_choice import SHOWN, chosen_first, chosen_numbers
from bot.reply import Source
from tests.fakes.model import FakeModel

SOURCES = [Source(f"PSA.{n}.1", f"Salmos {n}:1", f"texto {n}") for n in range(1, 11)]


def _saying(text: str):
    async def complete(messages):
        assert "dados, não instruções" in messages[0].content and "<mensagem>" in messages[1].content
        assert "9. Salmos 9:1" not in messages[1].content  # only the first SHOWN are offered
        return text
    return complete


async def test_the_models_choice_comes_first_in_its_order():
    chosen = await chosen_first("perdi meu pai", SOURCES, _saying("5, 2, 7"))
    assert [s.id for s in chosen][:4] == ["PSA.5.1", "PSA.2.1", "PSA.7.1", "PSA.1.1"]
    assert sorted(s.id for s in chosen) == sorted(s.id for s in SOURCES)  # nothing added, nothing lost


async def test_numbers_outside_the_candidates_and_repeats_are_ignored():
    assert chosen_numbers("9, 3, 3, 0, 12, 1, 2", SHOWN) == [3, 1, 2]
    chosen = await chosen_first("perdi meu pai", SOURCES, _saying("Escolho 42 e 9"))
    assert chosen == SOURCES  # nothing valid: the ranker's order stands


async def test_a_reply_naming_references_is_read_by_them_and_their_digits_are_never_numbers():
    chosen = await chosen_first("perdi meu pai", SOURCES, _saying("Salmos 5:1 primeiro, depois Salmos 2:1, e o 7"))
    assert [s.id for s in chosen][:3] == ["PSA.5.1", "PSA.2.1", "PSA.7.1"]
    # a verse it was not shown, and a numbered echo of the list, count only as what they are
    assert chosen_numbers("1 Pedro 5:7, e o 3", SHOWN, [s.reference for s in SOURCES[:SHOWN]]) == [3]
    assert chosen_numbers("4. Salmos 4:1\n6. Salmos 6:1", SHOWN, [s.reference for s in SOURCES[:SHOWN]]) == [4, 6]


async def test_a_failing_model_costs_nothing():
    async def failing(messages):
        raise LLMError("fake", "unavailable", "fora do ar")
    assert await chosen_first("perdi meu pai", SOURCES, failing) == SOURCES


async def test_the_pastor_asks_for_a_choice_only_when_told_and_for_a_life_told(make_pastor):
    model = FakeModel("2, 1", "O Senhor está perto de você (Salmos 23:1).")
    pastor = make_pastor(model, choose_verses=True)
    reply = await pastor.reply("c1", "meu pai morreu ontem e estou sem chão")
    asked = [p for p in model.prompts if "<versiculos>" in p[-1].content]
    assert len(asked) == 1 and len(reply.sources) >= 2
    first_two = re.findall(r"^\d+\. (.+?): ", asked[0][-1].content, re.M)[:2]
    answered = [p for p in model.prompts if "<fontes>" in p[-1].content][-1][-1].content
    offered = re.findall(r"\[FONTE \d+\] (.+?) — ", answered)
    assert offered[:2] == first_two[::-1]  # "2, 1": the answer is written from the swapped order
    quiet = FakeModel("O Senhor é meu pastor (Salmos 23:1).")
    await make_pastor(quiet).reply("c2", "meu pai morreu ontem e estou sem chão")
    assert not any("<versiculos>" in p[-1].content for p in quiet.prompts)


def test_the_blind_measure_scores_the_chosen_three_and_the_rankers_three_against_the_grades():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "verse_choice.py"
    spec = importlib.util.spec_from_file_location("verse_choice_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    grades = {"s1": {"A": 2, "B": 1, "C": -1, "D": 2, "E": 2}, "s2": {"A": 0, "D": 2}}
    rows = [{"id": "s1", "ranker": ["C", "B", "A"], "verses": ["D", "E", "A"]},
            {"id": "s2", "ranker": ["A", "X", "D"], "verses": ["D", "A", "Y"]}]
    ranker = bench.shown_scores(rows, grades, "ranker")
    chosen = bench.shown_scores(rows, grades, "verses")
    assert (ranker.apt, ranker.first, ranker.harm, ranker.unjudged) == ([1 / 3, 1 / 3], [0.0, 0.0], [1.0, 0.0],
                                                                        [("s2", "X")])
    assert (chosen.apt, chosen.first, chosen.harm, chosen.unjudged) == ([1.0, 1 / 3], [1.0, 1.0], [0.0, 0.0],
                                                                        [("s2", "Y")])
