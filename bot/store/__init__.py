"""The bot's database (SQLite or PostgreSQL) and its tables: memory, inbox, leases, subscriptions."""
