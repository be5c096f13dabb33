"""Caches, the evidence floor and the topical prior, on inputs made up here."""

import numpy as np
import pytest

from corpus import Bible, Verse
from retrieval.cache import TTLCache
from retrieval.evidence import EvidenceFloor, EvidenceSignals, faith_word_count
from retrieval.understand.topics import TopicIndex, TopicsError


def test_ttl_cache_expiry_lru_and_counters():
    now = [0.0]
    cache = TTLCache(maxsize=2, ttl=10, clock=lambda: now[0])
    assert cache.get("a") is None
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)  # evicts "b", the least recently used
    assert cache.get("b") is None and cache.get("c") == 3
    now[0] = 10.5
    assert cache.get("a") is None
    assert cache.stats() == {"hits": 2, "misses": 3, "size": 1}


def signals(**values):
    base = dict(dense_top=0.0, dense_margin=0.0, lexical_terms=0, lexical_best=0, concepts=0, faith_words=0)
    return EvidenceSignals(**{**base, **values})


def test_floor_decisions():
    floor = EvidenceFloor()
    assert not floor.has_evidence(signals(dense_top=0.33, lexical_terms=2, lexical_best=1))  # off-topic
    assert floor.has_evidence(signals(dense_top=0.36, concepts=1))  # a pastoral concept
    assert floor.has_evidence(signals(dense_top=0.2, concepts=1, lexical_terms=1, lexical_best=1))  # "luto" alone
    assert not floor.has_evidence(signals(dense_top=0.2, concepts=1, lexical_terms=3, lexical_best=1))
    assert floor.has_evidence(signals(dense_top=0.6))  # a very close verse
    assert floor.has_evidence(signals(dense_top=0.40, lexical_terms=4, lexical_best=3))  # a quote
    assert not floor.has_evidence(signals(dense_top=0.40, lexical_terms=2, lexical_best=2))
    # inside a scope: the scope's verses speak of the theme, by its words or its topical verses
    assert floor.has_evidence(signals(dense_top=0.2, theme_words=1, theme_found=1, scoped=True))
    assert not floor.has_evidence(signals(dense_top=0.2, lexical_terms=1, lexical_best=1))
    assert not floor.has_evidence(signals(dense_top=0.2, theme_words=2, theme_found=1, scoped=True))
    assert floor.has_evidence(signals(dense_top=0.2, concepts=1, scope_topics=5, scoped=True))
    assert not floor.has_evidence(signals(dense_top=0.2, concepts=1, scope_topics=1, scoped=True))
    assert not floor.has_evidence(signals(dense_top=0.2, scoped=True))  # no theme word occurs in the Bible
    assert faith_word_count("o que a Bíblia diz? bem-aventurados") == 2


def test_floor_is_not_trusted_for_other_embedders():
    floor = EvidenceFloor.for_embedder({"backend": "sentence-transformers", "model": "x", "dimension": 384})
    assert not floor.calibrated
    assert not floor.has_evidence(signals(dense_top=0.99))  # a foreign similarity scale proves nothing
    assert floor.has_evidence(signals(concepts=1))
    assert EvidenceFloor.for_embedder({"backend": "use-m3"}).calibrated


def tiny_bible():
    verses = [Verse("PSA", 23, n, f"verso {n}") for n in range(1, 7)] + [Verse("JHN", 3, n, f"v {n}") for n in (16, 17)]
    return Bible.from_verses(verses, name="teste")


def test_topics_load_rank_and_interleave(tmp_path):
    tsv = tmp_path / "topics.tsv"
    tsv.write_text(
        "Topic\tStart Verse ID\tEnd Verse ID\tVotes\n"
        "fear\t19023004\t\t50\n"
        "fear\t19023001\t19023003\t100\n"  # a range of three verses
        "fear\t43003016\t\t-5\n"  # negative votes are ignored
        "love\t43003016\t\t80\n"
        "love\t43003017\t\t40\n"
        "love\t01001001\t\t99\n"  # not in this Bible: dropped
        "grief\t19023006\t\t10\n",
        encoding="utf-8")
    bible = tiny_bible()
    index = TopicIndex.load(tsv, bible, {"fear", "love"})
    ids = lambda positions: [bible.verses[p].id for p in positions]  # noqa: E731
    assert ids(p for p, _ in index.ranking(["fear"])) == ["PSA.23.1", "PSA.23.2", "PSA.23.3", "PSA.23.4"]
    assert index.ranking(["fear"])[3][1] == pytest.approx(0.5)
    assert ids(index.interleaved([["fear"], ["love"]])) == [
        "PSA.23.1", "JHN.3.16", "PSA.23.2", "JHN.3.17", "PSA.23.3", "PSA.23.4"]
    assert "grief" not in index.topics and index.missing(["fear", "grief"]) == ["grief"]
    # how well known a verse is counts every topic's votes, wanted or not, on a range's first verse
    psalm = [bible.position("PSA", 23, n) for n in range(1, 7)]
    assert ids(index.best_known(psalm, 3)) == ["PSA.23.1", "PSA.23.4", "PSA.23.6"]
    assert ids(index.best_known([*psalm, bible.position("JHN", 3, 16)], 1)) == ["PSA.23.1"]


def test_topics_missing_file_is_an_error(tmp_path):
    with pytest.raises(TopicsError, match="não foi possível ler"):
        TopicIndex.load(tmp_path / "nada.tsv", tiny_bible())


