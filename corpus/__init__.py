"""Bible corpus: loaders, the 66-book canon and Portuguese references."""

from corpus.bible import Bible, load
from corpus.loaders.errors import ACCEPTED_FORMATS, CorpusError
from corpus.verse import Verse

__all__ = ["ACCEPTED_FORMATS", "Bible", "CorpusError", "Verse", "load"]
