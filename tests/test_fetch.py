"""`corpus fetch` against a real HTTP server on loopback serving made-up Bibles."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corpus import CorpusError, load
from corpus.fetch import fetch
from tests.conftest import ROOT


def made_up_usfx(verses: int) -> bytes:
    body = "".join(f'<v id="{n}"/>Louvai ao Senhor, versículo inventado {n}.<ve/>' for n in range(1, verses + 1))
    return f'<?xml version="1.0"?><usfx><book id="PSA"><c id="119"/>{body}</book></usfx>'.encode()


def zipped(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("copr.htm", "<html>licença</html>")
        zf.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture()
def server():
    files: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = files.get(self.path)
            if body is None:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield files, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_zip_verifies_and_stores(server, tmp_path):
    files, base = server
    files["/test_usfx.zip"] = zipped("test_usfx.xml", made_up_usfx(150))
    target = fetch(f"{base}/test_usfx.zip", tmp_path, min_verses=150)
    assert target == tmp_path / "corpus" / "test_usfx.xml"
    assert len(load(target)) == 150
    manifest = json.loads((tmp_path / "corpus" / "test_usfx.xml.json").read_text())
    assert manifest["verses"] == 150 and manifest["format"] == "USFX"
    assert sorted(p.name for p in (tmp_path / "corpus").iterdir()) == ["test_usfx.xml", "test_usfx.xml.json"]


def test_fetch_plain_xml_with_sha256(server, tmp_path):
    files, base = server
    data = made_up_usfx(20)
    files["/b.xml"] = data
    target = fetch(f"{base}/b.xml", tmp_path, sha256=hashlib.sha256(data).hexdigest(), min_verses=20)
    assert target.read_bytes() == data


@pytest.mark.parametrize(
    "path, body, kwargs, problem",
    [
        ("/few.xml", made_up_usfx(10), {"min_verses": 31000}, "só 10 versículos"),
        ("/bad.xml", made_up_usfx(10), {"min_verses": 1, "sha256": "0" * 64}, "sha256 não confere"),
        ("/page.zip", zipped("index.html", b"<html/>"), {}, "nenhum arquivo .xml"),
        ("/cut.xml", made_up_usfx(50)[:-40], {"min_verses": 1}, "truncado"),
        ("/absent.xml", None, {}, "HTTP 404"),
    ],
)
def test_fetch_refuses_bad_downloads_and_keeps_the_old_copy(server, tmp_path, path, body, kwargs, problem):
    files, base = server
    if body is not None:
        files[path] = body
    old = tmp_path / "corpus" / path.strip("/").replace(".zip", ".xml")
    old.parent.mkdir(parents=True)
    old.write_bytes(b"old copy")
    with pytest.raises(CorpusError, match=problem):
        fetch(f"{base}{path}", tmp_path, **kwargs)
    assert old.read_bytes() == b"old copy"
    assert sorted(p.name for p in old.parent.iterdir()) == [old.name]


def test_fetch_unreachable_server(tmp_path):
    with pytest.raises(CorpusError, match="download falhou"):
        fetch("http://127.0.0.1:9/nada.zip", tmp_path)


def test_fetch_cli(server, tmp_path):
    files, base = server
    files["/porbr_usfx.zip"] = zipped("porbr_usfx.xml", made_up_usfx(40))
    result = subprocess.run(
        [sys.executable, "-m", "corpus", "fetch", "--url", f"{base}/porbr_usfx.zip", "--min-verses", "40",
         "--data-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "corpus" / "porbr_usfx.xml")
    assert "40 versículos" in result.stderr


def test_fetch_topics_from_a_zip(server, tmp_path):
    from retrieval.understand.topics import TopicsError, fetch_topics

    files, base = server
    rows = "".join(f"tema {n}\t{40005000 + n % 40 + 1:08d}\t\t{n}\n" for n in range(300))
    header = "Topic\tStart Verse ID\tEnd Verse ID\tVotes\n"
    files["/topic-votes.zip"] = zipped("topic-votes.txt", (header + rows).encode())
    target = fetch_topics(f"{base}/topic-votes.zip", tmp_path, min_rows=300)
    assert target == tmp_path / "topics" / "openbible-topic-votes.tsv"
    assert target.read_text().count("\n") == 301
    files["/short.txt"] = b"Topic\tStart Verse ID\tEnd Verse ID\tVotes\nfear\t19023004\t\t5\n"
    with pytest.raises(TopicsError, match="só 1 linhas"):
        fetch_topics(f"{base}/short.txt", tmp_path, min_rows=300)
    files["/page.txt"] = b"<html>not found</html>"
    with pytest.raises(TopicsError, match="cabeçalho inesperado"):
        fetch_topics(f"{base}/page.txt", tmp_path, min_rows=1)
    assert target.read_text().count("\n") == 301  # the good copy survives failed downloads
