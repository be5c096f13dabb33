"""An in-process model at the `LLMProvider` seam (like simonw/llm's MockModel): scripted answers, recorded prompts.

For pipeline tests that are about the pastor, not about a provider's wire format (those use the loopback
servers in `tests/fakes/llm.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from bot.llm.base import CallStats, Completion, LLMError, Message


class FakeModel:
    name = "fake"
    model = "fake-1"

    def __init__(self, *answers: str | LLMError):
        self.answers = list(answers) or ["Paz."]
        self.prompts: list[list[Message]] = []

    def _next(self) -> str | LLMError:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    async def stream(self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.3,
                     stats: CallStats | None = None) -> AsyncIterator[str]:
        self.prompts.append(list(messages))
        answer = self._next()
        if isinstance(answer, LLMError):
            raise answer
        if stats is not None:
            stats.input_tokens = sum(len(m.content.split()) for m in messages)
            stats.output_tokens = len(answer.split())
        for paragraph in answer.split("\n\n"):
            yield paragraph + "\n\n"

    async def complete(self, messages: list[Message], *, max_tokens: int = 800,
                       temperature: float = 0.3) -> Completion:
        text = "".join([piece async for piece in self.stream(messages, max_tokens=max_tokens,
                                                             temperature=temperature)])
        return Completion(text.strip(), input_tokens=sum(len(m.content.split()) for m in messages),
                          output_tokens=len(text.split()))

    async def probe(self) -> None:
        return None

    async def warm_up(self) -> float | None:
        return None

    async def loaded(self) -> bool | None:
        return None
