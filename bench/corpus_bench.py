"""Benchmark: parse of the default USFX corpus and reference extraction throughput.

Run: .venv/bin/python bench/corpus_bench.py [--corpus PATH] [--runs N]
Prints medians; docs/performance.md records them with the machine named.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from corpus import load
from corpus.references import find_references

MESSAGES = [
    "estou com medo do futuro, o que faço?",
    "o que diz João 3:16?",
    "me explica Filipenses 4:6-7 por favor",
    "perdi minha mãe semana passada",
    "leia Sl 23 e Rm 8:28 comigo",
    "to mt ansioso c/ a prova amanha",
    "qual o sentido de 1 Coríntios 13:4-7?",
    "obrigado pastor, Deus abençoe",
    "Primeira Epístola de Pedro 5:7 fala de ansiedade?",
    "tenho 2 filhos e estou desempregado há 3 meses",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("../shared/corpus/por-blivre.usfx.xml"))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    parse_times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        bible = load(args.corpus)
        parse_times.append(time.perf_counter() - start)
    messages = MESSAGES * 5000
    rates = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for message in messages:
            find_references(message)
        rates.append(len(messages) / (time.perf_counter() - start))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    print(f"corpus: {args.corpus} ({len(bible)} verses)")
    print(f"load+parse median: {statistics.median(parse_times):.3f} s over {args.runs} runs (target <= 1.5 s)")
    print(f"reference extraction median: {statistics.median(rates):,.0f} messages/s (target >= 20,000)")


if __name__ == "__main__":
    main()
