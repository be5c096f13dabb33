"""Command line: `python -m corpus stats|refs|show|fetch`."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from corpus.bible import Bible, load
from corpus.canon import BOOKS
from corpus.loaders.errors import CorpusError
from corpus.references import exists, find_references, verses_of


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpus", description="Bíblia: leitura, referências, download.")
    sub = parser.add_subparsers(dest="command", required=True)
    stats = sub.add_parser("stats", help="livros, capítulos e versículos de um arquivo")
    stats.add_argument("path", nargs="?", type=Path)
    refs = sub.add_parser("refs", help="referências em cada linha da entrada padrão (JSON por linha)")
    refs.add_argument("--corpus", type=Path)
    show = sub.add_parser("show", help="mostra os versículos de uma referência")
    show.add_argument("reference")
    show.add_argument("--corpus", type=Path)
    fetch = sub.add_parser("fetch", help="baixa e verifica uma edição USFX para o diretório de dados")
    fetch.add_argument("--url")
    fetch.add_argument("--sha256", help="sha256 esperado do arquivo baixado")
    fetch.add_argument("--min-verses", type=int, default=31000)
    fetch.add_argument("--data-dir", type=Path)
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except CorpusError as error:
        print(f"erro: {error}", file=sys.stderr)
        return 2


def _settings():
    from corpus.settings import CorpusSettings

    return CorpusSettings()


def _bible(path: Path | None) -> Bible:
    return load(path or _settings().corpus_path)


def cmd_stats(args) -> int:
    bible = _bible(args.path)
    chapters = sum(len(bible.chapters(code)) for code in bible.books())
    print(f"arquivo: {bible.path}\nformato: {bible.format}\ntradução: {bible.name}")
    print(f"livros: {len(bible.books())}\ncapítulos: {chapters}\nversículos: {len(bible)}")
    if bible.skipped_books:
        print(f"livros fora do cânon ignorados: {', '.join(bible.skipped_books)}")
    per_book = Counter(verse.book for verse in bible.verses)
    print("\nlivro  capítulos/cânon  versículos")
    for book in BOOKS:
        found = bible.chapters(book.code)
        if not found:
            continue
        count = per_book[book.code]
        mark = "" if len(found) == book.chapters else "  <- difere do cânon"
        print(f"{book.code:<5}  {len(found):>3}/{book.chapters:<3}  {count:>6}  {book.name}{mark}")
    absent = [b.code for b in BOOKS if not bible.chapters(b.code)]
    if absent:
        print(f"\nausentes ({len(absent)}): {' '.join(absent)}")
    return 0


def cmd_refs(args) -> int:
    bible = _bible(args.corpus)
    for line in sys.stdin:
        text = line.rstrip("\n")
        refs, missing = [], []
        for ref in find_references(text):
            (refs if exists(ref, bible) else missing).append(ref.osis())
        print(json.dumps({"text": text, "refs": refs, "missing": missing}, ensure_ascii=False), flush=True)
    return 0


def cmd_show(args) -> int:
    bible = _bible(args.corpus)
    found = find_references(args.reference)
    if not found:
        print(f"nenhuma referência bíblica reconhecida em: {args.reference}", file=sys.stderr)
        return 1
    status = 0
    for ref in found:
        verses = verses_of(ref, bible)
        if not verses:
            print(f"{ref.label()}: não existe em {bible.name}", file=sys.stderr)
            status = 1
            continue
        print(ref.label())
        for verse in verses:
            print(f"  {verse.chapter}:{verse.verse} {verse.text}")
    return status


def cmd_fetch(args) -> int:
    from corpus.fetch import fetch

    settings = _settings()
    target = fetch(
        url=args.url or settings.corpus_url,
        data_dir=args.data_dir or settings.data_dir,
        sha256=args.sha256,
        min_verses=args.min_verses,
        log=lambda message: print(message, file=sys.stderr),
    )
    print(target)
    return 0


COMMANDS = {"stats": cmd_stats, "refs": cmd_refs, "show": cmd_show, "fetch": cmd_fetch}

if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        sys.exit(0)
