"""All configuration, read once from the environment and `.env` into one object."""

from __future__ import annotations

from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator

from corpus.settings import in_project
from retrieval.settings import RetrievalSettings


class Settings(RetrievalSettings):
    """Every setting of the bot (the corpus's and the index's included); built once at the wiring point."""

    llm_provider: Literal["ollama", "openai", "groq", "anthropic", "none"] = "ollama"
    ollama_base_url: str = "http://localhost:11434"
    ollama_model: str = "qwen2.5:1.5b"
    ollama_keep_alive: str = "24h"  # Ollama unloads an idle model after 5 min by default
    openai_base_url: str = "https://api.openai.com/v1"
    openai_api_key: SecretStr = SecretStr("")
    openai_model: str = "gpt-4o-mini"
    groq_base_url: str = "https://api.groq.com/openai/v1"
    groq_api_key: SecretStr = SecretStr("")
    groq_model: str = "llama-3.1-8b-instant"
    anthropic_base_url: str = "https://api.anthropic.com"
    anthropic_api_key: SecretStr = SecretStr("")
    anthropic_model: str = "claude-3-5-haiku-latest"
    llm_timeout: float = Field(default=60.0, gt=0)
    llm_propose_passages: bool = False  # the model proposes passages for Bible questions (checked, then retrieved)
    llm_choose_verses: bool = False  # the model chooses the three most apt verses for a life told (candidates only)

    transcription_provider: Literal["none", "openai", "groq"] = "none"
    transcription_base_url: str = ""  # any OpenAI-compatible /audio/transcriptions (a self-hosted speaches)
    transcription_api_key: SecretStr = SecretStr("")  # defaults to the provider's LLM key
    transcription_model: str = ""  # default per provider
    voice_max_seconds: int = Field(default=180, ge=1)

    telegram_bot_token: SecretStr = SecretStr("")
    telegram_api_base_url: str = "https://api.telegram.org"
    telegram_webhook_url: str = ""
    telegram_webhook_secret: SecretStr = SecretStr("")
    telegram_file_base_url: str = ""  # file downloads; default: TELEGRAM_API_BASE_URL + "/file/bot"

    whatsapp_access_token: SecretStr = SecretStr("")
    whatsapp_app_secret: SecretStr = SecretStr("")
    whatsapp_verify_token: SecretStr = SecretStr("")
    whatsapp_phone_number_id: str = ""
    whatsapp_api_base_url: str = "https://graph.facebook.com/v21.0"
    whatsapp_daily_template: str = ""  # "name:language" of an approved template with one body variable

    timezone: str = "America/Sao_Paulo"  # the day of the verse of the day and the subscribers' times

    http_host: str = "0.0.0.0"
    http_port: int = Field(default=8080, ge=1, le=65535)
    crisis_contacts: str = ""  # the church's own support contacts, named in every crisis reply
    crisis_contacts_replace: bool = False  # true: only CRISIS_CONTACTS, not the country's public services
    crisis_model_dir: str = ""  # where the crisis and answer-guard models trained from their banks are kept
    # (default DATA_DIR/crisis)
    crisis_country: str = "BR"  # whose public services are named when the person's country is unknown
    care_team_chat_id: str = ""  # the care team's Telegram group (alerts, /responder, /encerrar)
    care_team_whatsapp: str = ""  # comma-separated WhatsApp numbers of the care team
    care_team_alert_imminent: bool = False  # alert the team at once on imminent risk, before the person accepts
    retention_days: int = Field(default=30, ge=0)  # 0 keeps conversations until /apagar
    admin_chat_ids: str = ""  # comma-separated: who sees the full /status
    shutdown_grace_seconds: float = Field(default=75.0, ge=0)  # in-flight answers may finish on stop
    chat_lease_seconds: float = Field(default=60.0, ge=1)  # replicas: a dead replica's chats move after this
    log_level: str = "INFO"
    log_json: bool = False

    @field_validator("crisis_model_dir", mode="after")
    @classmethod
    def _bot_paths_in_project(cls, value: str) -> str:
        return in_project(value)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"fuso horário desconhecido: {value!r} (use um nome IANA, ex.: America/Sao_Paulo)") \
                from error
        return value

    @field_validator("crisis_country")
    @classmethod
    def _country_code(cls, value: str) -> str:
        value = value.strip().upper()
        if len(value) != 2 or not value.isalpha():
            raise ValueError(f"CRISIS_COUNTRY deve ser um código de país de duas letras (ex.: BR, PT), não {value!r}")
        return value

    @property
    def admins(self) -> frozenset[str]:
        return frozenset(part.strip() for part in self.admin_chat_ids.split(",") if part.strip())
