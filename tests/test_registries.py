"""LLM providers and transcribers are chosen from one registry each, keyed by the setting's value."""

from __future__ import annotations

import typing

import httpx
import pytest

from bot.llm.anthropic import AnthropicProvider
from bot.llm.factory import PROVIDERS, LLMConfigError, create_provider
from bot.llm.ollama import OllamaProvider
from bot.llm.openai import OpenAIProvider
from bot.settings import Settings
from bot.voice.transcription import TRANSCRIBERS, TranscriberConfigError, create_transcriber


def choices(field: str) -> set[str]:
    return set(typing.get_args(Settings.model_fields[field].annotation))


def test_every_setting_value_has_a_builder():
    assert set(PROVIDERS) == choices("llm_provider")
    assert set(TRANSCRIBERS) == choices("transcription_provider")


@pytest.mark.parametrize(("name", "kind"), [("none", type(None)), ("ollama", OllamaProvider),
                                            ("openai", OpenAIProvider), ("groq", OpenAIProvider),
                                            ("anthropic", AnthropicProvider)])
def test_each_provider_is_built_from_its_settings(name, kind):
    settings = Settings(_env_file=None, llm_provider=name, openai_api_key="k", groq_api_key="k",
                        anthropic_api_key="k")
    assert isinstance(create_provider(settings, httpx.AsyncClient()), kind)


@pytest.mark.parametrize("name", ["openai", "groq", "anthropic"])
def test_a_provider_without_its_key_is_a_clear_error(name):
    with pytest.raises(LLMConfigError, match=f"{name.upper()}_API_KEY"):
        create_provider(Settings(_env_file=None, llm_provider=name), httpx.AsyncClient())


def test_transcribers_are_built_from_their_settings():
    client = httpx.AsyncClient()
    assert create_transcriber(Settings(_env_file=None), client) is None
    groq = create_transcriber(Settings(_env_file=None, transcription_provider="groq", groq_api_key="k"), client)
    assert (groq.name, groq.model) == ("groq", "whisper-large-v3-turbo")
    with pytest.raises(TranscriberConfigError, match="TRANSCRIPTION_API_KEY"):
        create_transcriber(Settings(_env_file=None, transcription_provider="openai"), client)
