"""Secrets never reach the logs, whatever path an error takes."""

import logging

import httpx
import pytest

from bot.llm.base import LLMError, Message
from bot.llm.openai import OpenAIProvider
from bot.logs import configure

KEY = "sk-live-SECRET-abcdef0123456789"
TOKEN = "987654:AAE-secret-telegram-token-value"


@pytest.fixture()
def masked_logs(capsys):
    configure("DEBUG", secrets=[KEY, TOKEN])
    yield capsys
    configure("WARNING")


def test_known_secrets_and_secret_shapes_are_masked(masked_logs):
    log = logging.getLogger("pastor.test")
    log.error("chave %s e token %s", KEY, TOKEN)
    log.warning("POST https://api.telegram.org/bot111111:ABCdefGHIjklMNOpqrSTUvwxYZ/sendMessage")
    log.info("Authorization: Bearer abcdefghijklmnop123")
    try:
        raise RuntimeError(f"falhou com {KEY}")
    except RuntimeError:
        log.exception("erro inesperado")
    err = masked_logs.readouterr().err
    assert KEY not in err and TOKEN not in err
    assert "ABCdefGHIjklMNOpqrSTUvwxYZ" not in err and "abcdefghijklmnop123" not in err
    assert err.count("***") >= 5 and "RuntimeError" in err


async def test_a_provider_error_path_leaks_no_key(masked_logs, llm_server):
    llm_server.answer({"status": 401, "body": {"error": {"message": f"Incorrect API key provided: {KEY}"}}})
    async with httpx.AsyncClient() as client:
        provider = OpenAIProvider(client, f"{llm_server.url}/v1", KEY, "gpt-test")
        with pytest.raises(LLMError) as info:
            await provider.complete([Message("user", "oi")])
    logging.getLogger("pastor").error("LLM falhou: %s", info.value)
    err = masked_logs.readouterr().err
    assert "LLM falhou" in err and KEY not in err
