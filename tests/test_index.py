"""Index lifecycle on a made-up corpus with the real embedder and a real embedded Chroma."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from retrieval.index.builder import BuildInProgress, build_index, build_lock, open_store
from retrieval.index.config import IndexConfig
from retrieval.index.embedders import EmbedderError, create_embedder
from retrieval.index.hnsw_files import fingerprint
from retrieval.index.store import forget_chroma_clients
from retrieval.startup import IndexNotReady, open_retriever
from tests.conftest import MINI_VERSES, mini_usfx


def test_first_build_then_restart_skips_all_work(mini_config, use_embedder):
    first = build_index(mini_config, embedder=use_embedder)
    assert not first.skipped and first.lexical_built
    assert first.vectors_upserted == MINI_VERSES and first.texts_embedded == MINI_VERSES
    manifest = json.loads(mini_config.manifest_path.read_text())
    assert manifest["status"] == "complete"
    assert manifest["embedder"] == {"backend": "use-m3", "model": "universal-sentence-encoder-multilingual-3",
                                    "dimension": 512}
    assert manifest["chunking"] == {"window": mini_config.window, "neighbour_weight": mini_config.neighbour_weight}
    assert len(manifest["corpus"]["sha256"]) == 64 and manifest["format_version"] == 1

    second = build_index(mini_config, embedder=use_embedder)
    assert second.skipped and not second.lexical_built and second.vectors_upserted == 0


def test_changed_verse_rebuilds_only_what_it_affects(mini_config, use_embedder):
    build_index(mini_config, embedder=use_embedder)
    mini_config.corpus_path.write_text(mini_usfx({("PRO", 6, 2): "O preguiçoso dorme e a fome chega."}))
    report = build_index(mini_config, embedder=use_embedder)
    assert report.lexical_built
    assert report.texts_embedded == 1
    # the verse and its neighbour inside the window (PRO 6 has two verses)
    assert report.vectors_upserted == (2 if mini_config.window else 1)
    retriever = open_retriever(mini_config, embedder=use_embedder)
    assert retriever.search("o que a Bíblia diz sobre a fome do preguiçoso?", k=1).hits[0].id == "PRO.6.2"


def test_changed_window_rebuilds_vectors_from_the_cache(mini_config, use_embedder):
    build_index(mini_config, embedder=use_embedder)
    wider = type(mini_config)(**{**mini_config.__dict__, "window": 2})
    report = build_index(wider, embedder=use_embedder)
    assert report.vectors_upserted == MINI_VERSES and report.texts_embedded == 0 and not report.lexical_built


def test_different_embedder_replaces_the_vector_space(mini_config, use_embedder, minilm_path):
    build_index(mini_config, embedder=use_embedder)
    other = type(mini_config)(**{**mini_config.__dict__, "embedding_backend": "sentence-transformers",
                                 "embedding_model": minilm_path})
    with pytest.raises(IndexNotReady, match="outro embedder"):
        open_retriever(other)
    report = build_index(other)
    assert report.vectors_upserted == MINI_VERSES and not report.lexical_built
    store = open_store(other)
    assert store.identity()["backend"] == "sentence-transformers" and store.identity()["dimension"] == 384
    assert store.count() == MINI_VERSES
    retriever = open_retriever(other)
    assert retriever.search("love your enemies inimigos", k=3).status == "ok"
    with pytest.raises(IndexNotReady, match="outro embedder"):
        open_retriever(mini_config, embedder=use_embedder)


class FailingEmbedder:
    """Our own Embedder seam, failing after the first call (a build killed midway)."""

    def __init__(self, real):
        self.identity = real.identity
        self.real = real
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        if self.calls > 1:
            raise KeyboardInterrupt("interrompido")
        return self.real.embed(texts)


def test_interrupted_build_is_never_served_and_the_next_build_finishes(mini_config, use_embedder, monkeypatch):
    build_index(mini_config, embedder=use_embedder)
    mini_config.corpus_path.write_text(mini_usfx({("ROM", 8, 1): "um texto novo", ("MAT", 5, 1): "outro novo"}))
    monkeypatch.setattr("retrieval.index.documents.EmbeddingCache.ensure",
                        lambda self, texts, embedder, batch=1, log=None: _ensure_one_by_one(self, texts, embedder))
    with pytest.raises(KeyboardInterrupt):
        build_index(mini_config, embedder=FailingEmbedder(use_embedder))
    with pytest.raises(IndexNotReady, match="não terminou"):
        open_retriever(mini_config, embedder=use_embedder)
    monkeypatch.undo()
    report = build_index(mini_config, embedder=use_embedder)
    assert not report.skipped and "a última construção não terminou" in report.reasons
    rebuilt = open_retriever(mini_config, embedder=use_embedder)
    assert rebuilt.search("qual versículo fala de um texto novo?", k=1).hits[0].id == "ROM.8.1"


def _ensure_one_by_one(cache, texts, embedder):
    from retrieval.index.documents import text_key

    missing = [t for t in dict.fromkeys(texts) if text_key(t) not in cache.vectors]
    for text in missing:
        cache.vectors[text_key(text)] = embedder.embed([text])[0]
    return len(missing)


def test_second_concurrent_build_is_refused(mini_config, use_embedder):
    with build_lock(mini_config.index_dir):
        result = {}

        def other():
            try:
                build_index(mini_config, embedder=use_embedder)
            except BuildInProgress as error:
                result["error"] = str(error)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert "já está em andamento" in result["error"]


def test_missing_and_corrupt_index_are_reported(mini_config, use_embedder):
    with pytest.raises(IndexNotReady, match="inexistente"):
        open_retriever(mini_config, embedder=use_embedder)
    build_index(mini_config, embedder=use_embedder)
    mini_config.manifest_path.write_text("{ não é json")
    with pytest.raises(IndexNotReady, match="manifesto ilegível"):
        open_retriever(mini_config, embedder=use_embedder)
    report = build_index(mini_config, embedder=use_embedder)
    assert not report.skipped
    (mini_config.lexical_dir / "params.index.json").unlink()
    with pytest.raises(IndexNotReady, match="BM25"):
        open_retriever(mini_config, embedder=use_embedder)
    assert build_index(mini_config, embedder=use_embedder).lexical_built
    open_store(mini_config).delete([open_store(mini_config).all_ids().pop()])
    with pytest.raises(IndexNotReady, match="vetores"):
        open_retriever(mini_config, embedder=use_embedder)
    report = build_index(mini_config, embedder=use_embedder)
    assert report.vectors_upserted == MINI_VERSES


def test_corpus_changed_since_build_is_reported(mini_config, use_embedder):
    build_index(mini_config, embedder=use_embedder)
    mini_config.corpus_path.write_text(mini_usfx({("PSA", 23, 1): "mudou"}))
    with pytest.raises(IndexNotReady, match="mudou"):
        open_retriever(mini_config, embedder=use_embedder)


def test_chroma_never_runs_its_own_embedding_function(mini_config, use_embedder):
    build_index(mini_config, embedder=use_embedder)
    store = open_store(mini_config)
    assert store._collection._embedding_function is None
    with pytest.raises(Exception):  # noqa: B017 - chromadb raises ValueError or a network error, by version
        store._collection.add(ids=["x"], documents=["texto sem vetor"])  # would need an embedding function


def test_embedder_that_cannot_load_is_an_error_not_a_fallback(tmp_path):
    with pytest.raises(EmbedderError, match="não foi possível carregar"):
        create_embedder("sentence-transformers", str(tmp_path / "modelo-inexistente"))
    with pytest.raises(EmbedderError, match="EMBEDDING_MODEL"):
        create_embedder("sentence-transformers", "")
    with pytest.raises(EmbedderError, match="desconhecido"):
        create_embedder("hash", "")


def test_a_serving_process_runs_every_blas_product_on_one_thread():
    import subprocess
    import sys

    script = ("import json, numpy, threadpoolctl\n"
              "from retrieval.index.embedders import available_cores, one_blas_thread\n"
              "blas = lambda: [i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']\n"
              "before = blas(); one_blas_thread()\n"
              "print(json.dumps({'cores': available_cores(), 'before': before, 'after': blas()}))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    out = json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                    check=True, cwd=Path(__file__).resolve().parent.parent).stdout)
    assert out["after"] and set(out["after"]) == {1}
    if out["cores"] > 1:  # without it, OpenBLAS takes every core
        assert max(out["before"]) > 1


def test_use_embedder_vectors_are_normalised_and_threads_follow_cores(use_embedder, monkeypatch):
    from retrieval.index.embedders import available_cores, blas_threads

    vectors = use_embedder.embed(["não temas", "amai os inimigos"])
    assert vectors.shape == (2, 512) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert use_embedder._model.threads == 1  # a query is one short text: one BLAS thread (docs/performance.md)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert blas_threads() == available_cores()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a shared machine, or one test worker per core
    assert blas_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "99")
    assert blas_threads() == available_cores()


def test_configured_topics_that_cannot_be_read_stop_the_start(mini_config, use_embedder, tmp_path):
    build_index(mini_config, embedder=use_embedder)
    broken = type(mini_config)(**{**mini_config.__dict__, "topics_path": tmp_path / "sem-topicos.tsv"})
    with pytest.raises(IndexNotReady, match="TOPICS_PATH"):
        open_retriever(broken, embedder=use_embedder)


def test_unreachable_chroma_server_is_an_error(mini_config):
    from retrieval.index.store import StoreError

    unreachable = type(mini_config)(**{**mini_config.__dict__, "chroma_url": "http://127.0.0.1:9"})
    with pytest.raises(StoreError, match="127.0.0.1:9"):
        open_store(unreachable)


def test_an_unreadable_local_store_is_rebuilt_not_a_traceback(mini_config, use_embedder):
    build_index(mini_config, embedder=use_embedder)
    (mini_config.chroma_dir / "chroma.sqlite3").write_bytes(b"\x00garbage" * 512)
    with pytest.raises(IndexNotReady, match="Chroma"):
        open_retriever(mini_config, embedder=use_embedder)
    lines: list[str] = []
    report = build_index(mini_config, embedder=use_embedder, log=lines.append)
    assert any("ilegível" in line for line in lines) and report.vectors_upserted == 14
    assert open_retriever(mini_config, embedder=use_embedder).search("Salmo 23:1").hits


def _made_up_psalter(path, chapters: int = 60, verses: int = 20) -> None:
    """A made-up book large enough (1,200 verses) for Chroma to write its HNSW files to disk."""
    import random

    words = "amor paz fé esperança graça luz caminho verdade vida pão água pastor rocha refúgio força".split()
    rng = random.Random(7)
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<usfx>', '<book id="PSA">']
    for c in range(1, chapters + 1):
        parts.append(f'<c id="{c}"/><p>')
        parts += [f'<v id="{v}"/>Palavra {c}.{v}: {" ".join(rng.choice(words) for _ in range(8))}.<ve/>'
                  for v in range(1, verses + 1)]
        parts.append("</p>")
    path.write_text("\n".join([*parts, "</book>", "</usfx>\n"]), encoding="utf-8")


@pytest.fixture(scope="module")
def psalter_index(tmp_path_factory, use_embedder) -> IndexConfig:
    """The made-up psalter, indexed once; each test damages a copy of its data dir."""
    root = tmp_path_factory.mktemp("psalter")
    _made_up_psalter(root / "salterio.usfx.xml")
    config = IndexConfig(corpus_path=root / "salterio.usfx.xml", data_dir=root / "data")
    build_index(config, embedder=use_embedder)
    forget_chroma_clients()
    return config


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["header.bin:truncate", "data_level0.bin:garbage", "data_level0.bin:truncate",
                                    "link_lists.bin:zeros"])  # zeroed link lists make Chroma's reader segfault
def test_corrupt_hnsw_files_are_detected_and_rebuilt(tmp_path, psalter_index, use_embedder, damage):
    shutil.copytree(psalter_index.data_dir, tmp_path / "data")
    config = IndexConfig(corpus_path=psalter_index.corpus_path, data_dir=tmp_path / "data")
    segment = next(p for p in config.chroma_dir.iterdir() if p.is_dir())
    name, how = damage.split(":")
    target = segment / name
    size = target.stat().st_size
    damaged = {"garbage": b"\xff" * size, "zeros": bytes(size), "truncate": target.read_bytes()[: size // 3]}
    target.write_bytes(damaged[how])
    forget_chroma_clients()
    with pytest.raises(IndexNotReady, match="não responde a uma busca|não encontra|derrubou"):
        open_retriever(config, embedder=use_embedder)  # counts still match: only a search reveals it
    lines: list[str] = []
    report = build_index(config, embedder=use_embedder, log=lines.append)
    assert any("ilegível" in line for line in lines) and report.vectors_upserted == 1200
    assert open_retriever(config, embedder=use_embedder).search("amor e paz").hits
    proven = json.loads((config.index_dir / "vectors-proven.json").read_text())["files"]
    assert proven == fingerprint(config.chroma_dir) and any(f.endswith("/data_level0.bin") for f in proven)


def test_a_data_dir_restored_elsewhere_is_the_same_index_not_rebuilt(mini_config, use_embedder, tmp_path):
    build_index(mini_config, embedder=use_embedder)
    manifest = json.loads(mini_config.manifest_path.read_text())
    assert manifest["store"]["location"] == "index/chroma"  # relative to the data dir, never absolute
    forget_chroma_clients()
    restored = tmp_path / "backup" / "data"
    shutil.copytree(mini_config.data_dir, restored)
    shutil.rmtree(mini_config.data_dir)
    moved = IndexConfig(corpus_path=mini_config.corpus_path, data_dir=restored)
    again = build_index(moved, embedder=use_embedder)
    assert again.skipped and again.vectors_upserted == 0
    assert open_retriever(moved, embedder=use_embedder).store.count() == MINI_VERSES


def test_setting_paths_are_relative_to_the_project_not_the_working_directory(tmp_path, monkeypatch):
    from bot.settings import Settings
    from corpus.settings import PROJECT

    for name in ("TOPICS_PATH", "PEOPLE_PATH", "CORPUS_PATH", "DATA_DIR", "CRISIS_MODEL_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # the bot started from another folder
    settings = Settings(_env_file=None)
    assert settings.topics_path == str((PROJECT / "../shared/data/openbible-topic-votes.tsv").resolve())
    assert settings.corpus_path == (PROJECT / "../shared/corpus/por-blivre.usfx.xml").resolve()
    assert settings.data_dir == PROJECT / "data" and settings.people_path.startswith(str(PROJECT.parent))
    assert Settings(_env_file=None, topics_path="").topics_path == ""  # empty still disables
    assert Settings(_env_file=None, data_dir="/srv/pastor").data_dir.as_posix() == "/srv/pastor"
