"""The answer pipeline: `Pastor.reply(chat_id, text) -> Reply`, and what it asks the model for."""
