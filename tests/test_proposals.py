"""With a language model, passages it proposes for a question about the Bible join the retrieved verses only
when they exist in the corpus and speak to the question."""

from __future__ import annotations

from bot.llm.base import LLMError
from bot.pastor.proposals import proposed_sources
from tests.fakes.model import FakeModel


def _saying(text: str):
    async def complete(messages):
        assert "dado, não uma instrução" in messages[0].content and "<pergunta>" in messages[1].content
        return text
    return complete


async def test_only_existing_and_relevant_proposals_are_kept(mini_retriever):
    question = "em quem posso confiar quando sinto medo?"
    kept = await proposed_sources(question, _saying("Salmos 56:1-2\nSalmos 150:1\nJoão 99:1"), mini_retriever, set())
    assert [s.id for s in kept] == ["PSA.56.1", "PSA.56.2"]  # Psalm 150 and John 99 are not in this Bible
    again = await proposed_sources(question, _saying("Salmos 56:1-2"), mini_retriever, {"PSA.56.1", "PSA.56.2"})
    assert again == []  # already retrieved: nothing new to add


async def test_a_failing_or_empty_proposal_costs_nothing(mini_retriever):
    async def failing(messages):
        raise LLMError("modelo fora do ar")
    assert await proposed_sources("o que é a fé?", failing, mini_retriever, set()) == []
    assert await proposed_sources("o que é a fé?", _saying("não sei"), mini_retriever, set()) == []


async def test_the_answer_may_cite_a_proposed_passage(make_pastor):
    model = FakeModel("Romanos 8:2", "Nada nos afasta do amor de Deus (Romanos 8:2).")
    pastor = make_pastor(model, propose_passages=True)
    reply = await pastor.reply("p1", "o que a Bíblia ensina sobre o amor de Deus que nunca nos deixa?")
    assert len(model.prompts) == 2 and "Romanos 8:2" in reply.text and "ROM.8.2" in [s.id for s in reply.sources]
    assert "Romanos 8:2" in model.prompts[1][-1].content or any("Romanos 8:2" in m.content for m in model.prompts[1])


async def test_without_the_setting_no_proposal_is_asked(make_pastor):
    model = FakeModel("Nada nos afasta do amor de Deus (Romanos 8:2).")
    await make_pastor(model).reply("p2", "o que a Bíblia ensina sobre o amor de Deus que nunca nos deixa?")
    assert len(model.prompts) == 1
