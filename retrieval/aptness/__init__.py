"""The aptness ranker: graded pairs, the judges' memory, training and ranking."""
