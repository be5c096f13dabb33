"""Real servers the tests start on loopback: PostgreSQL from the system's binaries, Chroma from `chroma run`."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> Path | None:
    """The directory of PostgreSQL's server binaries (Debian keeps them out of PATH)."""
    for candidate in [shutil.which("postgres"), *sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))[::-1]]:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate).parent
    return None


class PostgresServer:
    """A throwaway cluster (trust auth, no fsync) on a free port; as root, run as the `postgres` user."""

    def __init__(self):
        self.bin = postgres_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL não está instalado (make setup instala com apt)")
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="pastor-pg-"))
        self.process: subprocess.Popen | None = None

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _as_owner(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv

    def start(self) -> PostgresServer:
        data = self.dir / "data"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        subprocess.run(self._as_owner([str(self.bin / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                                       "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
        return self._run()

    def halt(self) -> None:
        """Stop the server as an outage does (fast shutdown: clients are cut off), keeping its data."""
        if self.process is not None and self.process.poll() is None:
            subprocess.run(self._as_owner([str(self.bin / "pg_ctl"), "stop", "-D", str(self.dir / "data"), "-m",
                                           "fast", "-w"]), check=True, capture_output=True)
            self.process.wait(timeout=20)

    def resume(self) -> PostgresServer:
        """Start the halted server again, same data and port."""
        return self._run()

    def _run(self) -> PostgresServer:
        data = self.dir / "data"
        self.process = subprocess.Popen(
            self._as_owner([str(self.bin / "postgres"), "-D", str(data), "-p", str(self.port), "-h", "127.0.0.1",
                            "-k", str(self.dir), "-F", "-c", "max_connections=200"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import psycopg

        deadline = time.time() + 30
        while True:
            try:
                psycopg.connect(self.admin_url, connect_timeout=2).close()
                return self
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.time() > deadline:
                    raise RuntimeError("o PostgreSQL de teste não iniciou") from None
                time.sleep(0.2)

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'create database "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class ChromaServer:
    """A real Chroma server on loopback, started with the `chroma` CLI that chromadb installs."""

    def __init__(self, path: Path):
        self.path = path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> ChromaServer:
        import httpx

        exe = shutil.which("chroma") or os.path.join(os.path.dirname(sys.executable), "chroma")
        self.process = subprocess.Popen([exe, "run", "--path", str(self.path), "--host", "127.0.0.1",
                                         "--port", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.time() > deadline:
                raise RuntimeError("o servidor Chroma de teste não iniciou")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
