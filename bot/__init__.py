"""Pastor Online: the chatbot process (channels, the answer pipeline, settings)."""
