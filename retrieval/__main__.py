"""Command line: `python -m retrieval build|search|status`."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from corpus.loaders.errors import CorpusError
from retrieval.index.builder import BuildInProgress, build_index
from retrieval.index.config import IndexConfig
from retrieval.index.embedders import EmbedderError
from retrieval.index.store import StoreError
from retrieval.retriever import Retriever
from retrieval.startup import IndexNotReady, open_retriever
from retrieval.status import index_status
from retrieval.understand.scope import named
from retrieval.understand.topics import TopicsError


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _config(args) -> IndexConfig:
    from retrieval.settings import RetrievalSettings

    return IndexConfig.from_settings(RetrievalSettings(), corpus_path=getattr(args, "corpus", None))


def ready_retriever(config: IndexConfig, build: bool = True) -> Retriever:
    """Open the index; when it is missing or stale, say why and build it (unless told not to)."""
    try:
        return open_retriever(config)
    except IndexNotReady as problem:
        if not build:
            raise
        _log(f"índice não está pronto: {problem}; construindo agora")
    report = build_index(config, log=_log)
    _log(f"índice construído em {report.seconds:.1f} s")
    return open_retriever(config)


def cmd_build(args) -> int:
    config = _config(args)
    report = build_index(config, log=_log)
    if report.skipped:
        print(f"nada mudou: índice em {config.index_dir} já está atualizado ({report.seconds:.2f} s)")
    else:
        lexical = "reconstruído" if report.lexical_built else "mantido"
        print(f"índice construído em {report.seconds:.1f} s: BM25 {lexical}, "
              f"{report.vectors_upserted} vetores gravados, {report.vectors_deleted} removidos, "
              f"{report.texts_embedded} textos novos embutidos")
    return 0


def cmd_search(args) -> int:
    config = _config(args)
    retriever = ready_retriever(config, build=not args.no_build)
    scope = named(args.scope) if args.scope else None
    if args.jsonl:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                query = json.loads(line)["q"]
            except (ValueError, KeyError, TypeError):
                print(json.dumps({"error": "linha inválida: esperado {\"q\": \"...\"}", "line": line.rstrip("\n")},
                                 ensure_ascii=False), flush=True)
                continue
            result = retriever.search(query, k=args.k, scope=scope)
            print(json.dumps(result.as_dict(), ensure_ascii=False), flush=True)
        return 0
    if not args.query:
        _log("informe a pergunta, ou use --jsonl")
        return 2
    result = retriever.search(args.query, k=args.k, scope=scope)
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
        return 0
    print(f"status: {result.status}" + (f" · escopo: {result.scope.label}" if result.scope else ""))
    for missing in result.missing:
        print(f"referência inexistente: {missing}")
    for n, hit in enumerate(result.hits, start=1):
        ranks = " ".join(f"{k}={v}" for k, v in hit.ranks.items())
        print(f"{n:>2}. {hit.reference} [{hit.score:.4f} {ranks}] {hit.text}")
    return 0


def cmd_status(args) -> int:
    config = _config(args)
    retriever, errors = None, []
    try:
        retriever = open_retriever(config)
    except (IndexNotReady, EmbedderError, StoreError, CorpusError) as error:
        errors.append(str(error))
    status = index_status(config, retriever, errors)
    if args.json:
        print(json.dumps(status.as_dict(), ensure_ascii=False, indent=1))
    else:
        print("\n".join(status.lines()))
    return 0 if status.ready else 1


def cmd_eval(args) -> int:
    from retrieval.evaluation import run

    retriever = ready_retriever(_config(args), build=not args.no_build)
    failed = False
    for path in args.paths:
        try:
            print("\n".join(run(retriever, path, baselines=not args.no_baselines, grades=args.grades)))
        except ValueError as error:  # a file that is no eval set: said, and the other files still run
            print(f"erro: {error}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


def cmd_check_map(args) -> int:
    """The pastoral map against the corpus (and the topic data, when there is some): what a pastor's edit broke."""
    from corpus.bible import load
    from retrieval.understand.pastoral import PastoralMap, PastoralMapError
    from retrieval.understand.topics import TopicIndex

    config = _config(args)
    try:
        pastoral_map = PastoralMap.load()
    except PastoralMapError as error:
        _log(f"erro: {error}")
        return 1
    bible = load(config.corpus_path)
    problems = pastoral_map.problems(bible)
    if config.topics_path is not None and config.topics_path.exists():
        topics = TopicIndex.load(config.topics_path, bible, pastoral_map.topics)
        problems += [f"tópico inexistente nos dados do OpenBible: {t!r}"
                     for t in topics.missing(sorted(pastoral_map.topics))]
    for problem in problems:
        print(problem)
    situations = len(pastoral_map.situations)
    print(f"{situations} situações, {len(pastoral_map.needs)} necessidades: "
          + ("tudo certo" if not problems else f"{len(problems)} problema(s)"))
    return 1 if problems else 0


