"""The context a model sees: the provider messages of a run's model calls, fitted to the
model's window (``docs/engine.md``, "Agent loop"). The loop asks it for each request and
drives the run; everything between the stored branch and the request is here.

Module map:

- ``history`` (provider messages from the branch's items), ``session_context`` (from the
  latest compaction on: the part before the Turn, held in memory and stored durably with
  its elision pass, and the Turn's part, extended by what each step added),
  ``prefix_store`` (that prefix and its pass in the store: ``PrefixStore``, in
  ``PREFIX_FORMAT``).
- ``elision`` (superseded page state replaced by notes), ``compaction`` (summaries of
  older turns), ``tokens`` (the model's limits and the token estimate).
- ``request`` (a model call's request from all of these: ``RequestBuilder``, which the
  loop asks once per model call).
"""
