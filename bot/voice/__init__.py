"""Voice notes: their length checked, their transcription, the transcript checked."""
