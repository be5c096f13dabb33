"""A Portuguese pastoral thesaurus: situations people describe -> biblical vocabulary and topics.

One concept per line: ``name | triggers | biblical words | OpenBible topics``.
- triggers: what people write (accent-folded); "*" ends a prefix, spaces make a phrase;
- biblical words: how Almeida-tradition Bibles say it, added to the lexical query;
- topics: OpenBible.info topic names (English) whose community-voted verses form a prior.
Written for general pastoral themes, never for particular questions.
"""

TABLE = """
medo | medo, amedront*, assust*, apavor*, pavor, receio*, receos*, panico, aterroriz*, inseguran*, insegur*, tenho medo, com medo | temas, temais, temor, temer, coragem, esforca, animo, socorro, refugio | fear; being scared; fear and anxiety; courage
ansiedade | ansios*, ansiedad*, preocup*, aflit*, aflicao, nervos*, estress*, angusti*, inquiet*, agonia | ansiosos, inquieteis, cuidado, lancando, aflicao, turbe, paz, descanso | anxiety; worry; fear and anxiety; worry and stress; stress; peace of mind; anxiety and depression
luto | luto, falec*, morreu, morreram, morrido, perda, perdas, perdi minha, perdi meu pai, perdi meu filho, perdi meu marido, perdi meu avo, perdi meu irmao, perdi meu amigo, perdi um ente querido, perdi alguem, partiu, enterr*, velorio, saudade*, saudoso* | consolados, consolacao, choro, lagrimas, enxugara, pranto, ressurreicao, morte | losing a loved one; grief and sorrow; death of a loved one; mourning; comfort; life after death; loss of a loved one; death of a child
tristeza | triste*, tristeza, deprimid*, depress*, desanim*, abatid*, chorand*, chorar, choro, vazio, vazia, mal demais, to mal, estou mal, pra baixo, sem vontade | abatida, abates, angustia, quebrantado, consolo, alegria, lagrimas | depression; feeling sad; sadness; anxiety and depression; discouragement; healing a broken heart
coracao partido | terminou comigo, terminou o namoro, fim do namoro, terminamos, rompimento, meu ex, minha ex, coracao partido, partiu meu coracao, separou, me deixou, traic*, traiu, trair, traid* | quebrantados, coracao, sara, feridas, ata | healing a broken heart; breakups; betrayal; rejection; hurt feelings; letting go
solidao | sozinh*, solid*, solitari*, abandon*, isolad*, ninguem me, nenhum amigo | desampararei, deixarei, contigo, convosco, perto | loneliness; being lonely; abandonment; i will never leave you nor forsake you; gods presence
desespero | desesper*, sem saida, sem esperanca, nao aguento, nao aguento mais, sem forca, acabad* | esperanca, espera, refugio, socorro, levantara | hopelessness; despair; never giving up; hope
esperanca | esperanc*, futuro, planos, plano de deus, recomec* | esperanca, futuro, pensamentos, planos, fim | hope; plans for the future; the plans god has for us; new beginnings
fe | fe, duvid*, descren*, incredul*, acreditar, acredito, crer, creio | fe, crer, creia, cre, incredulidade | faith; doubt; faith in god; trusting and believing
confianca | confiar, confio, confia, confiando, confianca, entregar, entrego, nas maos de deus | confia, confiai, confiam, refugio, rocha, esperanca | trust; trusting god; trust in the lord; trust in god; god is in control
forca | fraco, fraca, fracos, fraqueza, cansad*, exaust*, esgotad*, forca, forcas, forte, fortalec* | forca, fortalece, fortalecera, fraqueza, poder, cansados, renovam, vigor | strength; our weakness; strength and weakness; tired; never giving up; encouragement
descanso | dormir, durmo, dormi, sono, insonia, descans*, cansaco, repous* | dormirei, deito, repouso, descanso, sono, aliviarei, alivio | sleep; rest; getting rest; tired
paz | paz, calma, tranquil*, sereni*, sossego | paz, sossego, descanso, quietos | peace; peace of mind
doenca | doen*, enferm*, cirurgi*, hospital*, cancer, diagnost*, tratamento, saude, curar, cura, dores, internad*, exame*, quimioterapia, uti | sara, sarar, cura, curou, enfermidades, enfermo, medico, saude, saravei | healing; healing the sick; sickness; prayer for healing; physical healing; healing the body
paciencia | pacien*, impacien*, esperar, demora*, demorand* | paciencia, paciente, longanimidade, esperar, espera, esperai | patience; waiting on god; being patient; perseverance; waiting on the lord
perdao | perdo*, perdao, magoa*, ressentim*, rancor*, mago* | perdoai, perdoardes, perdoou, perdoados, perdoando, perdoar, perdoa | forgiveness; forgiving each other; forgiving one another; forgiven those who hurt you; love and forgiveness; unforgiveness
perdao de deus | deus me perdoa, deus perdoa, deus vai me perdoar, me perdoar, ser perdoado, ser perdoada, serei perdoado, perdao de deus, perdao dos pecados, tem perdao | perdoa, perdoou, perdoados, pecados, misericordia, purificar, transgressoes | forgiveness of sins; gods forgiveness; asking for forgiveness; forgiveness of past sins; god forgiving
culpa | culpa*, pecad*, pequei, arrepend*, vergonh*, errei, remorso, condena* | pecados, confessarmos, perdoar, purificar, arrependei, misericordia, condenacao | guilt; guilt and shame; repentance; confession of sin; forgiveness of sins; asking for forgiveness; forgiving yourself
raiva | raiva, irad*, irrit*, odio, odeio, nervoso com, explod* | ira, irai, iracundia, mansidao, tardio, irar | anger; anger management; controlling anger; hate
mentira | mentir, mentira*, menti, minto, mentiros*, engan*, desonest*, honest*, falsidade | mentira, mentiroso, mentirosos, falso, testemunho, verdade, labios, enganosos | lying; honesty; gossip and lies; lying lips
fofoca | fofoc*, falar mal, falando mal, difam*, calun*, boato* | mexeriqueiro, mexericos, murmurador, difamador, lingua, maldizente | gossip; gossip and lies; taming your tongue; power of words
palavras | palavrao*, xing*, ofend*, lingua, falar demais, palavras | lingua, palavra, boca, labios, falar | taming your tongue; power of words; using profanity
amizade | amig*, amizade* | amigo, amigos, companheiro, amizade | friendship; true friends; friends; choosing friends; bad friends
casamento | casament*, marido, esposa, conjuge, casad*, casal, noiv*, sogr* | marido, mulher, esposa, carne, amai, maridos, mulheres | marriage; husbands and wives; trouble in marriage; a healthy marriage; marriage vows
divorcio | divorci*, separac*, separad* | repudio, separe, adulterio, mulher | divorce; marriage and divorce; adultery and divorce; marriage separation
familia | familia*, filhos, filhas, meu filho, minha filha, os filhos, crianca*, parente*, irmaos, meus pais, bom pai, boa mae, educar, criar meus, criacao dos filhos | filhos, heranca, ensina, crianca, pais, casa | family; family love; raising children; children being a blessing; parenting; family conflict
provisao | desempreg*, demit*, demissao, endivid*, dividas, divida, contas, dinheiro, financ*, salario, pobreza, fome, falencia, crise financeira, emprego, trabalho novo | sustento, provera, suprira, pao, necessidades, cuidado | gods provision; job loss; unemployment; money problems; finding a job; debt; paying debt
trabalho | trabalh*, servico, chefe, carreira, profiss*, estud*, prova, provas, vestibular, enem, concurso*, faculdade, escola | trabalho, diligente, mao, obra, fazei, sabedoria | hard work; work ethic; work; education; school; studying the bible
sabedoria | vontade de deus, plano de deus para, decis*, decid*, escolh*, sabedoria, conselho*, rumo, direcao, orientacao, discernimento | sabedoria, entendimento, conselho, caminho, caminhos, guiara, prudencia | wisdom; decision making; making the right decision; seeking wisdom; wise decisions
gratidao | obrigad*, agradec*, grato, grata, gratidao, valeu, abencoad*, bencaos | gracas, louvai, rendei, bendize, bendito, louvor | being thankful; gratitude; thankfulness; giving thanks; thanksgiving; thanking god
louvor | louv*, adora*, cantico*, adoracao | louvai, cantai, louvor, adorai, salmos | praise and worship; worship; praise
oracao | orar, oracao, oracoes, ore, orando, rezar, rezo, reza | orai, pedi, orando, suplica, oracao, clamai, clamor | prayer; the power of prayer; answered prayer; god answering prayers
alegria | alegr*, feliz*, felicidade, contente | alegria, regozijai, jubilo, alegrai, alegrar | joy; joyful
amor | amor, amar, amo, amada, amado, amadas, amados | amor, amou, amado, amai, caridade, ama | love; love is; unconditional love; god loves me
autoestima | autoestima, auto estima, valor nenhum, nao tenho valor, nao valho nada, me sinto um lixo, insignificant*, inutil, inuteis, feio, feia, sem valor, nao valho, ninguem me ama, rejeitad* | formado, feito, assombrosamente, amado, escolhidos, preciosos | self-esteem; self-worth; who am i in christ; god loves me; inner beauty
medo da morte | medo de morrer, medo da morte, medo de ir embora, medo do que vem depois | morte, ressurreicao, vida, eterna, temor, aguilhao | death and dying; life after death; death; heaven; resurrection
salvacao | salvac*, salvo, salva, ceu, inferno, vida eterna, eternidade, morrer, morte, depois da morte | salvos, graca, vida, eterna, crer, salvacao, ressurreicao | life after death; eternal life; heaven; salvation; assurance of salvation; getting into heaven
graca | graca, misericord*, merec* | graca, misericordia, dom, favor | grace; gods grace; grace of god
tentacao | tentac*, tentad*, vici*, drog*, alcool, alcoolism*, bebida*, beber, bebado*, embriag*, cigarro*, fumar, aposta* | tentacao, embriagueis, vinho, bebedice, carne, concupiscencia, escape | overcoming temptation; temptation; addiction; being drunk; drug addiction; self-control
pureza | sexo, sexual*, pornograf*, porno, luxuria, desejo*, prostitu*, adulteri*, infiel, infidelidade | prostituicao, impureza, carne, corpo, santificacao, adulterio, concupiscencia | sexual immorality; sexual purity; lust; adultery; pornography
orgulho | orgulh*, soberb*, arrog*, vaidade, humild*, humildade | soberba, humildade, humilhai, altivez, humildes | pride; humility; being humble
inveja | invej*, ciume*, cobic* | inveja, ciume, cobica, cobicaras | envy and jealousy; jealousy and envy; contentment
ganancia | ganan*, riqueza*, rico, ricos, ambic*, contentamento, materialis*, consum* | cobica, contente, riquezas, tesouro, tesouros, dinheiro | greed; contentment; money; love of money
generosidade | ajudar o proximo, ajudar os outros, ajudar pessoas, doar, doacao, caridade, generos*, pobres, necessitad*, dizimo*, oferta* | pobres, necessitado, necessitados, dai, esmola, repartir, oferta, dizimos | helping others; giving to the needy; generosity; helping those in need; tithes and offering; helping the poor
preguica | pregui*, procrastin*, desleix*, sem animo para | preguicoso, preguica, formiga, diligente, negligente | laziness; hard work
sofrimento | sofr*, provac*, dificuldade*, problema*, crise, luta, lutas, tribula*, deus permite, deus deixa, por que deus | tribulacao, aflicoes, provacao, paciencia, sofrimento, prova | trials and tribulations; suffering; joy in sufferings; perseverance; dealing with lifes crisis
justica | injusti*, justica, oprim*, opress*, explorad* | justica, juizo, oprimido, opressor, direito | justice; injustice; social justice
perseguicao | persegu*, zomba*, humilh*, bullying, deboch*, rejeit*, excluid* | perseguidos, perseguem, injuriarem, vituperarem, bem-aventurados | persecution; bullying; rejection
inimigos | inimig*, quem me odeia, quem me fez mal | inimigos, amai, orai, perseguem, odeiam | love your enemies; loving your enemy; enemies; forgiving your enemies; dealing with evil people
conflito | brig*, discuss*, conflit*, desentend*, contend*, intriga*, desavenca* | contenda, contendas, paz, branda, resposta, reconcilia | resolving conflict; conflict resolution; strife; quarreling; family conflict
viuvez | viuv*, orfa*, orfao, orfaos | viuva, viuvas, orfao, orfaos, estrangeiro | widows and orphans; god caring for widows; orphans; widows
velhice | velhice, idos*, envelhec*, aposentad*, terceira idade | velhice, cas, brancos, velho, anos | old age; aging
juventude | jovem, jovens, juventude, adolescen* | mocidade, jovem, mancebo, mocos | youth; teenagers
gravidez | gravid*, gestant*, engravid*, esteril*, bebe, aborto espontaneo | esteril, madre, ventre, filhos, heranca | pregnancy; barren women; infertility; getting pregnant; miscarriages
protecao | protec*, proteg*, perigo*, segurança, seguranca, assalt*, viagem, viajar, estrada | guarda, guardara, refugio, escudo, livra, livrara, abrigo | protection from evil; divine protection; god protection; travel
proposito | proposito*, sentido da vida, vocac*, chamado, identidade, quem eu sou, pra que eu vivo | proposito, chamados, obras, vocacao, criado | purpose in life; our purpose; who am i in christ; identity
presenca de deus | deus me abandonou, onde esta deus, deus esqueceu, longe de deus, deus distante, silencio de deus | perto, presenca, deixarei, desampararei, contigo, buscai | gods presence; i will never leave you nor forsake you; seeking god; abandonment
violencia | violencia, agred*, agressao, abus*, apanh*, espanc*, ameac* | violencia, refugio, livra, oprimido, socorro, violento | domestic violence and abuse; violence; protection from evil
crise suicida | suicid*, me matar, tirar minha vida, acabar com tudo, nao quero mais viver, razao pra continuar, razao para continuar, sem razao para viver, continuar vivendo | vida, esperanca, socorro, refugio, perto, quebrantados | hopelessness; despair; healing a broken heart; depression; thoughts of suicide
jejum | jejum, jejuar, jejuns | jejum, jejuar, jejuardes | fasting; fasting and prayer
batismo | batism*, batiz* | batismo, batizado, batizai | baptism; water baptism
igreja | igreja*, congregac*, culto*, comunhao | igreja, congregar, ajuntamento, corpo, membros | church; unity in the church; why go to church; going to church
espirito santo | espirito santo, dons, dom espiritual | espirito, consolador, dons, fruto | holy spirit; filling of the holy spirit
fim dos tempos | fim dos tempos, fim do mundo, arrebatamento, volta de jesus, segunda vinda, juizo final | vinda, dia, senhor, fim, ladrao, noite | signs of the end times; the second coming of jesus; end times; judgment day
ressurreicao | ressurrei*, ressuscit* | ressurreicao, ressuscitou, ressuscitara, vida | resurrection; resurrection of christ; life after death
autocontrole | autocontrole, dominio proprio, controlar, impuls* | temperanca, dominio, sobrio, vigiai | self-control; anger self control
bondade | bondade, gentil*, ser bom, ser boa | benignidade, bondade, misericordia, bom | kindness; being kind to others
obediencia | obedec*, obedien*, desobedi*, rebeld* | obedecei, obediencia, mandamentos, guardai | obedience to god; obedience; disobedient children
servir | servir, servo, servico ao proximo, voluntari* | servir, servo, servos, servi, servindo | serving others; being a servant; serving god
evangelismo | evangeliz*, pregar, testemunh*, missao, missoes, falar de jesus | pregai, evangelho, testemunhas, ide, anunciai | evangelism; giving testimony
mente | pensament*, mente, cabeca cheia, ansiedade mental | pensamentos, mente, renovacao, entendimento, pensai | thoughts and the mind; renewing your mind; positive thinking
vinganca | vingar*, vinganca, vingativ*, revanche, dar o troco, pagar na mesma moeda | vinganca, vingar, retribuir, paga, ira, mal | revenge; vengeance; forgiven those who hurt you
roubo | roub*, furt*, roubei, peguei o que nao era meu, desvi* dinheiro | furtaras, roubar, ladrao, restituir, honesto | stealing; honesty
idolatria | idolatria, idolo*, imagens de escultura, outros deuses | idolos, imagem, escultura, deuses, adorar | idolatry; idol worship
dor | dor, dores cronicas, sofrendo de dor, muita dor | dor, dores, aflicao, cura, consolo | pain; pain and hurt; suffering
cuidar dos pais | cuidar da minha mae, cuidar do meu pai, pais idosos, cuidar dos meus pais | honra, pai, mae, velhice, cuidado | caring for aging parents; caring for elderly parents; honoring parents
mudanca de vida | mudar de vida, seguir em frente, recomecar, nova fase, mudanca de cidade | novo, nova, esquecendo, prossigo, alvo | moving forward; moving on; new beginnings; change
pais | obedecer meus pais, honrar pai, respeitar meus pais, pai e mae, meus pais | honra, pai, mae, obedecei | honoring parents; respecting your parents; children obeying their parents
"""

