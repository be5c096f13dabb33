"""The Bible people kept on disk: read back as they were built, rebuilt when what made them changes."""

from __future__ import annotations

import json
import shutil

from corpus.bible import sha256_of
from retrieval.knowledge import people_cache
from retrieval.knowledge.people import PeopleIndex
from tests.conftest import BLIVRE


def test_the_people_index_is_read_back_from_disk_until_its_data_changes(blivre, shared_dir, tmp_path):
    data = tmp_path / "theographic"
    shutil.copytree(shared_dir / "data" / "theographic", data)
    cache, sha = tmp_path / "understanding", sha256_of(BLIVRE)
    built = people_cache.cached(data, blivre, sha, cache)
    again = people_cache.cached(data, blivre, sha, cache)
    assert again.people == built.people and again.events == built.events and again.names == built.names
    assert again.by_name == built.by_name and again.spelled == built.spelled
    assert again.ordinary == built.ordinary and "boa" in again.ordinary
    assert again.homonyms(["tiago"]) == built.homonyms(["tiago"]) != []
    stored = json.loads((cache / people_cache.CACHE_NAME).read_text(encoding="utf-8"))
    assert stored["key"] == people_cache.key_of(data, sha)
    stored["spelled"]["davi"] = "Davi (do disco)"  # what is read is the file, not a new build
    (cache / people_cache.CACHE_NAME).write_text(json.dumps(stored), encoding="utf-8")
    assert people_cache.cached(data, blivre, sha, cache).spelled["davi"] == "Davi (do disco)"
    with open(data / "Events.csv", "a", encoding="utf-8") as f:
        f.write("\nMade-up event,,,,,,,,,Gen.1.1,,adam_78\n")  # the data changed: built again, kept again
    rebuilt = people_cache.cached(data, blivre, sha, cache)
    assert rebuilt.spelled["davi"] == "Davi" and len(rebuilt.events) == len(built.events) + 1
    assert json.loads((cache / people_cache.CACHE_NAME).read_text(encoding="utf-8"))["key"] != stored["key"]


def test_an_unwritable_cache_still_gives_the_people(blivre, shared_dir, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory", encoding="utf-8")
    index = people_cache.cached(shared_dir / "data" / "theographic", blivre, "sha", blocked / "understanding")
    direct = PeopleIndex.load(shared_dir / "data" / "theographic", blivre)
    assert index.people == direct.people
