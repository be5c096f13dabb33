"""Retrieval: hybrid search over the indexed Bible (bm25s + Chroma vectors, fused by RRF)."""