def test_a_corpus_is_embedded_in_worker_processes_with_the_same_vectors(use_embedder):
    from retrieval.index.embedders import embed_in_batches

    texts = [f"uma frase de teste, a de número {n}" for n in range(40)] + ["outra frase curta"] * 8
    batches = list(embed_in_batches(use_embedder, texts, batch=6))  # 8 batches: worker processes, in order
    assert [len(chunk) for chunk, _ in batches] == [6] * 8
    assert [t for chunk, _ in batches for t in chunk] == texts
    got = np.concatenate([vectors for _, vectors in batches])
    assert np.min(np.sum(got * use_embedder.embed(texts), axis=1)) > 0.9999


def test_an_embedder_without_embed_many_embeds_batch_by_batch():
    from retrieval.index.embedders import embed_in_batches

    class Counting:
        calls: list = []

        def embed(self, texts):
            self.calls.append(len(texts))
            return np.ones((len(texts), 2), dtype=np.float32)

    embedder = Counting()
    assert sum(len(v) for _, v in embed_in_batches(embedder, ["a"] * 5, batch=2)) == 5
    assert embedder.calls == [2, 2, 1]


def test_bank_vectors_are_kept_per_embedder_and_only_new_lines_are_embedded(tmp_path, caplog):
    from retrieval.index import text_vectors
    from retrieval.index.text_vectors import remembered

    asked: list[list[str]] = []

    def embed(texts):  # a vector that depends on the text alone
        asked.append(list(texts))
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)

    bank = ["estou triste", "quero paz", "estou triste"]
    first = remembered(embed, "teste-3", tmp_path)(bank)
    assert asked == [["estou triste", "quero paz"]] and first.shape == (3, 3)
    text_vectors._READ.clear()  # as another process would start: from the file
    edited = remembered(embed, "teste-3", tmp_path)(["quero paz", "uma linha nova", "estou triste"])
    assert asked[1:] == [["uma linha nova"]]
    assert np.array_equal(edited, embed(["quero paz", "uma linha nova", "estou triste"]))
    remembered(embed, "outro-3", tmp_path)(["quero paz"])  # another embedder never reads these vectors
    assert asked[-1] == ["quero paz"]
    assert remembered(embed, "teste-3", None)(["quero paz"]).shape == (1, 3)  # no directory: plain embedding
    (tmp_path / "texts-teste-3.npz").write_bytes(b"corrompido")
    text_vectors._READ.clear()
    assert np.array_equal(remembered(embed, "teste-3", tmp_path)(["quero paz"]), embed(["quero paz"]))
    assert "ilegíveis" in caplog.text


def test_a_last_product_is_computed_once_per_vector_and_never_handed_to_another():
    from retrieval.arrays import BoundedRows

    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    product = BoundedRows.whole(matrix)
    first = np.array([1.0, 0.0, 0.0], np.float32)
    again = product.bounds(first.copy())[0]
    assert again is product.bounds(first)[0]  # the same vector: the product kept, not computed again
    assert again.tolist() == [0.0, 3.0, 6.0, 9.0] and not again.flags.writeable  # shared: nobody may change it
    first[0] = 2.0  # the caller's vector changed in place: a new product, not the kept one
    assert product.bounds(first)[0].tolist() == [0.0, 6.0, 12.0, 18.0]
    assert product.bounds(np.array([0.0, 0.0, 1.0], np.float32))[0].tolist() == [2.0, 5.0, 8.0, 11.0]
    assert product.axes is None and not product.bounds(first)[1].any()  # whole: exact, no slack


def test_bounded_rows_hold_every_dot_within_their_bounds_and_give_the_exact_ones_asked_for():
    from retrieval.arrays import BoundedRows

    rng = np.random.default_rng(3)
    shared = rng.normal(size=(1, 32))  # rows that lean one way, as sentence meanings do
    matrix = shared + 0.3 * rng.normal(size=(300, 32))
    matrix = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
    rows = BoundedRows(matrix, axes=6, whole_below=0)
    assert rows.head.shape == (300, 6) and rows.head.flags.c_contiguous
    for _ in range(20):
        vector = (shared[0] + 0.5 * rng.normal(size=32)).astype(np.float32)
        vector /= np.linalg.norm(vector)
        estimate, slack = rows.bounds(vector)
        exact = matrix @ vector
        assert np.all(estimate - slack <= exact) and np.all(exact <= estimate + slack)
        assert np.median(slack) < 0.5 * np.median(np.abs(exact))  # the axes hold most of the length: tight
        assert rows.bounds(vector.copy())[0] is estimate  # the same message: kept for the banks that share them
        assert np.allclose(rows.exact(vector, np.array([4, 250])), exact[[4, 250]], atol=1e-6)
    tail, head = rows.after(200), rows.first(200, copy=True)
    assert np.shares_memory(tail.matrix, matrix) and not np.shares_memory(head.head, rows.head)
    assert np.allclose(tail.bounds(vector)[0], estimate[200:]) and np.allclose(head.bounds(vector)[0], estimate[:200])
    whole = BoundedRows(matrix[:10])  # small banks are multiplied whole: exact, no slack
    assert whole.axes is None and not whole.bounds(vector)[1].any()
    assert np.allclose(whole.bounds(vector)[0], matrix[:10] @ vector)
