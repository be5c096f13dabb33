"""A verse of this corpus as another Portuguese translation words it (made from the corpus at run time)."""

from __future__ import annotations

OTHER_TRANSLATION = [("Agradecei", "Rendei graças"), ("bondade", "misericórdia"), ("aos egípcios", "o Egito"),
                     ("sobrecarregados", "oprimidos")]


def as_another_translation_says(text: str, refrain_first: bool) -> str:
    """``text`` in the other translation's words; with ``refrain_first``, the shared refrain (after the semicolon)
    quoted first, then what pins the verse."""
    for ours, theirs in OTHER_TRANSLATION:
        text = text.replace(ours, theirs)
    if refrain_first:
        head, refrain = text.rstrip(".").split(";", 1)
        text = f"{refrain.strip()}, {head[0].lower()}{head[1:]}"
    return text
