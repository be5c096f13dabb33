"""Splitting long answers and the sources block, on texts made up here."""

import html
import re

from bot.channels.formatting import TELEGRAM_LIMIT, sources_html, split_message, telegram_html_parts, utf16_len
from bot.reply import Source


def test_split_prefers_paragraphs_then_sentences():
    paragraphs = [f"Parágrafo {n}. " + "palavra " * 150 for n in range(6)]
    parts = split_message("\n\n".join(paragraphs), 2500)
    assert all(len(p) <= 2500 for p in parts) and len(parts) >= 3
    assert all(p.startswith("Parágrafo") for p in parts)
    assert re.sub(r"\s", "", "".join(parts)) == re.sub(r"\s", "", "".join(paragraphs))  # nothing lost
    one_long_line = "frase curta. " * 600
    assert all(len(p) <= 1000 and p.endswith(".") for p in split_message(one_long_line, 1000)[:-1])
    assert split_message("", 10) == [] and split_message("curto", 10) == ["curto"]


def test_html_parts_escape_model_output():
    assert telegram_html_parts("1 < 2 & <b>x</b>") == ["1 &lt; 2 &amp; &lt;b&gt;x&lt;/b&gt;"]


def test_sources_block_fits_and_says_what_was_left_out():
    verse = "Lâmpada <para> os meus pés & luz. " * 12
    sources = [Source(f"PSA.119.{n}", f"Salmos 119:{n}", verse) for n in range(1, 40)]
    text = sources_html(sources)
    assert len(text) <= 4096 and text.startswith("<b>📖 Fontes</b>\n<blockquote expandable><b>Salmos 119:1</b>")
    assert "&lt;para&gt;" in text and "&amp;" in text
    shown = text.count("<b>Salmos 119:")
    assert text.endswith(f"<i>… e mais {39 - shown} versículos (mensagem muito longa).</i>")
    single = sources_html([Source("X.1.1", "Salmos 119:1", "palavra " * 2000)])
    assert len(single) <= 4096 and single.count("<b>Salmos") == 1 and "…" in single
    few = sources_html(sources[:2])
    assert few.endswith("</blockquote>") and "mais" not in few


def test_telegram_parts_are_measured_in_utf16_units_after_escaping():
    emoji = "🙏" * 3000  # 6,000 UTF-16 units in 3,000 code points
    parts = telegram_html_parts(emoji)
    assert len(parts) == 2 and all(utf16_len(p) <= TELEGRAM_LIMIT for p in parts)
    assert "".join(parts) == emoji
    ampersands = "&" * 5000  # each becomes "&amp;": five units
    parts = telegram_html_parts(ampersands)
    assert all(utf16_len(p) <= TELEGRAM_LIMIT for p in parts)
    assert all(p.replace("&amp;", "") == "" for p in parts)  # never an entity cut in two
    assert sum(p.count("&amp;") for p in parts) == 5000


def test_a_long_word_with_markup_and_emoji_is_cut_without_losing_text():
    text = ("Deus <cuida> de você & " + "😊" * 10 + " ") * 200 + "x" * 5000
    parts = telegram_html_parts(text)
    assert all(utf16_len(p) <= TELEGRAM_LIMIT for p in parts)
    unescaped = [html.unescape(p) for p in parts]
    assert "".join(unescaped).replace(" ", "") == text.replace(" ", "")


def test_sources_block_counts_utf16_units():
    sources = [Source(f"PSA.1.{n}", f"Salmos 1:{n}", "🕊️ " * 400) for n in range(1, 6)]
    block = sources_html(sources)
    assert utf16_len(block) <= TELEGRAM_LIMIT and "mais" in block
