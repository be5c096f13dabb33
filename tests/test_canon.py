from collections import Counter

from corpus import canon


def test_sixty_six_books_in_order_with_1189_chapters():
    assert len(canon.BOOKS) == 66
    assert [b.number for b in canon.BOOKS] == list(range(1, 67))
    assert sum(b.chapters for b in canon.BOOKS) == 1189
    assert canon.BOOKS[0].code == "GEN" and canon.BOOKS[-1].code == "REV"


def test_testaments_and_groups():
    testaments = Counter(b.testament for b in canon.BOOKS)
    assert testaments == {"AT": 39, "NT": 27}
    groups = Counter(b.group for b in canon.BOOKS)
    assert groups == {
        "Lei": 5, "Históricos": 12, "Poéticos": 5, "Profetas Maiores": 5, "Profetas Menores": 12,
        "Evangelhos": 4, "Atos": 1, "Cartas Paulinas": 13, "Cartas Gerais": 8, "Apocalipse": 1,
    }
    assert canon.book("ROM").group == "Cartas Paulinas"
    assert canon.book("PHM").group == "Cartas Paulinas"
    assert canon.book("HEB").group == "Cartas Gerais"
    assert canon.book("JON").group == "Profetas Menores"


def test_names_and_codes():
    assert canon.book("PSA").name == "Salmos"
    assert canon.book("JOB").name == "Jó"
    assert canon.book("1CO").name == "1 Coríntios"
    assert canon.book("1co").osis == "1Cor"
    assert canon.BY_OSIS["matt"].code == "MAT"
    assert canon.BY_NUMBER[40].code == "MAT"
    assert canon.book("2SA").numbered and not canon.book("PSA").numbered