def cmd_train_ranker(args) -> int:
    """The aptness and harm models from the graded pairs (retrieval/data/aptness), cross-validated by situation."""
    from retrieval.aptness.grades import grade_files, load_all
    from retrieval.aptness.train import train

    config = _config(args)
    retriever = ready_retriever(config, build=not args.no_build)
    pairs = load_all(args.grades or grade_files())
    train(retriever, pairs, config.index_dir, config.intent_model_dir or config.index_dir / "understanding",
          log=_log, **({} if args.search_weight is None else {"search_weight": args.search_weight}))
    return 0


def cmd_train_relevance(args) -> int:
    """The relevance model from the questions blind helpers answered (retrieval/data/relevance)."""
    from retrieval.aptness.memory import VerseVectors
    from retrieval.relevance.features import CandidateFeatures
    from retrieval.relevance.train import load_questions, train, training_files

    config = _config(args)
    retriever = ready_retriever(config, build=not args.no_build)
    if retriever.topics is None or retriever.topic_meanings is None:
        _log("o ranqueador de relevância precisa dos tópicos do OpenBible (TOPICS_PATH)")
        return 1
    verses = VerseVectors.of_index(retriever.bible, retriever.embedder.identity.slug, config.index_dir,
                                   config.intent_model_dir or config.index_dir / "understanding")
    questions = load_questions(args.files or training_files())
    train(retriever, CandidateFeatures(retriever, verses), questions, log=_log)
    return 0


def cmd_fetch_topics(args) -> int:
    from retrieval.settings import RetrievalSettings
    from retrieval.understand.topics import fetch_topics

    settings = RetrievalSettings()
    target = fetch_topics(args.url or settings.topics_url, args.data_dir or settings.data_dir,
                          min_rows=args.min_rows, log=_log)
    print(target)
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(prog="python -m retrieval", description="Índice e busca de versículos.")
    parser.add_argument("--corpus", help="arquivo da Bíblia (padrão: CORPUS_PATH)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="constrói ou atualiza o índice (só o que mudou)")
    search = sub.add_parser("search", help="busca versículos")
    search.add_argument("query", nargs="?")
    search.add_argument("--k", type=int, default=10)
    search.add_argument("--json", action="store_true")
    search.add_argument("--jsonl", action="store_true", help='lê {"q": "..."} por linha da entrada padrão')
    search.add_argument("--scope", help="OT, NT, GOSPELS, PAUL ou um código de livro (ex.: PSA)")
    search.add_argument("--no-build", action="store_true", help="falha em vez de construir um índice ausente")
    evaluation = sub.add_parser("eval", help="métricas num arquivo no formato de dev.jsonl")
    evaluation.add_argument("paths", nargs="+", type=Path)
    evaluation.add_argument("--no-baselines", action="store_true")
    evaluation.add_argument("--grades", type=Path, action="append", default=[],
                            help="notas a mais para as situações (JSONL com id e grades), "
                                 "ex.: bench/situation-grades.jsonl")
    evaluation.add_argument("--no-build", action="store_true")
    topics = sub.add_parser("fetch-topics", help="baixa os dados de tópicos do OpenBible.info (CC BY)")
    topics.add_argument("--url")
    topics.add_argument("--data-dir", type=Path)
    topics.add_argument("--min-rows", type=int, default=50_000)
    ranker = sub.add_parser("train-ranker", help="treina o ranqueador pastoral com os pares avaliados às cegas")
    ranker.add_argument("--grades", type=Path, action="append", default=[],
                        help="arquivos de pares (padrão: retrieval/data/aptness/grades-*.jsonl)")
    ranker.add_argument("--no-build", action="store_true")
    ranker.add_argument("--search-weight", type=float, default=None,
                        help="peso da ordem da busca misturada à do ranqueador (0: só o ranqueador)")
    relevance = sub.add_parser("train-relevance", help="treina o ranqueador de relevância com as perguntas "
                               "respondidas às cegas (retrieval/data/relevance)")
    relevance.add_argument("files", nargs="*", type=Path, help="arquivos de perguntas (padrão: train-*.jsonl)")
    relevance.add_argument("--no-build", action="store_true")
    sub.add_parser("check-map", help="confere o mapa pastoral (referências, tópicos, palavras) contra o corpus")
    status = sub.add_parser("status", help="saúde do índice")
    status.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        commands = {"build": cmd_build, "search": cmd_search, "status": cmd_status, "eval": cmd_eval,
                    "fetch-topics": cmd_fetch_topics, "check-map": cmd_check_map, "train-ranker": cmd_train_ranker,
                    "train-relevance": cmd_train_relevance}
        return commands[args.command](args)
    except (BuildInProgress, IndexNotReady, EmbedderError, StoreError, CorpusError, TopicsError) as error:
        _log(f"erro: {error}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
