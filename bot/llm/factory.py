"""The one provider the settings name (or None for `none`): never another one."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from bot.llm.anthropic import AnthropicProvider
from bot.llm.base import LLMProvider
from bot.llm.ollama import OllamaProvider
from bot.llm.openai import OpenAIProvider


class LLMConfigError(RuntimeError):
    """The configured provider lacks a setting it needs."""


def http_client(timeout: float = 60.0) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=10.0))


def _key(settings, name: str) -> str:
    key = getattr(settings, f"{name}_api_key").get_secret_value()
    if not key:
        raise LLMConfigError(f"LLM_PROVIDER={name} precisa de {name.upper()}_API_KEY")
    return key


def _ollama(settings, client: httpx.AsyncClient) -> LLMProvider:
    return OllamaProvider(client, settings.ollama_base_url, settings.ollama_model, settings.ollama_keep_alive)


def _openai_compatible(name: str) -> Callable[..., LLMProvider]:
    def build(settings, client: httpx.AsyncClient) -> LLMProvider:
        key = _key(settings, name)
        return OpenAIProvider(client, getattr(settings, f"{name}_base_url"), key, getattr(settings, f"{name}_model"),
                              name=name)
    return build


def _anthropic(settings, client: httpx.AsyncClient) -> LLMProvider:
    key = _key(settings, "anthropic")
    return AnthropicProvider(client, settings.anthropic_base_url, key, settings.anthropic_model)


# LLM_PROVIDER -> how to build it from the settings; `none` (extractive answers) builds nothing
PROVIDERS: dict[str, Callable[..., LLMProvider | None]] = {
    "none": lambda settings, client: None,
    "ollama": _ollama,
    "openai": _openai_compatible("openai"),
    "groq": _openai_compatible("groq"),
    "anthropic": _anthropic,
}


def create_provider(settings, client: httpx.AsyncClient) -> LLMProvider | None:
    """Build the provider of ``settings.llm_provider``; None means the extractive `none` mode."""
    build = PROVIDERS.get(settings.llm_provider)
    if build is None:
        raise LLMConfigError(f"LLM_PROVIDER desconhecido: {settings.llm_provider}")
    return build(settings, client)
