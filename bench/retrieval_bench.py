"""Benchmark: full index build (time, peak RSS), restart-to-ready, warm search latency.

Run: .venv/bin/python bench/retrieval_bench.py [--data-dir /tmp/bench-index] [--runs 3]
Each measurement runs in a fresh child process so peak RSS belongs to it alone.
Prints medians; docs/performance.md records them with the machine named.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from retrieval.index.config import IndexConfig
mode, corpus, data = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
topics = Path(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else None
people = corpus.parent.parent / "data" / "theographic"  # Bible people and places, beside the corpus in shared/
config = IndexConfig(corpus_path=corpus, data_dir=data, topics_path=topics,
                     people_path=people if people.exists() else None)
out = {}
if mode == "build":
    from retrieval.index.builder import build_index
    start = time.perf_counter()
    report = build_index(config)
    out["seconds"] = time.perf_counter() - start
    out["skipped"] = report.skipped
else:
    from retrieval.index.builder import build_index
    from retrieval.startup import open_retriever
    start = time.perf_counter()
    report = build_index(config)  # what the bot does at startup: skips when nothing changed
    retriever = open_retriever(config)
    out["seconds"] = time.perf_counter() - start
    out["skipped"] = report.skipped
    queries = [json.loads(l) for l in Path(sys.argv[4]).read_text().splitlines() if l.strip()]
    queries = [" ".join(q["turns"]) if "turns" in q else q["q"] for q in queries]
    for q in queries:  # warm-up
        retriever.search(q, k=10)
    latencies, cached = [], []
    for _ in range(5):
        for q in queries:
            retriever.result_cache.clear()  # measure the search itself, not the caches
            retriever.embedding_cache.clear()
            t = time.perf_counter()
            retriever.search(q, k=10)
            latencies.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            retriever.search(q, k=10)
            cached.append((time.perf_counter() - t) * 1000)
    latencies.sort()
    cached.sort()
    out["p50_ms"] = latencies[len(latencies) // 2]
    out["p95_ms"] = latencies[int(len(latencies) * 0.95)]
    out["cached_p50_ms"] = cached[len(cached) // 2]
    # two people answered at once, as the bot's CPU threads do on 2 cores (bot/cpu.py): distinct k, no shared cache
    import threading
    together, lock = [], threading.Lock()

    def answer(k):
        for _ in range(3):
            for q in queries:
                retriever.result_cache.clear()
                retriever.embedding_cache.clear()
                t = time.perf_counter()
                retriever.search(q, k=k)
                with lock:
                    together.append((time.perf_counter() - t) * 1000)

    start = time.perf_counter()
    threads = [threading.Thread(target=answer, args=(k,)) for k in (10, 11)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out["together_per_s"] = len(together) / (time.perf_counter() - start)
    together.sort()
    out["together_p50_ms"] = together[len(together) // 2]
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["worker_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # embedding workers
print(json.dumps(out))
"""


def child(mode: str, corpus: Path, data: Path, dev: Path, topics: Path | None = None) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, mode, str(corpus), str(data), str(dev), str(topics or "")],
                            capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "por-blivre.usfx.xml")
    parser.add_argument("--dev", type=Path, default=ROOT.parent / "shared" / "eval" / "dev.jsonl")
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/pastor-bench"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-build", action="store_true", help="only restart and search an existing index")
    parser.add_argument("--topics", default=str(ROOT.parent / "shared" / "data" / "openbible-topic-votes.tsv"),
                        help="OpenBible topic votes (topical channel, needs' topics, tone labels); '' for none")
    args = parser.parse_args()

    builds, restarts = [], []
    for _ in range(0 if args.skip_build else args.runs):
        shutil.rmtree(args.data_dir, ignore_errors=True)
        builds.append(child("build", args.corpus, args.data_dir, args.dev))
    for _ in range(args.runs):
        topics = Path(args.topics) if args.topics else None
        restarts.append(child("serve", args.corpus, args.data_dir, args.dev, topics))
    assert all(r["skipped"] for r in restarts), "a restart with nothing changed must skip the build"

    def med(rows, key):
        return statistics.median(r[key] for r in rows)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if builds:
        print(f"full build: {med(builds, 'seconds'):.1f} s median, peak RSS {med(builds, 'peak_rss_mb'):.0f} MB "
              f"(+ each embedding worker, while it runs: {med(builds, 'worker_peak_rss_mb'):.0f} MB)")
    print(f"restart to ready: {med(restarts, 'seconds'):.2f} s median")
    print(f"warm search: p50 {med(restarts, 'p50_ms'):.1f} ms, p95 {med(restarts, 'p95_ms'):.1f} ms "
          f"(serving process peak RSS {med(restarts, 'peak_rss_mb'):.0f} MB); "
          f"repeated question from the cache p50 {med(restarts, 'cached_p50_ms'):.2f} ms")
    print(f"two searches at once: p50 {med(restarts, 'together_p50_ms'):.1f} ms, "
          f"{med(restarts, 'together_per_s'):.0f} searches/s")


if __name__ == "__main__":
    main()
