"""Texts the channels send (Brazilian Portuguese)."""

ONLY_TEXT = ("Por enquanto eu só consigo ler mensagens de texto. Pode me escrever com suas palavras o que "
             "está no seu coração?")
RATE_LIMITED = ("Recebi sua mensagem. Você enviou muitas mensagens em sequência; vou responder em cerca de "
                "{seconds} segundos, sem perder nenhuma.")
NO_SOURCES = "Ainda não há fontes: faça uma pergunta e eu mostro os versículos em que a resposta se apoiou."
NEW_CONVERSATION = "Pronto: começamos uma conversa nova. As mensagens anteriores não serão mais consideradas."
ERASE_CONFIRM = ("Quer mesmo apagar tudo o que guardei desta conversa (mensagens, fontes e registros)? "
                 "Isso não pode ser desfeito.")
ERASED = "Apaguei tudo o que estava guardado desta conversa."
ERASE_CANCELLED = "Nada foi apagado."
SORRY = "Desculpe, algo deu errado ao preparar a resposta. Pode tentar de novo em instantes?"
SOURCES_OFFER = "Quer ver os versículos em que esta resposta se apoiou?"
# the help texts are made of these and the command table (bot/commands.py)
HELP_INTRO = ("Escreva como escreveria a um pastor: o que está sentindo, uma dúvida, um pedido de oração, ou uma "
              "referência como \"João 3:16\". Eu respondo com base em versículos que encontro no texto bíblico.")
HELP_COMMANDS = "Comandos:"
CONSOLE_INTRO = ("Pastor Online — conversa no terminal. {sources} mostra as fontes; {new} recomeça; "
                 "{help} lista os comandos; {exit} encerra.")
CONSOLE_EXIT_HELP = "encerrar a conversa no terminal"
HELP_KEYWORDS = "Palavras que funcionam como comandos:"
HELP_INLINE = ("Em qualquer conversa, escreva @ e o nome deste bot seguido de uma referência ou de um assunto para "
               "enviar versículos a alguém.")


def welcome(attribution: str, help_command: str, erase_command: str) -> str:
    return (
        "Olá! Sou o Pastor Online, um assistente de conversa pastoral. Posso ouvir, orar com você e "
        "compartilhar palavras de consolo e orientação da Bíblia — sempre mostrando os versículos em que "
        "me apoio. Também posso mandar um versículo do dia no horário que você escolher, e imagens de "
        f"versículos para compartilhar (veja {help_command}).\n\n"
        "O que eu não faço: não substituo o cuidado de um pastor, de um médico ou de um psicólogo, não dou "
        "diagnósticos nem conselhos médicos, jurídicos ou financeiros. Em situações de risco, procure "
        "imediatamente o serviço de emergência da sua região e pessoas de confiança.\n\n"
        "Privacidade: guardo as últimas mensagens desta conversa e as fontes da última resposta para dar "
        f"continuidade ao diálogo, por tempo limitado; {erase_command} apaga tudo na hora.\n\n"
        f"Texto bíblico: {attribution}."
    )
VOICE_HEARD = "🎙️ “{text}”"
VOICE_TOO_LONG = ("Seu áudio passa do tamanho que consigo ouvir (até {limit} segundos{length}). Pode mandar "
                  "um áudio mais curto, dividir em partes ou me escrever?")
VOICE_EMPTY = ("Não consegui entender o que foi dito no áudio. Pode tentar de novo, num lugar mais silencioso, "
               "ou me escrever?")
VOICE_FAILED = ("Recebi seu áudio, mas o serviço que transcreve a voz não respondeu agora. Pode tentar de novo em "
                "alguns minutos ou me escrever?")
VOICE_UNAVAILABLE = ("Recebi seu áudio, mas não consegui baixá-lo. Pode enviar de novo ou me escrever?")
DAILY_TITLE = "☀️ Versículo do dia — {date}"
DAILY_STOP = "Para não receber mais, escreva {command}."  # the stop command in the channel's style
DAILY_SUBSCRIBED = ("Combinado: todos os dias às {time} ({zone}) eu envio o versículo do dia, com uma breve "
                    "reflexão. Para mudar o horário, use {command} de novo com outro horário; para parar, {stop}.")
DAILY_CURRENT = "Você recebe o versículo do dia às {time} ({zone}). Para mudar: {command} 6:45. Para parar: {stop}."
DAILY_NONE = ("Você ainda não recebe o versículo do dia. Diga o horário, por exemplo {command} 7:30, e eu envio "
              "todos os dias ({zone}).")
DAILY_BAD_TIME = "Não entendi o horário \"{given}\". Use horas e minutos, por exemplo {command} 7:30 ou {command} 21h."
DAILY_STOPPED = "Pronto: você não recebe mais o versículo do dia. Quando quiser voltar, é só usar {command} 7:30."
DAILY_NOT_SUBSCRIBED = "Você não está inscrito no versículo do dia. Para se inscrever: {command} 7:30."
DAILY_UNAVAILABLE = ("O envio diário ainda não está disponível por aqui: o WhatsApp só permite mensagens que a "
                     "pessoa não pediu por meio de um modelo aprovado, e este serviço ainda não tem um. Você pode "
                     "pedir o versículo do dia quando quiser, escrevendo *versículo*.")
CARD_WHICH = ("De qual versículo você quer a imagem? Escreva, por exemplo, {command} João 3:16, ou peça depois de "
              "uma resposta.")
CARD_MISSING = "Não encontrei \"{given}\" no texto bíblico. Confira o livro, o capítulo e o versículo."
CARD_TOO_LONG = ("Esse trecho é longo demais para caber numa imagem legível. Escolha até alguns versículos, por "
                 "exemplo {command} Salmos 23:1-3.")
