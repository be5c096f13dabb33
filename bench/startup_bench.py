"""Benchmark: `python -m bot` restart to ready (/readyz 200) on a built index, with where the time goes.

    python bench/startup_bench.py --runs 3

Each run starts the real bot (no chat channel, LLM_PROVIDER=none unless given) on DATA_DIR's index, polls
/readyz every 50 ms and reads the start-up stages the bot logs ("início: <stage> em X s"). Prints medians.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGE = re.compile(r"início: (?P<name>.+?) em (?P<seconds>[\d.]+) s")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_start(env: dict) -> tuple[float, dict[str, float]]:
    port = free_port()
    env = {**env, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port), "LOG_LEVEL": "INFO"}
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "bot"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    ready = None
    while time.perf_counter() - began < 600 and process.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as response:
                if response.status == 200:
                    ready = time.perf_counter() - began
                    break
        except OSError:
            pass
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    if ready is None:
        raise SystemExit(f"o bot não ficou pronto:\n{err[-3000:]}")
    return ready, {m["name"]: float(m["seconds"]) for m in STAGE.finditer(err)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--llm", default="none", help="LLM_PROVIDER for the runs (default none)")
    args = parser.parse_args()
    env = {**os.environ, "LLM_PROVIDER": args.llm, "TELEGRAM_BOT_TOKEN": "", "WHATSAPP_ACCESS_TOKEN": ""}
    one_start(env)  # a first start may train or cache derived models: not a restart
    runs = [one_start(env) for _ in range(args.runs)]
    print(f"máquina: {platform.machine()}, {os.cpu_count()} núcleos, Python {platform.python_version()}")
    print(f"reinício até /readyz 200: mediana {statistics.median(r for r, _ in runs):.2f} s "
          f"({', '.join(f'{r:.2f}' for r, _ in runs)})")
    for name in runs[0][1]:
        values = [stages.get(name, 0.0) for _, stages in runs]
        print(f"  {name}: {statistics.median(values):.2f} s")


if __name__ == "__main__":
    main()
