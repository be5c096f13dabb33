"""The `/status` text: index health, the LLM actually in use and whether it answers, uptime, errors."""

from __future__ import annotations

import time

from bot.llm.base import LLMError
from retrieval.status import index_status


def _duration(seconds: float) -> str:
    minutes, _ = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h {minutes}min" if days else f"{hours}h {minutes}min"


async def status_text(app) -> str:
    """Plain Portuguese lines; never a secret."""
    config = app.index_config
    lines = ["Estado do Pastor Online", ""]
    lines += index_status(config, app.retriever).lines()
    llm = app.pastor.llm
    if llm is None:
        lines.append("modelo de linguagem: nenhum (LLM_PROVIDER=none: respostas só com os versículos)")
    else:
        try:
            await llm.probe()
            probe = "respondeu agora"
        except LLMError as error:
            probe = f"NÃO respondeu ({error.kind}{f', HTTP {error.status}' if error.status else ''})"
        lines.append(f"modelo de linguagem: {llm.name} · {llm.model} · {probe}")
    lines.append(f"no ar há: {_duration(time.time() - app.started_at)}")
    errors = app.errors.recent()
    lines.append(f"erros recentes: {len(errors)}" + (f" (último: {errors[-1]})" if errors else ""))
    return "\n".join(lines)
