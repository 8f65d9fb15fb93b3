"""The agent engine: one ThreadActor per thread, the agent loop, steering, queue,
interrupt, budget pause, failure streak, titles and recovery. It talks to the store's
repositories and to providers and tools through their interfaces; never SQL or HTTP.

Module map:

- Facade and wiring: ``core`` (the ``Engine`` the server talks to), ``context`` (the
  engine's fixed dependencies, ``ToolSources`` (the MCP servers' seam), and ``RunRef``,
  which run), ``policy`` (settings, rules and
  grants cached for the Gatekeeper), ``events`` / ``publish`` (events, sent only after
  their commit), ``views`` (store records -> protocol structs).
- Commands (plain arguments in, result structs out; ``server.routes`` maps the wire):
  ``commands`` (a domain change and its receipt in one transaction, ``Receipt``),
  ``threads`` (create, list, open, rename, delete, fork, branch), ``thread_list`` (the
  ``thread.list`` query alone, which the server's prelude answers with before the rest of
  the engine loads), ``turn_ops`` (submit,
  steer, enqueue, queue edits, interrupt, approvals, interactions, resume, recovery
  answers), ``admission`` (a Turn's first transaction), ``config_ops`` (settings,
  credentials, permissions), ``provider_ops`` (is a model usable, the model servers on
  this computer, "Test connection"), ``authority`` (which settings changes widen authority).
- The run: ``actor`` (serialises a thread's run), ``slots`` (how many runs work at the
  same time, ``maxParallelTurns``, first come first served), ``loop`` (model calls and tool steps
  until a final response), ``cursor`` (the stored state a run continues from), ``stream``
  (one model call into a draft), ``response`` (storing its outcome), ``tool_step`` (one
  tool call through the Gatekeeper), ``page_reads`` (what the Turn read, which a
  navigation's URL may not carry away unasked), ``tool_context`` (what a tool runs with),
  ``tool_warmup`` (MCP servers' first connection before the first model call), ``finish``
  (how a run stops), ``budget`` (a Turn's token and money budgets, checked at each model
  call), ``environment`` (the versioned run environment and its digest),
  ``models`` (providers and the task model), ``prompts`` (texts the engine sends),
  ``titles`` (thread titles), ``thread_tabs`` (the tabs a thread owns: what its browser
  calls carry, and whose a tab is when it owns it not).
- The context a model sees: ``context_window`` (history, session context, elision,
  compaction, the token account, and the request built from them); ``history_cache``
  (each thread's last session prefix in memory, a service ``context`` holds; beside the
  package, which builds on ``context``).
- Workflows (issue 29): ``workflows`` (the ``workflow.*`` commands), ``workflow_draft``
  (a draft from a finished Turn's items), ``workflow_player`` (the deterministic player a
  workflow run's loop drives in place of the model, handing over to it on divergence),
  ``workflow_run`` (the player in the loop: its model, the Turn's record, the pause for
  want of a model), ``workflow_schedule`` (when a schedule falls due).
- A turn's timeline (issue 30): ``frames`` (the screenshots captured around browser
  actions, stored beside their tool call within the profile's size budget; ``frame.get``).
- Exports (issue 30): ``exports`` (``thread.export`` as JSON, Markdown, an HTML report
  or a GIF of the frames; ``thread.import`` of a JSON export as a new thread).
- After a crash: ``recovery`` (settle what the last process left).
- Fault injection: ``failpoints`` (the ``FaultHook`` seams the engine calls; the bugs and
  deaths the torture harness injects through them, none by default).
"""
