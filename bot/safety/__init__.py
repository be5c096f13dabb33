"""Crisis screening, the help that fits each kind of crisis, and the country whose services are named."""

from bot.safety.screening import CONCERN, DANGER, IMMINENT, Screening, screen

__all__ = ["CONCERN", "DANGER", "IMMINENT", "Screening", "screen"]
