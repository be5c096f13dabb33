"""A named passage read from where the question asks: its start, the moment asked about ("Sansão achou mel no
leão morto?"), the verse typed from memory or quoted in marks inside it, or where the person asked about comes in."""

from __future__ import annotations

from dataclasses import dataclass, replace

from corpus.references import Reference, verses_of
from corpus.text import normalize
from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge.described import DescribedSettings
from retrieval.knowledge.passages import NamedPassages, words_of
from retrieval.knowledge.people import PeopleIndex
from retrieval.results import REFERENCE, SearchResult
from retrieval.understand.message import quoted_line
from retrieval.understand.query import plan_query

MAX_PASSAGE_VERSES = 200
PART_SHOWN = 5  # a question about a moment of a long passage, held by a verse past this many verses (with the
# words described.toml's palavras_do_feito asks beyond the passage's names)…
PART_LEAD = 3  # … reads it from this many verses before that one ("Sansão achou mel no leão morto?"), from that
# one itself when the question asks for the verse ("em que versículo Sansão acha o mel?")
PART_LONGEST = 120  # verses: in a longer passage (José's 449) two words meet by chance far from what is asked
QUOTED_HELD = 3  # words of a line quoted in marks that the verse saying it holds, at least
WHAT_SAID_WITHIN = 4  # words before a verb of saying where "o que" asks what was said, not gives the line
REMEMBERED_HELD = 2  # words of the message that a verse typed from memory holds, at least, to open its passage


def passage_result(retriever, query: str, named, scope=None, understood=None) -> SearchResult:
    """The named passage's verses, in order, as one text."""
    positions = [retriever.bible.position(*v.key) for v in verses_of(named.reference, retriever.bible)]
    hits = [retriever._hit(p, 1.0, {"passagem": i + 1}) for i, p in enumerate(positions[:MAX_PASSAGE_VERSES])]
    return SearchResult(query, REFERENCE, hits, scope, mode="passagem", total=len(positions),
                        intent=understood, named=named.name)


def beyond_names(words: list[str], names, frame: frozenset[str]) -> list[str]:
    """The words a question says beyond the names it asks about and the frame of any question ("quem", "foi")."""
    return [w for w in words if w not in names and w not in frame and len(w) > 2]


