"""The durable store: SQLite in WAL mode, migrations, one repository module per entity and
the one transaction helper. The only package that speaks SQL; it never holds a secret.

Module map:

- Infrastructure: ``db`` (the connection, durability settings, ``transaction``),
  ``migrate`` and ``migrations/`` (numbered schema versions), ``backup`` (the copy of a
  database kept until its migration commits), ``lease`` (one writer per
  database), ``profiles`` (which database a Chrome profile uses), ``ids`` (prefixed,
  time-ordered ids), ``records`` (rows as msgspec structs), ``receipts`` (command
  receipts: replay and conflict).
- Repositories: ``threads`` (list, search, stats, branch head), ``items`` (the tree of a
  thread and its branches), ``item_wire`` (the cached wire JSON of items), ``context_prefix``
  (the cached session prefix of a thread, in parts, and its elision pass, as bytes),
  ``turns`` (turns, runs, per-call usage), ``steering`` (steering and the queue), ``approvals``
  (approval requests and interactions), ``grants`` (the grant ledger), ``tabs`` (the tabs
  each thread owns and its tab group), ``settings``
  (settings and credential metadata), ``seq`` (per-thread event numbers), ``workflows``
  (saved workflows and their schedules), ``frames`` (the screenshots of a
  turn's timeline, within the profile's size budget), ``thread_copy`` (a whole thread's
  rows, read for an export and written as they are for an import).
- Outside the host: ``inspect`` (a profile database read-only, for ``doctor``).
"""
