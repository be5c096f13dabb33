"""Questions about the Bible's content: passages known by name, Bible people."""