@dataclass(frozen=True)
class PassageReading:
    """Where a named passage is read from, by what the question says beside its name."""

    passages: NamedPassages | None
    people: PeopleIndex | None
    describing: DescribedSettings | None

    @property
    def _asking_frame(self) -> frozenset[str]:
        """The words that only frame a question: about someone, for a verse."""
        d = self.describing
        return d.frame | d.verse_frame | d.verse_asked | d.line_asked

    def read(self, retriever, plan, named, understood) -> SearchResult:
        result = passage_result(retriever, plan.original, named, plan.scope, understood)
        positions = [retriever.bible.position(*h.verse.key) for h in result.hits]
        start = self._verse_remembered(retriever, plan, positions) or self._line_quoted(retriever, plan, positions) \
            or self._part_asked(retriever, plan, named, positions)
        return replace(result, hits=result.hits[start:]) if start else result

    def from_introduction(self, retriever, result: SearchResult, person) -> SearchResult:
        """A passage named for the person asked about ("quem foi a rainha Ester?"), read from a little before
        where the person comes in (Ester 2:4, not the banquet of Xerxes that opens the book)."""
        positions = [retriever.bible.position(*h.verse.key) for h in result.hits]
        introduction = self.people.introduction(person)
        if introduction not in positions or positions.index(introduction) <= PART_LEAD:
            return result
        return replace(result, hits=result.hits[positions.index(introduction) - PART_LEAD:])

    @staticmethod
    def beside(retriever, query: str, references: list[Reference]):
        """The question's plan without the references it gives (their words would be counted as asked)."""
        text = normalize(query)
        for reference in sorted(references, key=lambda r: r.start, reverse=True):
            text = f"{text[:reference.start]} {text[reference.end:]}"
        return replace(plan_query(text, retriever.thesaurus), original=query)

    def read_chapter(self, retriever, query: str, chapter: Reference, result: SearchResult) -> SearchResult:
        """A chapter given with what is asked inside it ("isaías 6, onde ele fala eis-me aqui? qual o número do
        versículo"), read from the verse it quotes or tells (word for word, from memory, in marks, or by the most
        of its words); the whole chapter when it asks nothing of one verse ("salmo 91 pra minha mãe")."""
        plan = self.beside(retriever, query, [chapter])
        positions = [retriever.bible.position(*h.verse.key) for h in result.hits]
        start = self._verse_remembered(retriever, plan, positions) or self._line_quoted(retriever, plan, positions) \
            or self._verse_told(retriever, plan, positions)
        return replace(result, hits=result.hits[start:]) if start else result

    def _verse_told(self, retriever, plan, positions: list[int]) -> int:
        """The verse holding the most of what the question says beyond the frame of asking for one (two words at
        least), the nearest one; 0 (from the start) when none does."""
        if self.describing is None or len(positions) <= 1:
            return 0
        return self._most_said(retriever, plan, positions, frozenset()) or 0

    @staticmethod
    def _verse_remembered(retriever, plan, positions: list[int]) -> int:
        """Where the verse quoted word for word or typed from memory lies in the passage its words name ("entrega
        teu caminho pro senhor, confia q ele faz. salmo qual?": Psalm 37 from verse 5; "qual salmo diz 'ensina-nos
        a contar os nossos dias'?": Psalm 90 from verse 12); 0 (from the start) when none is."""
        said = list(retriever.verbatim.quoted(plan.text))
        if retriever.remembered is not None and (
                remembered := retriever.remembered.verses(plan.text, retriever.embed_query(plan.search_text))):
            # a saying the message's own words hold: "a mulher samaritana no poço" names the story, not John 4:29
            holding = retriever.lexical.coordination(plan.alternatives)
            said += [p for p in remembered if holding[p] >= REMEMBERED_HELD]
        return next((positions.index(p) for p in said if p in positions), 0)

    @staticmethod
    def _line_quoted(retriever, plan, positions: list[int]) -> int:
        """Where the line the question quotes in marks is said in the passage, in other words than this Bible's
        ("onde Pedro fala pro coxo 'não tenho prata nem ouro…'?": Acts 3 from verse 6): the verse holding the most
        of its words (``QUOTED_HELD`` at least), the nearest one; 0 (from the start) when none does."""
        line = quoted_line(plan.original)
        if line is None or len(positions) <= 1:
            return 0
        held = retriever.lexical.coordination(plan_query(line, retriever.thesaurus).alternatives)[positions]
        if int(held.max()) < QUOTED_HELD:
            return 0
        return _nearest_holding_most(retriever, plan, held, positions)

    def _part_asked(self, retriever, plan, named, positions: list[int]) -> int:
        """Where to start reading a long passage when the question asks about one moment of it ("Sansão matou um
        leão e achou mel?"): a little before the verse that holds the most of what it says beyond the passage's
        names (two words at least, more than any of the first verses holds), the nearest such one; 0 (from the
        start) otherwise ("daniel na cova dos leões, me manda essa passagem")."""
        if self.describing is None or not PART_SHOWN < len(positions) <= PART_LONGEST:
            return 0
        said = {g[0] for g in plan.alternatives if g}
        # asking for the verse or for who said a line: read from it, wherever it lies, and the passage's own words
        # tell which too ("em que versículo jogam Daniel na cova?", "quem disse 'tu és este homem'?")
        exact = bool(self.describing.verse_asked & said) or self._line_given(plan)
        names = frozenset() if exact else self.passages.words_of_names(named)
        moment = self._most_said(retriever, plan, positions, names, beyond_first=0 if exact else PART_SHOWN)
        return 0 if moment is None else moment - (0 if exact else PART_LEAD)

    def _line_given(self, plan) -> bool:
        """Whether the question gives a line someone said ("quem disse 'tu és este homem'?", "elias falando pro povo
        até quando…"), not asks what was said ("o que Davi disse pro gigante antes de atirar a pedra?")."""
        words = words_of(plan.original).split()
        for i, word in enumerate(words):
            if word in self.describing.line_asked:
                before = words[max(0, i - WHAT_SAID_WITHIN):i]
                return "oq" not in before and not any(
                    a == "o" and b in ("que", "q") for a, b in zip(before, before[1:]))
        return False

    def _most_said(self, retriever, plan, positions: list[int], names: frozenset[str],
                   beyond_first: int = 0) -> int | None:
        """The index of the verse holding the most of what the question says beyond ``names`` and the frame of
        asking (``deed_words`` at least, and more than any of the first ``beyond_first`` verses holds), the nearest
        the question among ties; None when none does."""
        said = beyond_names([g[0] for g in plan.alternatives if g and g[0] not in STOPWORDS], names,
                            self._asking_frame)
        asked = list({group[0]: group for group in plan.alternatives if group and group[0] in said}.values())
        if not asked:
            return None
        held = retriever.lexical.coordination(asked)[positions]
        most = int(held.max())
        if most < self.describing.deed_words or beyond_first and most <= held[:beyond_first].max():
            return None
        return _nearest_holding_most(retriever, plan, held, positions)


def _nearest_holding_most(retriever, plan, held, positions: list[int]) -> int:
    """The index of the passage verse holding the most of the asked words, the nearest the question among ties."""
    most = held.max()
    moment = [i for i, count in enumerate(held) if count == most]
    return moment[retriever.nearest_within(plan, [positions[i] for i in moment])]
