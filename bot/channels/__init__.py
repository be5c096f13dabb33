"""Channels: Telegram, WhatsApp and the console, all calling the same `Pastor`."""
