"""The verse of the day, the daily round that sends it, and its commands and cards."""
