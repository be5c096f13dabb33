"""Prometheus metrics, in a registry of their own (served at /metrics)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from bot.store.outage import StorageUnavailable

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    """What an operator watches: messages, retrieval, caches, LLM calls and tokens, no-evidence, crisis, care team."""

    def __init__(self, registry: CollectorRegistry | None = None):
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.messages = Counter("pastor_messages", "Respostas entregues, por canal e status",
                                ["channel", "status"], registry=r)
        self.retrieval_seconds = Histogram("pastor_retrieval_seconds", "Tempo de busca de versículos", registry=r,
                                           buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
        self.verses = Counter("pastor_verses_returned", "Versículos entregues como fontes", registry=r)
        self.llm_calls = Counter("pastor_llm_calls", "Chamadas ao modelo de linguagem", ["provider", "purpose"],
                                 registry=r)
        self.llm_errors = Counter("pastor_llm_errors", "Falhas do modelo de linguagem", ["provider", "kind"],
                                  registry=r)
        self.llm_seconds = Histogram("pastor_llm_seconds", "Duração das chamadas ao modelo", ["provider"],
                                     registry=r, buckets=(0.25, 0.5, 1, 2, 5, 10, 20, 40, 80))
        self.llm_tokens = Counter("pastor_llm_tokens", "Tokens informados pelo provedor", ["provider", "kind"],
                                  registry=r)
        self.no_evidence = Counter("pastor_no_evidence", "Respostas fixas por falta de evidência", registry=r)
        self.deliveries = Counter("pastor_deliveries", "Mensagens entregues, recusadas ou adiadas, por canal",
                                  ["channel", "result"], registry=r)
        self.crisis = Counter("pastor_crisis", "Mensagens com sinais de crise, por nível e tipo", ["level", "kind"],
                              registry=r)
        self.handoffs = Counter("pastor_care_handoffs", "Casos da equipe pastoral, por canal e evento (offered, "
                                "accepted, declined, requested, alerted, answered, closed)", ["channel", "event"],
                                registry=r)
        self.first_human_reply = Histogram("pastor_care_first_reply_seconds", "Do alerta à equipe até a primeira "
                                           "resposta de uma pessoa", ["channel"], registry=r,
                                           buckets=(30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 43200,
                                                    86400))
        self.transcriptions = Counter("pastor_transcriptions", "Áudios recebidos, por provedor e resultado "
                                      "(ok, empty, too_long, error, download_error)", ["provider", "result"],
                                      registry=r)
        self.task_failures = Counter("pastor_task_failures", "Falhas de tarefas de fundo (varredura, rodada do "
                                     "versículo do dia, retenção, concessões, long polling)", ["task"], registry=r)
        self.storage_unavailable = Counter("pastor_storage_unavailable", "Operações recusadas porque o banco de "
                                           "dados não respondia", ["where"], registry=r)
        self.malformed = Counter("pastor_malformed_updates", "Atualizações e entregas ilegíveis ignoradas, por canal "
                                 "e motivo (json, shape, chat_id, update_id ou o tipo do erro de leitura)",
                                 ["channel", "reason"], registry=r)
        self.transcription_seconds = Histogram("pastor_transcription_seconds", "Duração das transcrições",
                                               ["provider"], registry=r,
                                               buckets=(0.5, 1, 2, 4, 8, 15, 30, 60, 120))

    def watch_caches(self, caches: dict) -> None:
        """Expose hit/miss counters of TTL caches ({"resultados": cache, ...}) at scrape time."""
        self.registry.register(_CacheCollector(caches))

    def watch_outbox(self, inbox) -> None:
        """Expose how many messages wait for delivery and the age of the oldest, at scrape time."""
        self.registry.register(_OutboxCollector(inbox))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _CacheCollector:
    def __init__(self, caches: dict):
        self.caches = caches

    def collect(self):
        family = CounterMetricFamily("pastor_cache", "Acertos e faltas dos caches de busca", labels=["cache", "result"])
        for name, cache in self.caches.items():
            stats = cache.stats()
            family.add_metric([name, "hit"], stats["hits"])
            family.add_metric([name, "miss"], stats["misses"])
        yield family


class _OutboxCollector:
    def __init__(self, inbox):
        self.inbox = inbox

    def collect(self):
        try:
            count, oldest = self.inbox.backlog()
        except StorageUnavailable:  # the database is away: /metrics still answers, without these two
            return
        yield GaugeMetricFamily("pastor_outbox_pending", "Mensagens recebidas ainda não entregues", value=count)
        yield GaugeMetricFamily("pastor_outbox_oldest_seconds", "Idade da mais antiga ainda não entregue",
                                value=oldest)
