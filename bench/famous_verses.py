"""The famous-verses regression: the most-voted verses of the OpenBible topics, 7 consecutive words typed
loosely (folded, no punctuation) inside everyday frames, must come back among the first three passages.

Made at run time from the corpus and the topic data (no verse text is kept in the repository).
Run: python bench/famous_verses.py [--count 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    from bot.app import open_index
    from bot.settings import Settings
    from retrieval.evaluation import famous_verses

    retriever = open_index(Settings(), build=False)
    started = time.perf_counter()
    share, misses = famous_verses(retriever, args.count)
    for message, verse_id, got in misses[:40]:
        print(f"  falhou: {message!r} → esperado {verse_id}, veio {got}")
    print(f"versículos famosos citados de memória: {share:.3f} nos 3 primeiros ({args.count} versículos, "
          f"{time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
