"""The optional background search service: a warm answer for one-shot ``pdftui search``
(and ``read``, ``docs``, ``mark``, ``refs``, ``cited-by``, ``similar``:
:data:`.client.SERVED`).

A one-shot ``pdftui search`` pays for starting Python, importing the search engine and,
for a semantic or hybrid query, loading the embedding model and the unit matrix: seconds,
where the search itself takes tens of milliseconds. The service is one long-lived process
per cache folder that keeps them loaded and runs those commands for the CLI:

- :mod:`.place`: where its Unix socket lives (the user's runtime folder, mode 0600, in a
  folder only the user can enter) and the checks that a socket is the user's own;
- :mod:`.client`: what ``pdftui search`` does first (a few standard-library imports): ask
  the service, print its answer and exit with its code; when there is no service (or it
  is not the user's, or it fails in any way) the command runs in-process as before, and
  a service is started in the background for the next call;
- :mod:`.server`: the service: it answers one request at a time by running the same click
  command in its own process (so the output is the command's own, byte for byte), keeps
  one :class:`pdftui.search.SearchService` per folder, and stops itself after
  :data:`.place.IDLE_S` seconds without a request.

It is never required: ``PDFTUI_SERVICE=0`` turns it off, a terminal on stdout keeps the
command in-process (its table is drawn for that terminal), and so do ``--wait-embed``,
queries read from stdin and ``--help``.
"""
