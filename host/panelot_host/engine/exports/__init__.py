"""A thread's exports and imports (issue 30): ``thread.export`` as JSON, Markdown, a
self-contained HTML report or an animated GIF of its frames, and ``thread.import``.

Module map:

- ``service`` (the two ops: ``ExportService``), ``document`` (the export document from
  the store), ``masking`` (secrets out of it: credentials, key shapes, typed passwords,
  secret arguments; every format is rendered from the masked document), ``importer``
  (a document checked and turned into a new thread's rows).
- The formats: ``transcript`` (what the readable ones say: the branch shown, a call in
  one line, decisions, costs, durations), ``markdown``, ``html_report``, ``gif``.
"""
