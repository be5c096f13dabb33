"""Everything a generated answer goes through before anyone reads it (citations, quotes, guard)."""
