"""Known Bible editions: display name and the attribution their licence requires."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edition:
    name: str
    attribution: str


# Matched against the corpus file name (lower case). The licence of each edition
# asks that this attribution be shown where the text is used.
KNOWN = {
    ("blivre", "porbr2018"): Edition(
        "Bíblia Livre (BLIVRE)",
        "Bíblia Livre (BLIVRE), © 2018 Diego Santos, Mario Sérgio e Marco Teles, CC BY 4.0",
    ),
}


def edition_for(path: str | Path, title: str) -> Edition:
    """The known edition for a corpus file, or one named by the file's own title."""
    name = Path(path).name.lower()
    for markers, edition in KNOWN.items():
        if any(marker in name for marker in markers):
            return edition
    return Edition(title, f"{title} (verifique a licença desta tradução)")
