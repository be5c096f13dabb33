"""Loaders: the real sample files read exactly; the general dialects; clear failures."""

from __future__ import annotations

import pytest

from corpus import ACCEPTED_FORMATS, CorpusError, load
from corpus.loaders import detect_format, iter_verses
from tests.conftest import BLIVRE, FORMATS, write


@pytest.mark.parametrize(
    "name, fmt, books, chapters, verses",
    [
        ("chr-cherokee.usfx.xml", "USFX", 27, 260, 7957),
        ("eng-ylt.zefania.xml", "Zefania XML", 27, 260, 7957),
        ("lav-latvian.osis.xml", "OSIS", 27, 259, 7899),
    ],
)
def test_real_sample_files_exact_counts(shared_dir, name, fmt, books, chapters, verses):
    bible = load(FORMATS / name)
    assert bible.format == fmt
    assert len(bible.books()) == books
    assert sum(len(bible.chapters(b)) for b in bible.books()) == chapters
    assert len(bible) == verses
    assert bible.books()[0] == "MAT" and bible.books()[-1] == "REV"
    assert all(v.text and "  " not in v.text and "\n" not in v.text for v in bible.verses)


def test_zefania_notes_dropped_and_styled_text_kept(shared_dir):
    bible = load(FORMATS / "eng-ylt.zefania.xml")
    verse = bible.get("MAT", 5, 17).text
    assert verse.startswith("'Do not suppose that I came to throw out")  # inside <STYLE>
    assert "abolish" not in verse  # <DIV><NOTE> study notes
    assert bible.name == "Revised Young's Literal Translation NT"


def test_cherokee_line_breaks_inside_verses_are_normalised(shared_dir):
    bible = load(FORMATS / "chr-cherokee.usfx.xml")
    assert not any(v.text != v.text.strip() for v in bible.verses)
    assert bible.get("REV", 22, 21) is not None


@pytest.mark.slow
def test_default_corpus_reads_whole_bible(shared_dir):
    bible = load(BLIVRE)
    assert (len(bible.books()), len(bible)) == (66, 31102)
    assert sum(len(bible.chapters(b)) for b in bible.books()) == 1189
    assert "Deus" in bible.get("GEN", 1, 1).text and "mundo" in bible.get("JHN", 3, 16).text
    assert bible.chapters("PSA")[119] == 176
    assert bible.get("REV", 22, 22) is None


USFX_GENERAL = """<?xml version="1.0" encoding="utf-8"?>
<usfx>
 <book id="FRT"><p>Prefácio que não é um livro do cânon.</p></book>
 <book id="PSA"><id id="PSA">Teste</id><h>Salmos</h><toc level="1">Salmos</toc>
  <c id="1"/><s>Os dois caminhos</s>
  <p><v id="1"/>Feliz quem<f caller="+"><fr>1.1 </fr><ft>nota que some</ft></f> caminha
     devagar    e escuta
     os sábios<x caller="-">Jr 17.7</x>;
  <v id="2" bcv="PSA.1.2"/>antes tem <w s="H8451">gosto</w> na <nd>palavra</nd> do <add>Senhor</add>.<ve/></p>
  <q level="1"><v id="3"/>Será como uma horta bem cuidada<ve/></q>
  <c id="2"/><s>O rei <f>nota</f>ungido</s>
  <p><v id="1-2"/>Por que correm tanto as <qt>cidades</qt>?</p>
 </book>
 <book id="MAT"><c id="5"/>
  <p><v id="9"/><wj>Felizes os que plantam a paz</wj>,<ve/>
  <v id="10"/>texto<p>em dois parágrafos</p><ve/></p>
 </book>
</usfx>
"""


def test_usfx_general_dialect(tmp_path):
    bible = load(write(tmp_path, "a.xml", USFX_GENERAL))
    assert bible.format == "USFX" and bible.skipped_books == ("FRT",)
    ids = [v.id for v in bible.verses]
    assert ids == ["PSA.1.1", "PSA.1.2", "PSA.1.3", "PSA.2.1", "MAT.5.9", "MAT.5.10"]
    psa11 = bible.get("PSA", 1, 1)
    assert psa11.text == "Feliz quem caminha devagar e escuta os sábios;"
    assert psa11.heading == "Os dois caminhos"
    assert bible.get("PSA", 1, 2).text == "antes tem gosto na palavra do Senhor."
    assert bible.get("PSA", 1, 3).text == "Será como uma horta bem cuidada"
    assert bible.get("PSA", 2, 1).heading == "O rei ungido"
    assert bible.get("PSA", 2, 1).text == "Por que correm tanto as cidades?"
    assert bible.get("MAT", 5, 9).text == "Felizes os que plantam a paz,"
    assert bible.get("MAT", 5, 9).heading is None  # headings do not leak across books
    assert bible.get("MAT", 5, 10).text == "texto em dois parágrafos"


