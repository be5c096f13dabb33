"""The one provider the settings name (or None for `none`): never another one."""

from __future__ import annotations

import httpx

from bot.llm.anthropic import AnthropicProvider
from bot.llm.base import LLMProvider
from bot.llm.ollama import OllamaProvider
from bot.llm.openai import OpenAIProvider


class LLMConfigError(RuntimeError):
    """The configured provider lacks a setting it needs."""


def http_client(timeout: float = 60.0) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=10.0))


def create_provider(settings, client: httpx.AsyncClient) -> LLMProvider | None:
    """Build the provider of ``settings.llm_provider``; None means the extractive `none` mode."""
    name = settings.llm_provider
    if name == "none":
        return None
    if name == "ollama":
        return OllamaProvider(client, settings.ollama_base_url, settings.ollama_model, settings.ollama_keep_alive)
    if name in ("openai", "groq"):
        key = getattr(settings, f"{name}_api_key").get_secret_value()
        if not key:
            raise LLMConfigError(f"LLM_PROVIDER={name} precisa de {name.upper()}_API_KEY")
        return OpenAIProvider(client, getattr(settings, f"{name}_base_url"), key, getattr(settings, f"{name}_model"),
                              name=name)
    if name == "anthropic":
        key = settings.anthropic_api_key.get_secret_value()
        if not key:
            raise LLMConfigError("LLM_PROVIDER=anthropic precisa de ANTHROPIC_API_KEY")
        return AnthropicProvider(client, settings.anthropic_base_url, key, settings.anthropic_model)
    raise LLMConfigError(f"LLM_PROVIDER desconhecido: {name}")
