"""Voice notes made on the spot: a valid Ogg/Opus container of a given length (silent frames)."""

from __future__ import annotations

import struct


def _crc(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def _page(payload: bytes, granule: int, sequence: int, flags: int) -> bytes:
    segments = [255] * (len(payload) // 255) + [len(payload) % 255]
    header = b"OggS" + struct.pack("<BBqIIIB", 0, flags, granule, 0x50A5, sequence, 0, len(segments))
    page = header + bytes(segments) + payload
    return page[:22] + struct.pack("<I", _crc(page)) + page[26:]


def ogg_opus(seconds: float, pre_skip: int = 312) -> bytes:
    """An Ogg/Opus voice note lasting ``seconds`` (as WhatsApp and Telegram send voice notes)."""
    head = b"OpusHead" + struct.pack("<BBHIhB", 1, 1, pre_skip, 48000, 0, 0)
    tags = b"OpusTags" + struct.pack("<I", 4) + b"test" + struct.pack("<I", 0)
    silence = bytes([0xF8, 0xFF, 0xFE])  # one 20 ms CELT frame of silence
    return (_page(head, 0, 0, 0x02) + _page(tags, 0, 1, 0)
            + _page(silence * 50, pre_skip + int(seconds * 48000), 2, 0x04))
