"""The learned relevance ranker: orders a question's candidate verses by what blind helpers found to answer
questions like it (retrieval/data/relevance/), trained by `python -m retrieval train-relevance`."""
