"""Every schema change of the bot's database, in one place, append-only (the model is simonw/llm's migrations.py).

Each migration is a function named ``m<number>_<what>``; it is recorded in ``_migrations`` as
``<number>_<what>`` ("001_initial"), the names databases migrated before this module already hold.
Never edit, rename or reorder an applied migration: add a new one at the end.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.store.database import Database

Migration = Callable[[Database], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(function: Migration) -> Migration:
    """Register ``function`` as the next migration; its number must follow the last one."""
    number, _, what = function.__name__.removeprefix("m").partition("_")
    if not (number.isdigit() and what) or int(number) != len(MIGRATIONS) + 1:
        raise ValueError(f"migração fora de ordem ou mal nomeada: {function.__name__}")
    MIGRATIONS.append((f"{number}_{what}", function))
    return function


def _real(db: Database) -> str:
    return "double precision" if db.kind == "postgresql" else "real"


@migration
def m001_initial(db: Database) -> None:
    """Conversation windows, last sources and processed message ids."""
    real, serial = ("double precision", "bigserial") if db.kind == "postgresql" else ("float", "integer")
    db.execute(f"create table turns (id {serial} primary key, chat_id text, role text, text text, query text, "
               f"status text, created_at {real})")
    db.execute("create index idx_turns_chat_id_id on turns (chat_id, id)")
    db.execute(f"create table sources (chat_id text primary key, query text, verses text, updated_at {real})")
    db.execute(f"create table processed (channel text, message_id text, chat_id text, processed_at {real}, "
               "primary key (channel, message_id))")
    db.execute("create index idx_processed_chat_id on processed (chat_id)")


@migration
def m002_inbox(db: Database) -> None:
    """The inbox replaces the ``processed`` table (duplicate detection now lives there)."""
    seq = "bigserial primary key" if db.kind == "postgresql" else "integer primary key autoincrement"
    real = _real(db)
    db.execute(f"""create table inbox (
        seq {seq}, channel text not null, message_id text not null, chat_id text not null,
        payload text, state text not null, parts text, sent integer not null default 0,
        attempts integer not null default 0, next_attempt_at {real} not null default 0, last_error text,
        received_at {real} not null, updated_at {real} not null, unique (channel, message_id))""")
    db.execute("create index inbox_pending on inbox (state, channel, chat_id, seq)")
    db.execute("drop table if exists processed")


@migration
def m003_inbox_outcome(db: Database) -> None:
    """What the pastor answered is kept with the message, so it is counted when delivered."""
    db.execute("alter table inbox add column outcome text")


@migration
def m004_subscriptions(db: Database) -> None:
    """Daily-verse subscriptions and the word of each day."""
    real = "double precision" if db.kind == "postgresql" else "float"
    db.execute(f"create table subscriptions (channel text, chat_id text, hour integer, minute integer, "
               f"last_date text, created_at {real}, primary key (channel, chat_id))")
    db.execute(f"create table daily_words (date text primary key, verse_ids text, reflection text, created_at {real})")


@migration
def m005_leases(db: Database) -> None:
    """Leases let replicas sharing one database split the work without doubling it."""
    db.execute(f"create table leases (name text primary key, owner text not null, expires_at {_real(db)} not null)")


@migration
def m006_care_mode(db: Database) -> None:
    """One row per chat in care mode (what was seen, how serious, since when)."""
    real = _real(db)
    db.execute(f"create table care_mode (chat_id text primary key, kind text not null, level text not null, "
               f"since {real} not null, updated_at {real} not null, checks integer not null default 0)")


@migration
def m007_care_cases(db: Database) -> None:
    """One row per care case (who, which level and kind, when offered, alerted, first answered, closed)."""
    real = _real(db)
    db.execute(f"""create table care_cases (
        code text primary key, origin text not null unique, channel text not null, chat_id text not null,
        state text not null, level text, kind text, offered_at {real} not null, alerted_at {real},
        first_reply_at {real}, responder text, closed_at {real}, closed_by text, updated_at {real} not null)""")
    db.execute("create index care_cases_chat on care_cases (channel, chat_id, state)")
