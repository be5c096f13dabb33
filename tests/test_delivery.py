"""The delivery policy and per-chat rate limiting: pure parts, exact expectations."""

from __future__ import annotations

import pytest

from bot.delivery import DeliveryError, DeliveryPolicy
from bot.ratelimit import ChatRateLimit


def test_waits_honour_retry_after_and_are_capped():
    policy = DeliveryPolicy(backoff=1.0, cap=20.0)
    assert [policy.wait(n, DeliveryError("x")) for n in range(6)] == [1.0, 2.0, 4.0, 8.0, 16.0, 20.0]
    assert policy.wait(0, DeliveryError("429", retry_after=3)) == 3
    assert policy.wait(0, DeliveryError("429", retry_after=3600)) == 20.0  # never hold a chat for an hour


async def test_transient_failures_are_retried_then_raised_permanent_ones_at_once():
    waits: list[float] = []

    async def sleep(seconds):
        waits.append(seconds)

    calls = []

    async def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise DeliveryError("503")

    await DeliveryPolicy(attempts=4).send(flaky, sleep)
    assert len(calls) == 3 and waits == [1.0, 2.0]

    async def refused():
        calls.append(1)
        raise DeliveryError("400 chat not found", permanent=True)

    calls.clear()
    with pytest.raises(DeliveryError):
        await DeliveryPolicy(attempts=4).send(refused, sleep)
    assert len(calls) == 1

    async def down():
        calls.append(1)
        raise DeliveryError("429", retry_after=1)

    calls.clear()
    with pytest.raises(DeliveryError):
        await DeliveryPolicy(attempts=3).send(down, sleep)
    assert len(calls) == 3


def test_rate_limit_counts_per_chat_and_forgets_idle_chats():
    now = [0.0]
    limit = ChatRateLimit(per_minute=2, clock=lambda: now[0])
    assert [limit.wait_for("a"), limit.wait_for("a"), limit.wait_for("b")] == [0.0, 0.0, 0.0]
    assert limit.wait_for("a") == 60.0
    for n in range(1000):
        limit.wait_for(f"chat-{n}")
    assert len(limit) == 1002
    now[0] = 200.0
    assert limit.wait_for("c") == 0.0
    assert len(limit) == 1  # a hundred thousand chats seen yesterday cost nothing today
