"""Panelot host: the agent engine behind Chrome native messaging.

Packages, one per part of the architecture (``docs/protocol.md`` is the wire):

- ``wire`` (frames), ``protocol`` (the wire contract as structs), ``server`` (one
  connection), ``engine`` (the agent engine), ``gatekeeper`` (permissions), ``tools``
  (descriptors, registry, MCP), ``providers`` (model APIs), ``store`` (SQLite),
  ``credentials`` (secrets), ``install`` (the native-messaging host manifest and
  wrapper), ``cli`` (the ``panelot-host`` command).
- Modules shared by all: ``errors`` (the one exception tree), ``vocabulary`` (item
  kinds, statuses and states as Literals, and the run state machine), ``private_files``
  (0700 / 0600 whatever the umask), ``home`` (where the data lives: ``PANELOT_HOME``),
  ``secret_mask`` (secrets masked out of logs), ``generated_file`` (the committed schemas'
  command line: print, ``--write``, ``--check``),
  ``msgspec_import`` (msgspec imported without typing_extensions as a host starts),
  ``upgrade_route`` (how this host was installed, and the command that upgrades it),
  ``__main__`` (``python -m panelot_host``).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
