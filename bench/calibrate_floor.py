"""Calibrate the evidence floor: signals of in-scope and off-topic questions, and the rates.

Run after `python -m retrieval build`:
    .venv/bin/python bench/calibrate_floor.py [../shared/eval/dev.jsonl bench/calibration.jsonl]
Prints each question's signals with the floor switched off, then off-topic rejection
and in-scope false rejection for the configured floor and a few alternatives.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from bot.settings import Settings
from retrieval.evaluation import RANKED_KINDS, REJECT_KINDS, load_items, query_of
from retrieval.evidence import EvidenceFloor
from retrieval.index.config import IndexConfig
from retrieval.startup import open_retriever

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [ROOT.parent / "shared" / "eval" / "dev.jsonl", ROOT / "bench" / "calibration.jsonl"]


def main() -> None:
    files = [Path(p) for p in sys.argv[1:]] or DEFAULT_FILES
    retriever = open_retriever(IndexConfig.from_settings(Settings()))
    configured = retriever.floor
    retriever.floor = EvidenceFloor(dense_alone=-1.0)  # accept everything, to see the signals
    rows = []
    for path in files:
        for item in load_items(path):
            if item["kind"] not in RANKED_KINDS + REJECT_KINDS:
                continue
            result = retriever.search(query_of(item), k=10)
            rows.append((item["kind"] in REJECT_KINDS, query_of(item), result.signals))
    print(f"{'off':<4}{'dense':>7}{'margin':>8}{'terms':>6}{'best':>5}{'conc':>5}{'faith':>6}  question")
    for off, query, s in sorted(rows, key=lambda r: (r[0], r[2].dense_top)):
        print(f"{'X' if off else '':<4}{s.dense_top:>7.3f}{s.dense_margin:>8.3f}{s.lexical_terms:>6}"
              f"{s.lexical_best:>5}{s.concepts:>5}{s.faith_words:>6}  {query[:70]}")
    candidates = [configured] + [replace(configured, dense_alone=a, dense_with_words=w)
                                 for a in (0.50, 0.55, 0.60) for w in (0.38, 0.42, 0.46)]
    print("\nfloor                                   off-topic rejected   in-scope falsely rejected")
    for floor in candidates:
        rejected = [not floor.has_evidence(s) for off, _, s in rows if off]
        false = [not floor.has_evidence(s) for off, _, s in rows if not off]
        mark = " (configured)" if floor is configured else ""
        print(f"alone {floor.dense_alone:.2f} with-words {floor.dense_with_words:.2f}{mark:<14}"
              f"{sum(rejected) / len(rejected):>10.2f} ({len(rejected)})  "
              f"{sum(false) / len(false):>14.2f} ({len(false)})")


if __name__ == "__main__":
    main()
