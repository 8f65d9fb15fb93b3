"""One client connection of the host: frames in, ops routed to the engine, responses and
events out, requests to the shim. Holds no domain state.

Module map:

- ``prelude``: the first answers (``initialize``, ``thread.list``) before the event loop
  exists, then the handover to ``native`` (what was read, the store, the session).
- ``native``: serving one Chrome Port over stdin/stdout, and every way that ends
  (EOF, signals, an unexpected exception).
- ``config``: ``HostConfig``, what a host process needs to know.
- ``profile_store``: a profile's store as a host holds it (writer lease, then database).
- ``handshake``: ``initialize``'s checks and answer (for ``routes`` and ``prelude``).
- ``connection``: one client: decoding, admission, cancellation, the outbox.
- ``flow``: lanes (a thread's ops in order, the rest concurrently) and backpressure.
- ``routes``: one handler per declared op (checked at import): params -> engine call.
- ``errors``: the one place where exceptions become JSON-RPC errors.
- ``bus``: event fan-out with stored per-thread ``seq``.
- ``outgoing``: what is written for each message (frames, ``$/chunk``).
- ``shim``: the browser bridge over the connection (``browser.resolveTarget``,
  ``browser.invoke``).
- ``host``: the process's state and its lifetimes: configuration, the open profile
  store (writer lease, database), its engine, the MCP servers, the run loops' task group.
- ``assembly``: how a profile's engine is put together (models, tool registry, credential
  vault, MCP settings and sources); loaded only when the engine is built.
- ``transport``: ``EngineTransport`` and ``DirectTransport`` (in-process, for tests and
  the terminal client).
"""