OSIS_MILESTONE = """<?xml version="1.0" encoding="UTF-8"?>
<osis xmlns="http://www.bibletechnologies.net/2003/OSIS/namespace">
<osisText osisIDWork="TEST"><header><work osisWork="TEST"><title>Tradução de Teste</title></work></header>
<div type="book" osisID="John"><chapter sID="John.3" osisID="John.3"/>
 <div type="section"><title>O novo nascimento</title>
 <p><verse sID="John.3.16" osisID="John.3.16"/>Porque <transChange type="added">Deus</transChange>
 cuidou<note type="study">nota</note> da cidade.<verse eID="John.3.16"/>
 <verse sID="John.3.17" osisID="John.3.17"/>Não para <hi type="italic">cobrar</hi>,</p>
 <p>mas para curar.<verse eID="John.3.17"/></p></div>
 <chapter eID="John.3"/></div>
<div type="book" osisID="Bar"><chapter osisID="Bar.1"><verse osisID="Bar.1.1">apócrifo</verse></chapter></div>
<div type="book" osisID="Jude"><chapter osisID="Jude.1">
 <verse osisID="Jude.1.1">Judas, <w lemma="x">servo</w><note><reference>Mt 1.1</reference></note>.</verse>
</chapter></div>
</osisText></osis>
"""


def test_osis_milestones_containers_notes_titles(tmp_path):
    bible = load(write(tmp_path, "b.xml", OSIS_MILESTONE))
    assert bible.format == "OSIS" and bible.name == "Tradução de Teste"
    assert [v.id for v in bible.verses] == ["JHN.3.16", "JHN.3.17", "JUD.1.1"]
    assert bible.get("JHN", 3, 16).text == "Porque Deus cuidou da cidade."
    assert bible.get("JHN", 3, 16).heading == "O novo nascimento"
    assert bible.get("JHN", 3, 17).text == "Não para cobrar, mas para curar."
    assert bible.get("JUD", 1, 1).text == "Judas, servo."
    assert bible.skipped_books == ("Bar",)


ZEFANIA = """<?xml version="1.0"?>
<XMLBIBLE biblename="Zef Teste"><INFORMATION><title>Zef Teste</title></INFORMATION>
<BIBLEBOOK bnumber="19" bname="Salmos"><CHAPTER cnumber="23">
 <CAPTION>Salmo de Davi</CAPTION>
 <VERS vnumber="1">O Senhor guarda a minha <STYLE css="x">casa</STYLE>;<BR/>nada se perde.<NOTE>nota</NOTE></VERS>
 <VERS vnumber="2">Ele me leva<DIV><NOTE>n</NOTE></DIV> a campos largos.</VERS>
</CHAPTER></BIBLEBOOK>
<BIBLEBOOK bnumber="70" bname="Sirácida"><CHAPTER cnumber="1"><VERS vnumber="1">x</VERS></CHAPTER></BIBLEBOOK>
</XMLBIBLE>
"""


def test_zefania_general(tmp_path):
    bible = load(write(tmp_path, "c.xml", ZEFANIA))
    assert bible.format == "Zefania XML" and bible.name == "Zef Teste"
    assert bible.get("PSA", 23, 1).text == "O Senhor guarda a minha casa; nada se perde."
    assert bible.get("PSA", 23, 1).heading == "Salmo de Davi"
    assert bible.get("PSA", 23, 2).text == "Ele me leva a campos largos."
    assert bible.skipped_books == ("Sirácida",)


def test_format_is_detected_from_content_not_name(tmp_path):
    assert detect_format(write(tmp_path, "biblia.txt", ZEFANIA)) == "Zefania XML"
    assert detect_format(write(tmp_path, "x.osis", USFX_GENERAL)) == "USFX"


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "vazio"),
        (b"   \n ", "vazio"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"PK\x03\x04rest-of-zip", "ZIP"),
        ('<?xml version="1.0"?><html><body>Salmo 23</body></html>', "<html>"),
        ("Gênesis 1:1 No princípio", "não é XML"),
        (USFX_GENERAL[: len(USFX_GENERAL) // 2], "truncado"),
        (USFX_GENERAL.replace("</q>", "</p>"), "malformado"),
        ('<?xml version="1.0"?><usfx><book id="GEN"></book></usfx>', "nenhum versículo"),
    ],
)
def test_bad_files_fail_clearly_naming_file_and_formats(tmp_path, content, problem):
    path = write(tmp_path, "ruim.xml", content)
    with pytest.raises(CorpusError) as info:
        load(path)
    message = str(info.value)
    assert problem in message
    assert str(path) in message
    assert all(fmt in message for fmt in ACCEPTED_FORMATS)


def test_missing_file(tmp_path):
    with pytest.raises(CorpusError, match="não encontrado"):
        load(tmp_path / "nada.xml")


def test_streaming_yields_before_failing_but_load_is_all_or_nothing(tmp_path):
    good = "".join(f'<v id="{n}"/>versículo número {n} com algum texto.<ve/>' for n in range(1, 3000))
    text = f'<?xml version="1.0"?><usfx><book id="PSA"><c id="119"/>{good}'  # never closed
    path = write(tmp_path, "truncado.xml", text)
    seen = []
    with pytest.raises(CorpusError):
        for verse in iter_verses(path):
            seen.append(verse)
    assert len(seen) > 100  # verses arrived while the file was still being read
    with pytest.raises(CorpusError, match="truncado"):
        load(path)
