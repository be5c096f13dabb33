"""The index on disk: its build, manifest, vector stores, embedders and the lexical channel."""
