"""The care team: cases handed to a human (``cases``) and the relays between the person and the team (``team``)."""
