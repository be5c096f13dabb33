"""Contacts recognised by their shape (handles, PIX keys, spelled addresses, streets), beside the public services
an answer may always name and the numbers that are no contact (amounts, verse references)."""

from __future__ import annotations

import pytest

from bot import texts
from bot.checks import guard as guard_module
from bot.checks.guard import guard, official_contacts


def kept(sentence: str) -> bool:
    return guard(f"Deus te ama. {sentence}", official_contacts(), texts.MEDICAL).text == f"Deus te ama. {sentence}"


@pytest.mark.parametrize("sentence", [
    "Siga o pastor no Instagram @pastorjoao.oficial para receber orações.",
    "Me chama no Telegram: @irmaoPedro77",
    "A chave PIX da oferta é 5f3c9a2e-1b4d-4c8e-9a7f-2d6e8b1c0a93.",
    "Acesse bit.ly/curaemcristo hoje.",
    "Escreva para pastorpaulo arroba gmail ponto com.",
    "Visite igrejaviva ponto com ponto br.",
    "A clínica fica na Rua São Bento, 88, no centro.",
    "Venha à Avenida Brasil, número 1500, sala 3.",
    "O retiro é no CEP 01310-100.",
])
def test_a_contact_by_its_shape_goes_with_its_sentence(sentence):
    assert not kept(sentence)


@pytest.mark.parametrize("sentence", [
    "Ligue 188 ou acesse cvv.org.br a qualquer hora.",
    "Em caso de incêndio, ligue 193 para os Bombeiros.",
    "O Disque Saúde 136 tira dúvidas sobre o tratamento.",
    "Veja https://www.gov.br/mdh/pt-br/disque100 para denunciar.",
    "A dívida de R$ 10.000.000 não define quem você é.",
    "Mais de 1.000.000 de pessoas já oraram por isso.",
    "Saí pela rua chorando, 2 vezes por semana, e Ele me ouviu.",
    "Leia Salmo 23:1, João 3:16 e 1 Coríntios 13:4-7 com calma.",
    "Leia Salmos 23, 1 a 6, e Isaías 41.10 antes de dormir.",
    "Escreva o seu pedido num papel e leve ao culto de domingo.",
])
def test_public_services_amounts_and_verses_stay(sentence):
    assert kept(sentence)


def test_a_broken_shape_is_an_error_naming_the_file_and_line(monkeypatch):
    class Files:
        def joinpath(self, _):
            return self

        def read_text(self, encoding):
            return ('[contacts]\ndomains = ["com"]\nallowed_hosts = []\n[contacts.shapes]\n'
                    "handle = '(?<=@[a-z'\n")

    monkeypatch.setattr(guard_module.resources, "files", lambda _: Files())
    guard_module._shapes.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"guard\.toml:5: padrão 'handle'"):
            guard_module._shapes()
    finally:
        monkeypatch.undo()
        guard_module._shapes.cache_clear()
