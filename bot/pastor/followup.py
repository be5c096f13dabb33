"""Follow-up messages ("e no Antigo Testamento?", "o que mais?") made standalone before retrieval."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable

from bot.llm.base import Completion, LLMError, Message
from bot.pastor.passages import asked_which
from bot.pastor.prompts import rewrite_messages
from bot.store.memory import Turn
from corpus.references import find_references
from corpus.text import fold
from retrieval.understand.chat import normalize_chat
from retrieval.understand.scope import detect_scope

log = logging.getLogger("pastor.followup")

_OPENERS = re.compile(
    r"^(?:e|mas e|entao e|e quanto|e sobre|e no|e na|e nos|e nas|e em|e o|e a|e os|e as|e para|e se|"
    r"o que mais|que mais|mais alguma|mais algum|tem mais|tem outro|tem outra|outro|outra|outros|outras|"
    r"continue|continua|fale mais|me fala mais|fala mais|explique melhor|explica melhor|e ai|e depois)\b"
)
_WORD = re.compile(r"[^\W\d_]+")
MAX_REWRITE_CHARS = 300
MAX_CHOICE_WORDS = 8  # "o irmão de João", "quero saber do filho de Alfeu"


def is_followup(text: str, history: list[Turn]) -> bool:
    """A message that needs the previous turn to make sense."""
    if not any(t.role == "user" for t in history) or find_references(text):
        return False
    folded = fold(normalize_chat(text)).strip(" ?!.")
    return bool(_OPENERS.match(folded)) or len(_WORD.findall(folded)) <= 2


def merge(previous_query: str, followup: str) -> str:
    """Deterministic rewrite: the previous question, without its scope words, then the follow-up."""
    _, without_scope = detect_scope(previous_query)
    return f"{without_scope.rstrip(' ?.!')}? {followup.strip()}"


async def standalone(followup: str, history: list[Turn],
                     complete: Callable[[list[Message]], Awaitable[Completion]] | None) -> tuple[str, bool]:
    """(the standalone question, whether the LLM was called); ``complete`` None means no LLM."""
    previous = next(t.query or t.text for t in reversed(history) if t.role == "user")
    if complete is None:
        return merge(previous, followup), False
    try:
        completion = await complete(rewrite_messages(history, followup))
    except LLMError as error:
        log.warning("reescrita da pergunta falhou (%s); usando a junção determinística", error.kind)
        return merge(previous, followup), True
    rewritten = " ".join(completion.text.strip().strip('"“”\'').split())
    if not rewritten or len(rewritten) > MAX_REWRITE_CHARS or "FONTE" in rewritten.upper():
        return merge(previous, followup), True
    return rewritten, True


def choice(answer: str, history: list[Turn], search: Callable) -> str:
    """After the bot asked which of several people of one name is meant, the question the answer completes
    ("quem foi Tiago? o irmão de João") when it chooses one of them; "" otherwise."""
    last = next((t for t in reversed(history) if t.role == "assistant"), None)
    if last is None or not asked_which(last.text) or len(_WORD.findall(answer)) > MAX_CHOICE_WORDS:
        return ""
    question = merge(next(t.query or t.text for t in reversed(history) if t.role == "user"), answer)
    result = search(question)
    return question if result.mode == "pessoa" and not result.homonyms else ""