CARD_BUTTON = "🖼️ Imagem do versículo"

# -- the care team (a human in the loop); {command} is /pastor or *pastor*, {help} the crisis contacts --------
CARE_OFFER = "Quer que alguém da nossa equipe pastoral fale com você agora?"
CARE_OFFER_YES = "Sim, quero"
CARE_OFFER_NO = "Agora não"
CARE_ACCEPTED = ("Pronto: avisei a equipe pastoral e mostrei a ela suas últimas mensagens desta conversa. Quando "
                 "alguém da equipe responder, a mensagem chega aqui, marcada como vinda de uma pessoa. Não sei dizer "
                 "em quanto tempo: se você corre perigo agora, não espere.\n\n{help}")
CARE_ALERTED = ("Pelo que você escreveu, avisei a equipe pastoral desta igreja e mostrei a ela suas últimas "
                "mensagens desta conversa. Se alguém da equipe responder, a mensagem chega aqui, marcada como vinda "
                "de uma pessoa. Não sei dizer em quanto tempo: se você corre perigo agora, não espere.")
CARE_ALREADY = ("A equipe pastoral já está acompanhando esta conversa: suas mensagens chegam até ela, e as "
                "respostas aparecem aqui, marcadas como vindas de uma pessoa.")
CARE_DECLINED = ("Tudo bem. Continuo aqui com você. Se quiser falar com alguém da equipe depois, é só escrever "
                 "{command}.")
CARE_GONE = "Esse convite já não vale. Se quiser falar com alguém da equipe pastoral, escreva {command}."
CARE_NO_TEAM = ("Não há nenhuma pessoa conectada a este bot: sou um assistente automático, e ninguém vai ler "
                "esta conversa nem ligar para você. Se você precisa conversar com alguém agora, procure:\n\n{help}")
CARE_NO_TEAM_NOTE = ("Lembre-se: sou um assistente automático, e não há nenhuma pessoa conectada a este bot. "
                     "Procure agora a ajuda indicada acima.")
CARE_PRIVATE_ONLY = ("Para falar com alguém da equipe pastoral, escreva para mim numa conversa particular: "
                     "aqui no grupo, outras pessoas leriam.")
CARE_HUMAN = "👤 Mensagem de uma pessoa da equipe pastoral (não é o bot):\n\n{text}"
CARE_CLOSED = ("A conversa com a equipe pastoral foi encerrada. Eu continuo aqui; se quiser falar de novo com "
               "alguém da equipe, escreva {command}.")

# -- what the care team reads in its chat; {answer}/{close}/{cases} are its commands as that chat writes them ---
TEAM_ALERT = ("🆘 Atendimento pastoral — caso {code}\n{reason}\nCanal: {channel}\nNível: {level}\nTipo: {kind}\n\n"
              "Últimas mensagens da pessoa nesta conversa:\n{said}\n\n"
              "Para responder: {answer} {code} sua mensagem{or_reply}\nPara encerrar: {close} {code}")
TEAM_REASONS = {"accepted": "A pessoa aceitou falar com a equipe.",
                "requested": "A pessoa pediu para falar com alguém da equipe.",
                "imminent": "Alerta automático: risco iminente (a pessoa foi avisada de que a equipe recebeu isto)."}
TEAM_OR_REPLY = " (ou responda a esta mensagem)"
TEAM_NOTHING_SAID = "(nenhuma mensagem guardada)"
TEAM_FORWARD = "💬 Caso {code} — nova mensagem da pessoa:\n\n{text}\n\nPara responder: {answer} {code} sua mensagem"
TEAM_COPY = "✉️ Caso {code} — resposta enviada por outra pessoa da equipe:\n\n{text}"
TEAM_SENT = "Resposta do caso {code} enviada à pessoa, marcada como vinda da equipe."
TEAM_CLOSED = "Caso {code} encerrado; a pessoa foi avisada."
TEAM_CLOSED_ELSEWHERE = "Caso {code} encerrado por outra pessoa da equipe."
TEAM_ERASED = "Caso {code} encerrado: a pessoa apagou a conversa. Não é possível responder mais a ela por aqui."
TEAM_UNKNOWN = "Não encontrei o caso {code}. Confira o código (4 letras e números) ou veja {cases}."
TEAM_NOT_OPEN = "O caso {code} já está encerrado; a pessoa não recebe mais mensagens por ele."
TEAM_USAGE = "Use {answer} CASO sua mensagem, por exemplo: {answer} K7MX Olá, sou da equipe pastoral."
TEAM_CASES = "Casos abertos:\n{lines}"
TEAM_CASE_LINE = "{code} — {channel}, {level}, aberto há {minutes} min, {answered}"
TEAM_ANSWERED, TEAM_WAITING = "já respondido", "ainda sem resposta"
TEAM_NO_CASES = "Nenhum caso aberto agora."
TEAM_HELP = ("Este é o chat da equipe pastoral. Comandos:\n{answer} CASO mensagem — responder à pessoa (ou "
             "responda a uma mensagem de um caso)\n{close} CASO — encerrar o caso e avisar a pessoa\n"
             "{cases} — casos abertos")
CHANNEL_NAMES = {"telegram": "Telegram", "whatsapp": "WhatsApp"}
CRISIS_LEVELS = {"imminent": "risco iminente", "danger": "perigo", "concern": "atenção", None: "sem sinal de crise"}
CRISIS_KINDS = {"suicide-direct": "suicídio (fala direta)", "suicide-indirect": "suicídio (sinais indiretos)",
                "self-harm": "automutilação", "domestic-violence": "violência doméstica",
                "sexual-abuse": "abuso sexual", "threat": "ameaça", "addiction": "dependência", None: "não informado"}