# Words that differ between Portuguese Bible translations (Almeida Corrigida, Revista e
# Atualizada, NVI, NTLH, Bíblia Livre): each line is one group of equivalents, so a
# quote from one translation still finds the verse in another.
EQUIVALENCES = """
bem-aventurado, bem-aventurados, bem-aventurada, bem-aventuradas, bendito, benditos, feliz, felizes
pacificador, pacificadores, pacifico, pacificos, promovem a paz, promovem paz
corajoso, corajosos, valente, valentes, animo, esforcai, esforca, esforces
ansioso, ansiosos, ansiosa, inquieto, inquietos, inquieteis, preocupados
entrega, entregue, conduz, encomenda, confia
cansado, cansados, fatigado, fatigados, sobrecarregados, oprimidos, carregados
aliviarei, descansar, descanso, alivio, repouso
lampada, candeia
temais, temas, temer, medo, temor, temeis
misericordia, compaixao, piedade, clemencia
bondoso, bondosa, benigno, benigna, benignidade, bondade
paciente, longanimo, longanimidade, sofredor, paciencia
soberba, orgulho, orgulhoso, arrogancia, arrogante, altivez, altivo
choro, pranto, lagrimas, choram, chorar
alegria, jubilo, regozijo, gozo
desamparar, desampararei, abandonar, abandonarei, deixarei
pecado, pecados, transgressao, transgressoes, iniquidade, iniquidades
salvacao, redencao, livramento
louvar, louvai, bendizer, bendize, exaltar, exaltai
refugio, abrigo, fortaleza, rocha, escudo
desmaies, desanimes, desfalecas, desanimar
orai, rogai, suplicai, orando, oracao, oracoes, suplicas
invejoso, inveja, ciumento, ciume
tribulacao, tribulacoes, aflicao, aflicoes, angustia, angustias, sofrimento
proximo, vizinho
servo, servos, escravo, escravos
sepultura, sepulcro, tumulo
fracos, debeis, fraco, fraqueza
vigiai, velai, vigiar
turbe, perturbe, perturbeis, turbeis
caminho, vereda, veredas
fortalece, fortalecera, forca, fortaleca
amor, caridade
justica, retidao
"""
