"""Verse cards: a clean PNG with the verse, its reference and the translation's attribution (Pillow).

1080 x 1920 (9:16), the size of a WhatsApp status and a phone screen; Telegram shows it whole.
The DejaVu fonts come from matplotlib's package data (never downloaded); they cover Portuguese.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1080, 1920
MARGIN = 110
MAX_CHARS = 700  # longer passages would need a font too small to read on a phone
BACKGROUND, INK, SOFT, ACCENT = (250, 246, 238), (44, 40, 36), (120, 110, 98), (176, 132, 64)


class CardTooLong(ValueError):
    """The passage does not fit a legible card."""


@dataclass(frozen=True)
class Card:
    text: str  # the exact verse text
    reference: str  # "João 3:16"
    attribution: str  # the translation, as its licence asks


@cache
def _font_file(name: str) -> str:
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name
    if not path.exists():
        raise FileNotFoundError(f"fonte {name} ausente do pacote matplotlib")
    return str(path)


def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(_font_file(name), size)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if line and draw.textlength(candidate, font=font) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def render(card: Card) -> bytes:
    """The card as PNG bytes; `CardTooLong` for a passage that would not be legible."""
    text = " ".join(card.text.split())
    if len(text) > MAX_CHARS:
        raise CardTooLong(f"{len(text)} caracteres (até {MAX_CHARS})")
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    width = WIDTH - 2 * MARGIN
    size, lines, font = 76, [], None
    while size >= 40:  # the largest size at which the verse fits the middle of the card
        font = _font("DejaVuSerif.ttf", size)
        lines = _wrap(draw, f"“{text}”", font, width)
        if len(lines) * size * 1.45 <= HEIGHT * 0.58:
            break
        size -= 4
    step = int(size * 1.45)
    reference_font = _font("DejaVuSans-Bold.ttf", 52)
    credit_font = _font("DejaVuSans.ttf", 26)
    block = len(lines) * step + 40 + 60
    y = (HEIGHT - block) // 2
    draw.line([(MARGIN, y - 70), (MARGIN + 140, y - 70)], fill=ACCENT, width=6)
    for line in lines:
        draw.text((MARGIN, y), line, font=font, fill=INK)
        y += step
    draw.text((MARGIN, y + 40), card.reference, font=reference_font, fill=ACCENT)
    credit = _wrap(draw, card.attribution, credit_font, width)
    y = HEIGHT - MARGIN - len(credit) * 36
    for line in credit:
        draw.text((MARGIN, y), line, font=credit_font, fill=SOFT)
        y += 36
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
