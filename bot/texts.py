"""Every fixed text the user reads, in Brazilian Portuguese (the user's decisions in DESIGN.md)."""

NO_EVIDENCE = (
    "O texto bíblico indexado não aborda diretamente esse assunto. Posso meditar com você os princípios "
    "de amor e sabedoria presentes na Palavra, se quiser explorar um deles."
)
UNANCHORED_NOTE = (
    "Observação: não foi possível ancorar esta resposta em um versículo específico do texto indexado. "
    "Os trechos consultados estão listados abaixo."
)
EMPTY = "Não recebi nenhum texto. Escreva com suas palavras o que está no seu coração, e eu respondo."
NO_WORDS = (
    "Recebi sua mensagem. Quando quiser, me conte com palavras o que está no seu coração (uma alegria, uma "
    "dor, uma dúvida ou um pedido de oração), e eu respondo com a Palavra."
)
TOO_LONG = (
    "Sua mensagem passou de {limit} caracteres, e eu só consigo ler mensagens até esse tamanho. "
    "Você pode resumir ou dividir em partes menores?"
)
REFERENCE_MISSING = (
    "Essa referência não existe no texto bíblico indexado ({translation}). {details}"
    "Confira o livro, o capítulo e o versículo, ou me conte o que você procura."
)
BOOK_CHAPTERS = "{book} tem {count} capítulos. "
CHAPTER_VERSES = "{book} {chapter} tem {count} versículos. "
LLM_ERROR = (
    "Desculpe: não consegui preparar a resposta agora porque o serviço de linguagem ({provider}) não "
    "respondeu como deveria. Tente de novo em alguns minutos. Os versículos encontrados estão nas fontes."
)
EXTRACTIVE_INTRO = "Estes versículos falam ao que você compartilhou:"
EXTRACTIVE_REFERENCE_INTRO = "Eis o texto:"
EXTRACTIVE_BOOK_INTRO = "Alguns dos versículos mais conhecidos do livro:"
EXTRACTIVE_PERSON_INTRO = "Passagens que contam quem foi {name} na Bíblia:"
EXTRACTIVE_PASSAGE_INTRO = "{name}:"
EXTRACTIVE_STORY_INTRO = "Parece ser esta passagem — {name}:"
EXTRACTIVE_PLACE_INTRO = "Passagens da Bíblia que falam de {name}:"
EXTRACTIVE_TEACHING_INTRO = "Alguns textos bíblicos sobre o assunto:"
EXTRACTIVE_QUOTE_INTRO = "Parece ser este versículo:"
EXTRACTIVE_QUOTE_OTHERS = "Outros versículos parecidos:"
LONG_PASSAGE = (
    "Mostrei {shown} ({count} de {total} versículos). Para continuar a leitura, peça “{next}”."
)
FIRST_VERSES = "os primeiros {count} versículos"
BOOK_SIZE = "{book} tem {chapters} capítulos e {verses} versículos."
BOOK_ONE_CHAPTER = "{book} tem um só capítulo, com {verses} versículos."
BOOK_READING = "Para ler o livro, peça um capítulo (por exemplo, “{chapter}”) ou um trecho (“{passage}”)."
BOOK_NOTE = (
    "A pessoa pergunta sobre o livro como um todo. Apresente-o em poucas frases a partir destes versículos, "
    "sem afirmar nada que eles não mostrem."
)
MEDICAL = (
    "Sobre remédios, tratamentos ou diagnósticos, converse com seu médico ou profissional de saúde: "
    "não posso orientar sobre isso, e nenhuma decisão sobre medicação deve ser tomada sem ele."
)
# "quem foi Tiago?": the passages of the best known, then which one is meant ({um}: "um"/"uma", {deles})
HOMONYMS = ("Há mais de {um} {name} na Bíblia: {options}. Estas passagens falam de {first}. "
            "De qual {deles} você quer saber?")
HOMONYMS_WORDS = {"masculino": {"um": "um", "deles": "deles"}, "feminino": {"um": "uma", "deles": "delas"}}
HOMONYMS_NOTE = (
    "O nome da pergunta é de mais de uma pessoa da Bíblia; estas fontes falam de {first}. Fale só dessa pessoa. "
    "Não pergunte de qual delas a pessoa quer saber: essa pergunta será acrescentada depois da sua resposta."
)
