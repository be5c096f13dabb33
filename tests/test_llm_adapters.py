"""Each LLM adapter against a loopback server speaking its provider's real protocol."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from bot.llm.anthropic import AnthropicProvider
from bot.llm.base import LLMError, Message
from bot.llm.ollama import OllamaProvider
from bot.llm.openai import OpenAIProvider

KEY = "sk-test-SECRET-0123456789"
MESSAGES = [Message("system", "regras"), Message("user", "oi"), Message("assistant", "olá"),
            Message("user", "estou com medo")]


def make(kind: str, url: str, client: httpx.AsyncClient):
    if kind == "ollama":
        return OllamaProvider(client, url, "qwen2.5:1.5b")
    if kind == "openai":
        return OpenAIProvider(client, f"{url}/v1", KEY, "gpt-test")
    if kind == "groq":
        return OpenAIProvider(client, f"{url}/v1", KEY, "llama-test", name="groq")
    return AnthropicProvider(client, url, KEY, "claude-test")


PROVIDERS = ["ollama", "openai", "groq", "anthropic"]


@pytest.fixture()
async def client():
    async with httpx.AsyncClient(timeout=httpx.Timeout(2.0)) as c:
        yield c


def no_sleep(waits):
    async def sleep(seconds):
        waits.append(seconds)
    return sleep


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_normal_stream_and_wire_format(kind, llm_server, client):
    llm_server.answer({"chunks": ["Não ", "temas, ", "Deus está contigo."]})
    provider = make(kind, llm_server.url, client)
    completion = await provider.complete(MESSAGES, max_tokens=123, temperature=0.2)
    assert completion.text == "Não temas, Deus está contigo."
    assert (completion.input_tokens, completion.output_tokens) == (42, 7)
    request = llm_server.requests[-1]
    body, headers = request["json"], {k.lower(): v for k, v in request["headers"].items()}
    assert body["stream"] is True and body["model"] == provider.model
    if kind == "ollama":
        assert request["path"] == "/api/chat" and body["options"]["num_predict"] == 123
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    elif kind in ("openai", "groq"):
        assert request["path"] == "/v1/chat/completions" and body["max_tokens"] == 123
        assert headers["authorization"] == f"Bearer {KEY}"
    else:
        assert request["path"] == "/v1/messages" and body["max_tokens"] == 123
        assert headers["x-api-key"] == KEY and headers["anthropic-version"] == "2023-06-01"
        assert body["system"] == "regras" and [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_error_in_mid_stream(kind, llm_server, client):
    llm_server.answer({"chunks": ["Começo ", "e fim"], "error_after": 1})
    with pytest.raises(LLMError) as info:
        await make(kind, llm_server.url, client).complete(MESSAGES)
    assert info.value.kind == "erro no meio da resposta"
    assert len(llm_server.requests) == 1  # text had arrived: no silent retry that would duplicate it


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_truncated_stream(kind, llm_server, client):
    llm_server.answer({"chunks": ["Uma resposta pela metade"], "truncate": True})
    with pytest.raises(LLMError, match="interrompida"):
        await make(kind, llm_server.url, client).complete(MESSAGES)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_429_honours_retry_after_then_succeeds(kind, llm_server, client):
    llm_server.answer({"status": 429, "headers": {"Retry-After": "1.5"}}, {"chunks": ["Paz."]})
    provider = make(kind, llm_server.url, client)
    waits = []
    provider.sleep = no_sleep(waits)
    completion = await provider.complete(MESSAGES)
    assert completion.text == "Paz." and completion.attempts == 2
    assert waits == [1.5] and len(llm_server.requests) == 2


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_retries_are_bounded(kind, llm_server, client):
    status = 529 if kind == "anthropic" else 503
    llm_server.answer({"status": status})
    provider = make(kind, llm_server.url, client)
    waits = []
    provider.sleep = no_sleep(waits)
    with pytest.raises(LLMError) as info:
        await provider.complete(MESSAGES)
    assert info.value.status == status and len(llm_server.requests) == 3 and len(waits) == 2


async def test_retry_after_too_long_is_an_error_not_a_wait(llm_server, client):
    llm_server.answer({"status": 429, "headers": {"Retry-After": "3600"}})
    provider = make("openai", llm_server.url, client)
    provider.sleep = no_sleep([])
    with pytest.raises(LLMError) as info:
        await provider.complete(MESSAGES)
    assert info.value.status == 429 and "Rate limit reached" in str(info.value)
    assert len(llm_server.requests) == 1


async def test_client_errors_are_not_retried(llm_server, client):
    llm_server.answer({"status": 404, "body": {"error": "model 'qwen9' not found"}})
    with pytest.raises(LLMError, match="not found"):
        await make("ollama", llm_server.url, client).complete(MESSAGES)
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_timeout(kind, llm_server):
    llm_server.answer({"chunks": ["tarde"], "delay": 1.0})
    async with httpx.AsyncClient(timeout=httpx.Timeout(0.2)) as slow:
        with pytest.raises(LLMError, match="tempo esgotado"):
            await make(kind, llm_server.url, slow).complete(MESSAGES)


async def test_unreachable_provider(client):
    with pytest.raises(LLMError, match="falha de rede"):
        await make("ollama", "http://127.0.0.1:9", client).complete(MESSAGES)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_keys_never_reach_errors_or_logs(kind, llm_server, client, caplog):
    caplog.set_level(logging.DEBUG)
    llm_server.answer({"status": 401, "body": {"error": {"message": "Incorrect API key provided"}}})
    with pytest.raises(LLMError) as info:
        await make(kind, llm_server.url, client).complete(MESSAGES)
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert KEY not in caplog.text


async def test_concurrent_calls_each_get_their_own_token_counts(llm_server, client):
    # ten chats at once on one adapter, all answered at the same moment: a shared "last usage" would mix them up
    llm_server.answer(*[{"chunks": [f"r{n}"], "usage": (n, 10 * n), "delay": 0.3 - 0.01 * n} for n in range(10)])
    provider = OllamaProvider(client, llm_server.url, "m")
    messages = [Message("user", "oi")]
    completions = []
    for _ in range(10):  # requests reach the server in this order
        completions.append(asyncio.create_task(provider.complete(messages)))
        await asyncio.sleep(0.01)
    for completion in await asyncio.gather(*completions):
        n = int(completion.text[1:])
        assert (completion.input_tokens, completion.output_tokens) == (n, 10 * n)


async def test_each_reply_carries_its_own_timings(make_pastor):
    from tests.fakes.model import FakeModel

    pastor = make_pastor(FakeModel("Ele cuida de ti (Salmos 23:1)."))
    replies = await asyncio.gather(*[pastor.reply(f"t{n}", "o Senhor cuida de mim?") for n in range(12)])
    assert len({id(r.timings) for r in replies}) == 12
    assert all(r.timings["total"] >= r.timings.get("retrieval", 0) > 0 for r in replies)
