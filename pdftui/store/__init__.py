"""The storage layer: every SQL statement of pdftui lives in this package.

- :mod:`.schema`: the index cache's tables, FTS5 tokenizer and migrations;
- :mod:`.database`: the connection (:class:`~.database.Cache`) and its write transactions;
- :mod:`.writer`, :mod:`.embeddings`, :mod:`.leases`: what indexing writes;
- :mod:`.reader`: what the search service, the reader and the library read;
- :mod:`.tokenizer`: text as FTS5 tokenises it (the index's and the query's);
- :mod:`.postings`: per-term row counts, packed (and how they are read);
- :mod:`.text_index`: the keyword arm's per-document BM25 over the FTS5 data;
- :mod:`.protocols`: what the search engine needs from a text index and a vector store;
- :mod:`.user_data`: the user's own file (marks, notes, clips, sessions, history);
- :mod:`.replicate`: copies of a content for scale benches;
- :mod:`.vector_snapshot`: the semantic arm's quantized vectors in a file, memory-mapped
  by a cold search process (no SQL: a file next to the database).

Nothing outside this package runs SQL (tests/test_store_boundary.py checks it).
"""
