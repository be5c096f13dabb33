"""LLM providers behind one small seam (`LLMProvider`), each a thin httpx adapter."""

from bot.llm.base import Completion, LLMError, LLMProvider, Message

__all__ = ["Completion", "LLMError", "LLMProvider", "Message"]
