"""The `/status` text: index health, the LLM actually in use and whether it answers, uptime, errors."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

from bot.llm.base import LLMError
from bot.store.outage import StorageUnavailable
from bot.voice.transcription import TranscriptionError
from retrieval.status import index_status


def _duration(seconds: float) -> str:
    minutes, _ = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h {minutes}min" if days else f"{hours}h {minutes}min"


async def status_text(app, full: bool = True) -> str:
    """Plain Portuguese lines; never a secret. Paths, errors and the backlog only when ``full`` (admins)."""
    llm = app.pastor.llm
    probe_error = None
    if llm is not None:
        try:
            await llm.probe()
        except LLMError as error:
            probe_error = error
    if not full:
        return _short(await asyncio.to_thread(app.ready), app, llm, probe_error)
    lines = ["Estado do Pastor Online", ""]
    lines += index_status(app.index_config, app.retriever).lines()
    if llm is None:
        lines.append("modelo de linguagem: nenhum (LLM_PROVIDER=none: respostas só com os versículos)")
    else:
        probe = "respondeu agora" if probe_error is None else \
            f"NÃO respondeu ({probe_error.kind}{f', HTTP {probe_error.status}' if probe_error.status else ''})"
        lines.append(f"modelo de linguagem: {llm.name} · {llm.model} · {probe}")
        memory = await _model_memory(app, llm)
        if memory:
            lines.append(memory)
    lines.append(await _voice_line(app))
    db = app.memory.db
    try:  # store calls in the database's threads; a database away is said, never waited for
        counts = await db.call(app.memory.subscriptions.count)
        pending, oldest = await db.call(app.memory.inbox.backlog)
    except StorageUnavailable as error:
        counts, pending, oldest, away = None, None, 0.0, str(error)
    lines.append(_daily_line(app, counts))
    lines.append(_screening_line(app))
    lines.append(f"banco: {db.describe()} · réplica {app.replica}" + (f" · INDISPONÍVEL ({away})" if pending is None
                                                                       else ""))
    waiting = f" (a mais antiga há {int(oldest)} s)" if pending else ""
    lines.append(f"mensagens aguardando entrega: {'desconhecido' if pending is None else pending}{waiting}")
    lines.append(f"no ar há: {_duration(time.time() - app.started_at)}")
    errors = app.errors.recent()
    lines.append(f"erros recentes: {len(errors)}" + (f" (último: {errors[-1]})" if errors else ""))
    return "\n".join(lines)


CHANNEL_NAMES = {"telegram": "Telegram", "whatsapp": "WhatsApp"}


def _screening_line(app) -> str:
    screener = app.pastor.screener
    if not screener.semantic:
        return "triagem de crise: só padrões (sem modelo semântico)"
    r = screener.model.report
    return (f"triagem de crise: padrões + modelo semântico ({r['exemplars']} exemplos; validação cruzada: "
            f"sensibilidade {r['recall']:.2f}, falsos alarmes {r['false_alarms']:.2f})")


def _daily_line(app, counts: dict[str, int] | None) -> str:
    """Subscriptions per channel (None: the database is away) and the last round of the verse of the day."""
    total = ", ".join(f"{n} no {CHANNEL_NAMES.get(channel, channel)}" for channel, n in sorted((counts or {}).items()))
    total = "desconhecidas (banco indisponível)" if counts is None else total or "nenhuma"
    last = getattr(getattr(app, "daily_round", None), "last_run", {})
    zone = app.words.timezone if getattr(app, "words", None) else None
    when = (f"última rodada às {datetime.fromtimestamp(last['at'], zone):%H:%M}, {last['queued']} envio(s)"
            if last else "rodada ainda não executada")
    return f"versículo do dia: inscrições: {total} · {when}"


async def _voice_line(app) -> str:
    voice = getattr(app, "voice", None)
    if voice is None:
        return "áudios: não transcritos (TRANSCRIPTION_PROVIDER=none: a pessoa é convidada a escrever)"
    transcriber = voice.transcriber
    try:
        await transcriber.probe()
        answers = "respondeu agora"
    except TranscriptionError as error:
        answers = f"NÃO respondeu ({error.kind}{f', HTTP {error.status}' if error.status else ''})"
    return (f"áudios: {transcriber.name} · {transcriber.model} · {answers} · até {voice.max_seconds} s")


async def _model_memory(app, llm) -> str:
    """For a local model: whether it is loaded now, and how the warm-up at start went."""
    loaded = await llm.loaded()
    if loaded is None:
        return ""
    warm = app.warm_up
    if "seconds" in warm:
        detail = f"aquecido em {warm['seconds']:.1f} s ao iniciar".replace(".", ",")
    elif "error" in warm:
        detail = f"o aquecimento ao iniciar falhou: {warm['error']}"
    else:
        detail = "aquecimento ao iniciar ainda em andamento"
    return f"modelo na memória: {'sim' if loaded else 'não'} ({detail})"


def _short(checks: dict, app, llm, probe_error) -> str:
    """What anyone may see: whether the pastor can answer now (``checks``: /readyz's), without details of the server."""
    ready = app.retriever is not None and all(v is True for v in checks.values())
    lines = ["Estado do Pastor Online", "",
             "texto bíblico: pronto" if ready else "texto bíblico: indisponível no momento"]
    if llm is None:
        lines.append("respostas: só com os versículos encontrados")
    else:
        lines.append("respostas: funcionando" if probe_error is None
                     else "respostas: o modelo de linguagem não está respondendo agora; tente mais tarde")
    return "\n".join(lines)
