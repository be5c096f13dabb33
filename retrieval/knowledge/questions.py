"""Questions about the Bible's content: a passage by its name, a person, a conversation's small talk."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from retrieval.conversation import conversation
from retrieval.evidence import FAITH_WORDS
from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge.described import (
    CALLED,
    NAME_ASKED,
    DescribedSettings,
    Mentions,
    asks_for_someone_described,
    described_settings,
    described_without_asking,
    gender_asked,
)
from retrieval.knowledge.described_people import DescribedPeople
from retrieval.knowledge.homonyms import asked_kinship
from retrieval.knowledge.passage_reading import PassageReading, beyond_names
from retrieval.knowledge.passages import NamedPassages, words_of
from retrieval.knowledge.people import PeopleIndex
from retrieval.results import OK, SearchResult
from retrieval.understand.intent import KNOWLEDGE, OFFTOPIC, QUOTATION, SITUATION, SMALLTALK, TEACHING, Intent
from retrieval.understand.message import asks_for_teaching

SMALLTALK_CONFIDENCE = 0.5
THEME_OVER_GREETING = 0.85  # below this, two or three theme words ask for the theme, not a greeting
SMALLTALK_MAX_WORDS = 12  # small talk is short; a longer message tells something
NAME_SHARE = 0.4  # a name this much of a life told or a verse quoted is asked for all the same
TEACHING_NAME_SHARE = 0.6
DESCRIBED_VERSES = 2  # verses that answered a description, shown before who the person was
STORY_SPEAKS = 3  # a story found for a relative asked answers when one of its first verses names them
DEED_POOL = 30  # verses of the search for a deed asked of someone named, among which theirs are looked for
DEED_VERSES = 2  # of them, shown right after where the person is introduced
DESCRIBING_WORDS = 3  # words beyond names and the frame of a question that describe someone asked for
LIFE_SURE = 0.7  # a life told this surely is cared for, even when it likens itself to a story ("igual ao pródigo")
SHORT = 6  # a name alone ("bodas de caná") is asked for, whatever the classifier read
# words that ask for a whole text, not one verse ("o salmo do Senhor é meu pastor", "a oração do Pai Nosso")
CONTAINERS = frozenset("salmo salmos parabola oracao historia passagem capitulo sermao texto trecho".split())
# asks about a place ("o que aconteceu em Betel?", "o que é o Gólgota?", "onde fica Nínive")
_PLACE = re.compile(r"\b(?:aconte\w+|houve|ocorreu) (?:\w+ ){0,2}(?:em|no|na|nos|nas)\b"
                    r"|\bonde (?:fica|ficava|e|era)\b|\bo ?q(?:ue)? (?:e|era|foi|significa)\b"
                    r"|\b(?:fala|diz|falam|dizem) (?:de|do|da|sobre)\b|\bcidade\b")
# asks who someone was ("quem foi Davi", "me fala de Abraão", "a história de Rute"), not about what they did
# thanks given to God ("vlw Deus por tudo", "obrigado Senhor pela vida") is praise, not small talk with the bot;
# "obrigado, Deus te abençoe" thanks the bot
_THANKS_TO_GOD = re.compile(r"\b(?:obrigad[oa]s?|obg|vlw|valeu|gracas|agradeco|gratidao)\s+(?:a\s+|ao\s+)?(?:meu\s+)?"
                            r"(?:deus|senhor|jesus|cristo|pai)\b(?!\s+(?:te|lhe|o|a|vos|os|as)?\s*aben)")
_ASKS_WHO = re.compile(r"\b(?:quem|qual|nome)\b|" + NAME_ASKED)  # someone's identity asked for
_NOT_RELATIVE = frozenset({"por", "o", "pra", "para"})  # "por que", "o que", "pra que" ask; "o servo que…" describes
_WHO_SAID = re.compile(r"\bquem (?:disse|falou|escreveu|diz|fala)\b")
_WHO = re.compile(r"\bquem (?:foi|era|eram|e|eh|sao|foram)\b|\b(?:foi|era|eram) quem\b")  # "baruque era quem?"
# the name of someone's relative asked for ("como chamava o sogro do moisés", "qual o nome da mãe de Samuel")
_NAME_OF_KIN = re.compile(NAME_ASKED + r" (?:(?:o|a) )?(?P<kin>\w+) d[aeo]s? \w")
# a relative of someone named opens the message ("o filho do jonatas q era aleijado", "a mãe de samuel")
_OPENS_WITH_KIN = re.compile(r"^(?:(?:e|tipo|aquele|aquela|sabe) )?(?:o|a) (?P<kin>\w+) d[aeo] \w")
# someone asked for by a kind that is no kinship, of someone named ("quem era o médico amigo de Paulo"): not Paulo
_KIND_OF_SOMEONE = re.compile(r"\bquem (?:foi|era|e|eh) (?:o|a) (?:\w+ )?(?P<kind>\w+) (?:\w+ )?d[aeo]s? \w+")
_ABOUT_SOMEONE = re.compile(
    r"\b(?:fala|fale|conta|conte|explica|explique)\b(?: \w+){0,3} (?:de|do|da|sobre)\b"
    r"|\b(?:falar|saber|sabe|conhecer) (?:\w+ ){0,3}(?:de|do|da|sobre)\b"
    r"|\b(?:historia|vida|biografia|resumo) d(?:[aeo]|el[ae])\b"
    # what someone did or was: "o que Gideão fez", "a profissão de Pedro", "Amós era o quê", "ficou conhecido"
    r"|\bo ?q(?:ue)? (?:\w+ ){1,3}fez\b(?! (?:em|no|na|nos|nas)\b(?! (?:biblia|escritura)))|\bfez o ?q(?:ue)?\b"
    r"|\bprofis+(?:ao|sao)\b|\btrabalhava\b|\boficio\b"
    r"|\bera (?:o ?q(?:ue)?|quem)\b|\bficou conhecid[oa]\b"
    # a spouse or relatives asked of someone: "Isaque casou com quem?", "Moisés tinha irmãos?"
    r"|\bcasou com quem\b|\bcom quem (?:\w+ )?(?:casou|era casad[oa])\b"
    r"|\b(?:tinha|teve) (?:irmaos|irmas|filhos|filhas|esposa|marido)\b"
    # someone's name asked for: "como se chamava a mãe de Samuel", "qual o nome do sogro de Moisés"
    r"|" + NAME_ASKED)


@dataclass
class Knowledge:
    """What answers a message before the hybrid search: small talk, a named passage, a person."""

    passages: NamedPassages | None = None
    people: PeopleIndex | None = None
    described: DescribedPeople | None = None  # people as askers describe them (set once the embedder is open)
    _mentions: Mentions | None = field(default=None, init=False, repr=False)
    _by_id: dict = field(default_factory=dict, init=False, repr=False)
    _describing: DescribedSettings | None = field(default=None, init=False, repr=False)
    _reading: PassageReading | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.people is not None:
            self._mentions = Mentions([p for same in self.people.by_name.values() for p in same])
            self._by_id = {p.id: p for same in self.people.by_name.values() for p in same}
            self._describing = described_settings()
        self._reading = PassageReading(self.passages, self.people, self._describing)

    def answer(self, retriever, plan, intent: Intent | None, k: int) -> SearchResult | None:
        words = words_of(plan.text).split()
        understood = intent.as_dict() if intent else None
        said = " ".join(words)  # "o que Paulo fala sobre…" inside the scope of his letters asks for a teaching
        content = [w for w in words if w not in STOPWORDS]
        described = self._described(plan, said, intent)  # "quem matou Golias?": never Golias (described_person)
        # "quem foi Boaz?", or a name said alone ("noé"): someone asked about
        who_asked = self._who_asked(retriever, plan, said) or (
            (kin := _NAME_OF_KIN.search(said)) is not None and kin.group("kin") in asked_kinship())
        asked_for = self.people.find(words, plan.text) if self.people is not None and (
            who_asked or len(content) == 1 and self.people.names_someone(content[0])) else None
        named = self._named(plan, intent, words, retriever)
        kin = self.people.relative(asked_for, words) if asked_for is not None else None  # "a mãe de Samuel"
        if named is not None and (asked_for is None or asked_for.name in self.passages.words_of_names(named)
                                  and kin is None):
            result = self._passage(retriever, plan, named, understood)  # "quem foi Apolo na igreja primitiva?"
            return self._reading.from_introduction(retriever, result, asked_for) if who_asked and asked_for \
                else result
        # a word or two that are Scripture's own words for a theme ("paz", "amor e paz") ask for that theme
        vocabulary = {word for concept in plan.concepts for word in concept.vocabulary}
        unsure = intent is None or intent.confidence < THEME_OVER_GREETING  # "graça e paz!" greets
        theme = 0 < len(content) <= 3 and all(w in vocabulary for w in content) and (len(words) == 1 or unsure)
        # ... and so does one word that is how people name a theme ("orgulho", "preguiça"; "obrigado" thanks)
        theme = theme or len(content) == 1 and unsure and any(c.triggered_by(content[0]) for c in plan.concepts)
        who = asked_for is not None
        if intent is not None and intent.name == SMALLTALK and _chat_rather_than_nothing(intent) \
                and plan.scope is None and len(words) <= SMALLTALK_MAX_WORDS and not theme and not who \
                and not _THANKS_TO_GOD.search(said) and not retriever.verbatim.quoted(plan.text) \
                and not asks_for_teaching(plan.text):
            # "qm foi boaz": a person asked for, however short; "eis-me aqui, envia-me": a verse quoted;
            # "passagens sobre gratidão": verses asked for, whatever their theme sounds like
            return conversation(plan, intent)
        asks_about = intent is not None and intent.name in (KNOWLEDGE, TEACHING) or who
        if self.people is not None and asks_about and not described and (who_asked or plan.scope is None and (
                len(words) <= 3 or _ABOUT_SOMEONE.search(said))):
            homonyms = self.people.homonyms(words, plan.text)  # "quem foi Tiago?": the best known, and which
            person = homonyms[0][0] if homonyms else self.people.find(words, plan.text)  # one is asked
            if person is not None and not homonyms and self._describes(content) and retriever.stories is not None:
                person = self.people.namesake_described(  # "Gamaliel… defendeu os apóstolos": the one of Acts
                    words, plan.text, retriever.stories.verse_vectors, lambda: retriever.embed_query(plan.text)) \
                    or person
            if person is not None and (by := self._asked_by_description(retriever, plan, intent, said)) is not None:
                return self._person(retriever, plan, by, understood, k,  # "o marido da Bate-Seba que Davi…": Urias
                                    asked=self._deed_asked(retriever, plan, by, content))
            if person is not None:
                person = self.people.relative(person, words) or person  # "o pai de João Batista"
                return self._person(retriever, plan, person, understood, k, homonyms,
                                    asked=self._deed_asked(retriever, plan, person, content))
        # "Quem" opens sentences, "as Escrituras" are capitalised: never a place
        named_words = [w for w in words if w not in STOPWORDS and w not in FAITH_WORDS]
        place = self.people.named_in(named_words) if self.people is not None and asks_about and plan.scope is None \
            and _PLACE.search(said) else None
        if place is not None:  # "o que aconteceu em Betel?": the most-read verses that name it
            name, positions = place
            votes = retriever.topics.best_known(list(positions), k) if retriever.topics is not None else []
            chosen = list(dict.fromkeys([*votes, *positions]))[:k]
            fused = [(p, 1.0 / (i + 1)) for i, p in enumerate(chosen)]
            hits, _ = retriever._select(fused, {"lugar": {p: i + 1 for i, p in enumerate(chosen)}}, {}, k)
            return SearchResult(plan.original, OK, hits, plan.scope, mode="lugar", intent=understood,
                                named=name)
        if self.passages is not None and intent is not None and intent.name == KNOWLEDGE and len(words) <= SHORT + 2 \
                and plan.scope is None:  # "nos evangelhos" names where to look, not the Great Commission
            named = self.passages.by_own_word(plan.text)  # "me conta sobre o dilúvio"
            if named is not None:
                return self._passage(retriever, plan, named, understood)
        return None

    def _describes(self, content: list[str]) -> bool:
        """Whether the question says enough beyond names and its frame to describe someone."""
        return len([w for w in beyond_names(content, (), self._describing.frame)
                    if not self.people.names_someone(w)]) >= DESCRIBING_WORDS

    def _asked_by_description(self, retriever, plan, intent: Intent | None, said: str):
        """The person a question about Scripture asks for by a description, as the asking gate reads it
        (`DescribedPeople.asked`), whatever other names it says; of the gender asked for, if any; else None."""
        if self.described is None or intent is None or intent.name not in (KNOWLEDGE, TEACHING, QUOTATION) or \
                plan.scope is not None:
            return None
        if not _ASKS_WHO.search(said) or _WHO_SAID.search(said):  # "quem falou que…": the verse that says it
            return None
        words = said.split()
        content = [w for w in words if w not in STOPWORDS]
        if not self._describes(content):  # "quem foi neemias?": a name asked for, however its askers describe others
            return None
        found = self.described.asked(plan.text, retriever.embed_query(plan.text), self.people.everyone_named(words))
        person = self._by_id.get(found or "")
        gender = gender_asked(said, self._describing)
        return person if person is not None and (not gender or not person.gender or person.gender == gender) else None

    def _described(self, plan, said: str, intent: Intent | None) -> str | None:
        """How someone is asked for by a description, the names said being others: "asked" ("quem matou
        Golias?"; "quem foi Pedro, que negou Jesus?" asks for Pedro by name, "a mãe de Samuel" for a relative),
        "told" (a kind of person and their deed, no question word: "o soldado q escondeu…"), else None."""
        if self._mentions is None or intent is None or intent.name in (SMALLTALK, SITUATION) or \
                intent.name == TEACHING and not CALLED.search(said):
            return None  # a knowledge question, one read as a verse or off the subject ("qual rei pediu…"), or a
            # name asked however the rest reads ("como se chamava o homem obrigado a levar a cruz?")
        how, asked = "asked", asks_for_someone_described(plan.text, self._describing.kinds)
        of = _KIND_OF_SOMEONE.search(said)
        if asked is None and of is not None and of.group("kind") in self._describing.kinds and \
                of.group("kind") not in asked_kinship():
            return "asked"
        if asked is None:
            how, asked = "told", described_without_asking(plan.text, self._describing.kinds)
        if asked is None or self.people.names_anyone(asked):
            return None
        words, kin = said.split(), asked_kinship()
        return None if any(w in kin and after in ("de", "do", "da") for w, after in zip(words, words[1:])) else how

    def described_person(self, retriever, plan, intent: Intent | None, found: SearchResult,
                         k: int) -> SearchResult | None:
        """Someone asked for by a description ("quem negou Jesus três vezes?"): whom the verses the search
        found for it speak of (``found``, the message's own results), when sure; a description told without a
        question ("o soldado q escondeu…") only by the descriptions askers wrote, and never over a verse quoted
        or a story found."""
        said = words_of(plan.text)
        positions = [retriever.bible.position(*h.verse.key) for h in found.hits]
        if (relative := self._relative_opening(retriever, plan, said, intent)) is not None:
            story = found.mode == "historia" and any(relative in self._mentions.at(p) for p in positions[:STORY_SPEAKS])
            if not story:  # a story found that speaks of them from its first verses answers better
                return self._described_answer(retriever, plan, relative, positions, intent, k)
        how = self._described(plan, said, intent)
        person = None if how is not None else self._asked_by_description(retriever, plan, intent, said)
        if how is None and person is None and found.mode not in ("citacao", "historia"):
            person = self._surely_described(retriever, plan, intent, said)
        if person is not None:
            return self._described_answer(retriever, plan, person, positions, intent, k)
        if how is None or how == "told" and found.mode in ("citacao", "historia"):
            return None
        gender = gender_asked(said, self._describing)
        spoken_of = frozenset(p.id for position in positions for p in self._mentions.at(position))
        person = (self._asked_by_description(retriever, plan, intent, said) if how == "asked" else None) or \
            self._described_by_askers(retriever, plan, gender, spoken_of) or (self._mentions.most_spoken_of(
                positions, set(said.split()), gender, self._describing) if how == "asked" else None)
        if person is None:
            return None
        return self._described_answer(retriever, plan, person, positions, intent, k)

    def _described_answer(self, retriever, plan, person, positions: list[int], intent: Intent, k: int) -> SearchResult:
        """The person described, led by the verses found that speak of them (the deed asked about)."""
        told = [p for p in positions if person in self._mentions.at(p)][:DESCRIBED_VERSES]
        return self._person(retriever, plan, person, intent.as_dict(), k, lead=told)

    def _surely_described(self, retriever, plan, intent: Intent | None, said: str):
        """Someone a question about Scripture asks for in words its askers' descriptions share, however it is
        phrased ("com quem a Rute se casou depois que ficou viúva?"): the person of the nearest descriptions, when
        near and agreeing, never one it names; else None (asked only when no verse quoted or story was found: the
        descriptions alone read "a mulher que desceu os espias pela janela" as Mical)."""
        if self.described is None or intent is None or intent.name != KNOWLEDGE or plan.scope is not None or \
                not _ASKS_WHO.search(said) or _WHO_SAID.search(said):
            return None
        return self._described_by_askers(retriever, plan, named=self.people.everyone_named(said.split()))

    def _relative_opening(self, retriever, plan, said: str, intent: Intent | None):
        """The relative of someone named that opens a question about the Bible ("o filho do jonatas q era
        aleijado": Mefibosete, not the story of Davi and Jônatas its words found): the one the descriptions name,
        when they name a relative of theirs ("o filho do rei Davi que se rebelou…": Absalão, not Salomão, the best
        known); None otherwise."""
        opening = _OPENS_WITH_KIN.match(said)
        if opening is None or opening.group("kin") not in asked_kinship() or intent is None or \
                intent.name in (SMALLTALK, SITUATION, TEACHING):
            return None
        named = self.people.find(said.split(), plan.text)
        relative = self.people.relative(named, said.split()) if named is not None else None
        if relative is None:
            return None
        described = self._asked_by_description(retriever, plan, intent, said) or \
            self._surely_described(retriever, plan, intent, said)
        related = described is not None and any(name == named.name for _, name, _ in described.relatives)
        return described if related else relative

    def _described_by_askers(self, retriever, plan, gender: str = "", spoken_of: frozenset[str] = frozenset(),
                             named: frozenset[str] | None = None):
        """The person the nearest descriptions askers wrote name (retrieval/knowledge/described_people.py), of
        the gender asked for if any; None when they neither agree nor match whom the verses found speak of; never
        one of ``named``, by default those named inside the description ("o gigante que o Davi derrubou" is not
        Davi; "Judas, aquele que…" may be Judas)."""
        if self.described is None:
            return None
        if named is None:
            words = words_of(plan.text).split()
            that = next((i for i, w in enumerate(words) if w in ("que", "q") and (i == 0 or words[i - 1] not in
                                                                              _NOT_RELATIVE)), len(words))
            named = self.people.everyone_named(words[that + 1:])
        found = self.described.person(plan.text, retriever.embed_query(plan.text), spoken_of, named)
        person = self._by_id.get(found or "")
        return person if person is not None and (not gender or not person.gender or person.gender == gender) else None

    def _deed_asked(self, retriever, plan, person, content: list[str]) -> list[int]:
        """The person's verses (those naming them and their events') that the search finds for what the question
        asks of them beyond who they were ("o que Saul fez de tão errado…": 1 Sm 15:23); none for "quem foi Saul?"."""
        asked = beyond_names(content, {person.name, *person.qualifiers, *person.also, *person.called},
                             self._describing.frame)
        if len(asked) < self._describing.deed_words:
            return []
        theirs = set(person.positions) | {p for _, positions in person.events for p in positions}
        found = retriever.search_positions(plan, DEED_POOL)
        return [p for p in found if p in theirs][:DEED_VERSES]

    def _person(self, retriever, plan, person, understood, k: int, homonyms=(), lead=(), asked=()) -> SearchResult:
        """The person's key passages, best known first (after ``lead``, the verses that answered a description;
        ``asked``, the verses of a deed asked about, right after where the person is introduced)."""
        votes = retriever.topics.best_known if retriever.topics is not None else None
        key = self.people.key_passages(person, votes)
        chosen = list(dict.fromkeys([*lead, *key[:1], *asked, *key[1:]] if asked else [*lead, *key]))
        fused = [(p, 1.0 / (i + 1)) for i, p in enumerate(chosen)]
        hits, _ = retriever._select(fused, {"pessoa": {p: i + 1 for i, p in enumerate(chosen)}}, {}, k)
        return SearchResult(plan.original, OK, hits, plan.scope, mode="pessoa", intent=understood,
                            named=person.display, homonyms=[
                                {"id": p.id, "description": d, "gender": p.gender} for p, d in homonyms])

    def passage(self, retriever, query: str, named, references) -> SearchResult:
        """A passage named inside the chapter given ("eu sou o bom pastor, João 10"), read from where it asks."""
        return self._reading.read(retriever, self._reading.beside(retriever, query, references), named, None)

    def chapter(self, retriever, query: str, chapter, result: SearchResult) -> SearchResult:
        """A chapter given by its reference, read from the verse the message asks inside it."""
        return self._reading.read_chapter(retriever, query, chapter, result)

    def _passage(self, retriever, plan, named, understood) -> SearchResult:
        return self._reading.read(retriever, plan, named, understood)

    def _named(self, plan, intent: Intent | None, words: list[str], retriever):
        """The passage the message names: asked for by its name, inside the scope asked, not a life told or a
        verse quoted that happens to hold a name's words ("…o vale da sombra da morte…" quotes one verse of
        Psalm 23; "eu sou o caminho, a verdade e a vida" quotes John 14:6, not the chapter)."""
        match = self.passages.match(plan.text) if self.passages is not None else None
        if match is None:
            return None
        passage, share, titled = match
        if not _in_scope(passage, plan):
            return None  # "em Provérbios, o que se diz sobre a língua?" asks Proverbs, not James 3
        if not titled and (intent is None or intent.name not in (KNOWLEDGE, TEACHING)) and \
                retriever.verbatim.quoted(plan.text):
            return None  # a verse said word for word; a question about the story may say its words too
        if not titled and share < NAME_SHARE and self._another_story_retold(retriever, plan, passage):
            return None  # "…Jesus já tinha ressuscitado, na praia, mandou jogar a rede do outro lado": João 21
        if self.passages.story_asked(plan.text, passage) and not (
                intent is not None and intent.name == SITUATION and intent.confidence >= LIFE_SURE):
            return passage  # "preciso da história do bom samaritano pra contar às crianças": a life said beside it
        return passage if share >= self._share_needed(intent, words, titled) else None

    def _who_asked(self, retriever, plan, said: str) -> bool:
        """Whether the message asks who someone was: "quem foi Davi?", "baruque era quem?"; not when "quem era"
        asks of no one named and a story is plainly retold ("salomão mandou partir a criança… pra saber quem era a
        mãe verdadeira": the judgment of Salomão)."""
        found = list(_WHO.finditer(said))
        if not found or self.people is None:
            return bool(found)
        return not all(self._asks_of_another(said[m.end():].split()) for m in found) or \
            not self._another_story_retold(retriever, plan)

    def _asks_of_another(self, after: list[str]) -> bool:
        """Whether the words after "quem era" describe someone by a kind ("a mãe de verdade", "o homem que…"), not
        someone named by their title ("a profetisa Hulda") or the relative of someone named ("a mãe de Samuel")."""
        described = len(after) > 1 and after[0] in ("o", "a", "os", "as") and after[1] in self._describing.kinds
        return described and not self.people.names_anyone(after[2:3]) and not (
            len(after) > 3 and after[2] in ("de", "do", "da") and self.people.names_anyone(after[3:4]))

    @staticmethod
    def _another_story_retold(retriever, plan, passage=None) -> bool:
        """Whether the message plainly retells a story (other than ``passage``), by the retellings' nearness."""
        story = retriever._story_guess(plan)
        return story.retold_plainly and retriever.stories.names[story.told] != getattr(passage, "name", None)

    def mentioned(self, retriever, plan, intent: Intent | None) -> SearchResult | None:
        """The passage a message names when nothing else answers it ("aquela do bom samaritano" reads as a
        quotation, but no verse holds it): better the passage than "the Bible does not address it"."""
        match = self.passages.match(plan.text) if self.passages is not None else None
        if match is None or match[1] < NAME_SHARE or not _in_scope(match[0], plan):
            return None
        return self._passage(retriever, plan, match[0], intent.as_dict() if intent else None)

    @staticmethod
    def _share_needed(intent: Intent | None, words: list[str], titled: bool = False) -> float:
        """How much of the message a passage's name must be: none when the Bible is asked about; most of it
        when a teaching is asked ("o que Jesus disse sobre amar os inimigos?" asks for the teaching)."""
        if intent is None or intent.name not in (TEACHING, SITUATION, QUOTATION):
            return 0.0
        if intent.name == TEACHING:  # unless the text is named as one ("o que Jesus ensinou no Sermão do Monte?")
            return NAME_SHARE if CONTAINERS.intersection(words) else TEACHING_NAME_SHARE
        if intent.name == QUOTATION:  # a passage's other names may be its best-known verse: that verse is asked
            # for, unless the passage's title ("a sarça ardente") or "the psalm of..." is said
            return NAME_SHARE if CONTAINERS.intersection(words) or titled else 2.0
        return NAME_SHARE if len(words) > SHORT else 0.0


def _in_scope(passage, plan) -> bool:
    """Whether the passage lies inside the scope the message asks for (any, when it asks for none)."""
    return plan.scope is None or passage.reference.book in plan.scope.books


def _chat_rather_than_nothing(intent: Intent) -> bool:
    """Small talk surely, or small talk against off the subject only ("dá pra mandar foto?"): either way no
    verse answers it, and a word about how the bot works answers better than "the Bible does not address it"."""
    if intent.confidence >= SMALLTALK_CONFIDENCE:
        return True
    others = sorted(((p, name) for name, p in intent.probabilities.items() if name != SMALLTALK), reverse=True)
    return bool(others) and others[0][1] == OFFTOPIC
