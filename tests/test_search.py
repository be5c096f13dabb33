"""Search over the made-up corpus, on embedded Chroma and on a real `chroma run` server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from retrieval.index.builder import build_index
from retrieval.startup import open_retriever
from retrieval.understand.scope import named
from tests.conftest import MINI_VERSES, ROOT
from tests.servers import ChromaServer


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server")).start()
    yield server.url
    server.stop()


@pytest.fixture(params=["embedded", "server", "qdrant"])
def retriever(request, mini_config, use_embedder):
    config = mini_config
    if request.param == "server":
        url = request.getfixturevalue("chroma_server")
        config = type(mini_config)(**{**mini_config.__dict__, "chroma_url": url})
    if request.param == "qdrant":  # qdrant-client's local mode: dense + sparse BM25, fused by the store
        config = type(mini_config)(**{**mini_config.__dict__, "qdrant_url": "local"})
    build_index(config, embedder=use_embedder)
    retriever = open_retriever(config, embedder=use_embedder)
    assert retriever.store.location == config.store_location
    yield retriever
    if request.param == "server":  # leave the shared server empty for the next test
        retriever.store._client.delete_collection("verses")


def test_hybrid_search_finds_by_words_and_by_meaning(retriever):
    result = retriever.search("o que Jesus disse sobre amar os inimigos?", k=3)
    assert result.status == "ok"
    assert result.hits[0].id == "MAT.5.2"
    hit = result.hits[0]
    assert hit.reference == "Mateus 5:2" and hit.text.startswith("Amai os vossos inimigos")
    assert set(hit.ranks) <= {"lexical", "dense", "hybrid"} and hit.ranks
    assert hit.score > result.hits[1].score
    lazy = retriever.search("a formiga e o preguiçoso", k=2)
    assert lazy.hits[0].id == "PRO.6.1"
    assert [v.id for v in lazy.hits[0].merged] == ["PRO.6.2"]  # adjacent matches merge, freeing a slot
    assert lazy.ranked_ids()[:2] == ["PRO.6.1", "PRO.6.2"]
    assert len(lazy.hits) == 2 and lazy.hits[1].id != "PRO.6.2"


def test_scope_filters_both_channels(retriever):
    result = retriever.search("paz", k=10, scope=named("NT"))
    assert result.hits and all(h.id.split(".")[0] in named("NT").books for h in result.hits)
    psalms = retriever.search("não terei medo", k=10, scope=named("PSA"))
    assert psalms.hits and all(h.id.startswith("PSA.") for h in psalms.hits)
    assert result.scope.name == "NT"


def test_explicit_references_are_deterministic(retriever):
    result = retriever.search("o que diz Salmo 23:2-3?", k=10)
    assert result.status == "reference"
    assert [h.id for h in result.hits] == ["PSA.23.2", "PSA.23.3"]
    both = retriever.search("Rm 8:2 e Sl 56:1")
    assert [h.id for h in both.hits] == ["PSA.56.1", "ROM.8.2"]  # canonical order
    missing = retriever.search("Romanos 17:1")
    assert missing.status == "reference_missing" and missing.hits == [] and missing.missing == ["ROM.17.1"]


def run_cli(args, env, stdin=""):
    return subprocess.run([sys.executable, "-m", "retrieval", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **env}, timeout=300)


def test_cli_build_search_jsonl_and_status(mini_config):
    env = {"CORPUS_PATH": str(mini_config.corpus_path), "DATA_DIR": str(mini_config.data_dir),
           "EMBEDDING_BACKEND": "use-m3", "CHROMA_URL": "", "TOPICS_PATH": ""}  # topics name real verses
    built = run_cli(["build"], env)
    assert built.returncode == 0, built.stderr
    assert "índice construído" in built.stdout
    again = run_cli(["build"], env)
    assert "nada mudou" in again.stdout

    lines = "\n".join(json.dumps({"q": q}, ensure_ascii=False)
                      for q in ["amai os inimigos", "Jo 14:2", "Mateus 29:3", "paz"]) + "\nnão é json\n"
    batch = run_cli(["search", "--jsonl", "--k", "2"], env, stdin=lines)
    assert batch.returncode == 0, batch.stderr
    rows = [json.loads(line) for line in batch.stdout.splitlines()]
    assert [r.get("status") for r in rows] == ["ok", "reference", "reference_missing", "ok", None]
    assert rows[0]["q"] == "amai os inimigos" and rows[0]["scope"] is None
    first = rows[0]["hits"][0]
    assert (first["id"], first["reference"]) == ("MAT.5.2", "Mateus 5:2")
    assert first["text"].startswith("Amai os vossos inimigos") and isinstance(first["score"], float)
    assert len(rows[3]["hits"]) == 2 and rows[1]["hits"][0]["id"] == "JHN.14.2"
    assert "error" in rows[4]

    single = run_cli(["search", "--json", "amai os inimigos"], env)
    assert json.loads(single.stdout)["hits"][0]["id"] == "MAT.5.2"

    status = run_cli(["status"], env)
    assert status.returncode == 0
    assert f"versículos indexados: {MINI_VERSES}" in status.stdout
    assert "use-m3" in status.stdout and str(mini_config.data_dir) in status.stdout


def test_cli_reports_missing_index_without_building_when_asked(mini_config):
    env = {"CORPUS_PATH": str(mini_config.corpus_path), "DATA_DIR": str(mini_config.data_dir)}
    result = run_cli(["search", "--no-build", "paz"], env)
    assert result.returncode == 2 and "índice inexistente" in result.stderr
    status = run_cli(["status"], env)
    assert status.returncode == 1 and "INDISPONÍVEL" in status.stdout


def test_hits_carry_neighbours_as_context_and_repeat_searches_hit_the_cache(retriever):
    result = retriever.search("Deixo-vos a paz, não tenhais medo", k=3)
    hit = next(h for h in result.hits if h.id == "JHN.14.2")
    assert [v.id for v in hit.context] == ["JHN.14.1"]  # the neighbour, not a source of its own
    assert "JHN.14.1" not in [h.id for h in result.hits]
    before = retriever.result_cache.stats()
    assert retriever.search("Deixo-vos a paz, não tenhais medo", k=3) is result
    assert retriever.result_cache.stats()["hits"] == before["hits"] + 1
    retriever.search("Deixo-vos a paz, não tenhais medo", k=2)  # another k: a new search, same query vector
    assert retriever.embedding_cache.stats()["hits"] >= 1


def test_the_store_searches_on_its_own_thread_while_the_words_are_read(retriever, monkeypatch):
    asked = []
    query = retriever.store.query

    def watched(vector, k, where=None):
        asked.append((threading.current_thread().name, where))
        return query(vector, k, where)

    monkeypatch.setattr(retriever.store, "query", watched)
    result = retriever.search("o que Jesus disse sobre amar os inimigos?", k=3)
    assert result.hits[0].id == "MAT.5.2" and {"dense", "hybrid"} & set(result.hits[0].ranks)
    psalms = retriever.search("não terei medo", k=10, scope=named("PSA"))
    assert psalms.hits and all(h.id.startswith("PSA.") for h in psalms.hits)
    assert asked and all(name.startswith("dense") for name, _ in asked)  # never on the searching thread
    assert any(where is not None for _, where in asked)  # the scope travels with the query


def test_the_store_is_asked_once_as_soon_as_the_message_is_embedded(retriever, monkeypatch):
    from retrieval.understand.query import plan_query

    message = "o que Jesus disse sobre amar os inimigos?"
    key = retriever._dense_key(plan_query(message, retriever.thesaurus))
    asked, waiting = [], []
    query, understand = retriever.store.query, retriever.understand
    monkeypatch.setattr(retriever.store, "query", lambda vector, k, where=None: asked.append(k) or
                        query(vector, k, where))
    monkeypatch.setattr(retriever, "understand", lambda text: waiting.append(key in retriever.dense_ahead) or
                        understand(text))
    retriever.result_cache.clear()
    result = retriever.search(message, k=3)
    assert waiting[0]  # asked before the intent is read
    assert len(asked) == 1 and key not in retriever.dense_ahead  # the fusion read that answer: asked once
    assert result.hits[0].id == "MAT.5.2" and {"dense", "hybrid"} & set(result.hits[0].ranks)


def test_answers_asked_early_are_each_taken_once_and_the_oldest_unread_are_dropped():
    from concurrent.futures import Future

    from retrieval.ahead import Ahead

    ahead, futures = Ahead(kept=2), [Future() for _ in range(3)]
    for key, future in zip("abc", futures):
        ahead.put(key, future)
    assert "a" not in ahead and len(ahead) == 2  # "a" was never read: dropped with the oldest
    assert ahead.take("b") is futures[1] and ahead.take("b") is None
    assert ahead.take("c") is futures[2] and len(ahead) == 0


def test_a_store_that_dies_mid_search_fails_the_search_loudly(mini_config, use_embedder, tmp_path):
    server = ChromaServer(tmp_path / "chroma").start()
    try:
        config = type(mini_config)(**{**mini_config.__dict__, "chroma_url": server.url})
        build_index(config, embedder=use_embedder)
        retriever = open_retriever(config, embedder=use_embedder)
        assert retriever.search("a formiga e o preguiçoso", k=2).hits
    finally:
        server.stop()
    import httpx

    with pytest.raises(httpx.ConnectError):  # the store's own error, from the thread that asked it: no answer
        retriever.search("o que Jesus disse sobre amar os inimigos?", k=3)  # without the verses near in meaning


def test_a_named_scope_without_evidence_is_not_widened(retriever):
    result = retriever.search("nos Salmos, como programar computadores em python?")
    assert result.status == "no_evidence" and result.hits == [] and result.scope.name == "PSA"


def test_the_evaluation_reads_an_ungraded_life_for_what_it_asks_not_for_aptness(mini_retriever, tmp_path):
    from retrieval.evaluation import run

    path = tmp_path / "mixed.jsonl"
    path.write_text('{"id": "s1", "kind": "situation", "q": "perdi meu emprego e estou com medo"}\n'
                    '{"id": "s2", "kind": "situation", "q": "perdi meu pai", "grades": {"MAT.5.4": 2}}\n',
                    encoding="utf-8")
    lines = run(mini_retriever, path, baselines=False)
    assert sum("apt@3" in line for line in lines) == 1 and not any("s1" in line for line in lines)


def test_a_file_that_is_no_eval_set_is_said_and_the_other_files_still_run(mini_retriever, tmp_path, capsys,
                                                                          monkeypatch):
    import retrieval.__main__ as cli

    wrong = tmp_path / "choices.jsonl"  # a bench file of another shape: no "kind", no graded pairs
    wrong.write_text('{"id": "s1", "q": "perdi meu pai", "verses": ["MAT.5.4"]}\n', encoding="utf-8")
    right = tmp_path / "topics.jsonl"
    right.write_text('{"id": "t1", "kind": "topic", "q": "perdi meu pai", "relevant": ["MAT.5.4"]}\n', encoding="utf-8")
    monkeypatch.setattr(cli, "ready_retriever", lambda config, build=True: mini_retriever)
    monkeypatch.setattr(cli, "_config", lambda args: None)
    assert cli.main(["eval", str(wrong), str(right), "--no-build", "--no-baselines"]) == 1
    out, err = capsys.readouterr()
    assert "choices.jsonl: não é um conjunto de avaliação" in err and "Traceback" not in err
    assert "topics.jsonl" in out and "hit@5" in out


def test_the_evaluation_tells_small_talk_from_a_greeting_that_asks_something(mini_retriever):
    from retrieval.evaluation import evaluate

    items = [{"kind": "smalltalk", "q": "oi, boa noite!"},
             {"kind": "needs-answer", "q": "boa noite! o que Jesus disse sobre amar os inimigos?"},
             {"kind": "needs-answer", "q": "oi, tudo bem?"}]  # labelled wrong on purpose: the check can fail
    checks = evaluate(mini_retriever, items).checks
    assert checks["conversa reconhecida"] == [1.0]
    assert checks["pedido atendido"] == [1.0, 0.0]


def test_the_evaluation_counts_an_opener_refused_never_one_welcomed(mini_retriever):
    from retrieval.evaluation import evaluate

    items = [{"kind": "welcome", "q": "oi, boa noite!"},  # a welcome in words
             {"kind": "welcome", "q": "o senhor cuida de mim como um pastor"},  # verses
             {"kind": "welcome", "q": "qual o preço do dólar hoje na bolsa de valores?"}]  # refused: the check fails
    assert evaluate(mini_retriever, items).checks["acolhida sem recusa"] == [1.0, 1.0, 0.0]
