"""Model providers: one streaming interface over Anthropic, OpenAI(-compatible) and scripts.

Import the submodules you need; this package imports nothing by itself so that the host's
cold start (which loads ``providers.types``) does not pay for httpx. Reading the configuration
(``config.load_provider_config``) does not either: the adapters are imported when
``build_provider`` builds one (``tests/providers/test_import_cost.py``).

- ``types``: the normalised protocol (``ModelRequest``, ``ProviderEvent``s, ``Provider``)
- ``registry``: a ``ProviderSpec`` per provider (endpoint, key variables, defaults, headers,
  adapter factory): ``PROVIDERS``, ``WIRE_PROVIDERS``; ``AdapterConfig``, what an adapter
  reads of ``config``
- ``config``: ``ProviderConfig``, ``load_provider_config(env, settings)``,
  ``build_provider(config, credentials)`` (``build_provider_with_key`` when the key is
  already resolved)
- ``anthropic``/``openai``/``responses``: ``AnthropicProvider``, ``OpenAIProvider`` (Chat
  Completions), ``ResponsesProvider`` (the OpenAI Responses API)
- ``scripted``: ``ScriptedProvider`` for tests and demo mode
- ``catalog``/``pricing``: ``ModelCatalog``, ``ModelInfo``, ``call_cost``, ``sum_costs``
- ``retry``: ``RetryPolicy`` (retries before the first token)
- ``overflow``: ``is_prompt_too_long`` (a provider's "prompt is too long" answer)
- ``base``, ``httpio``, ``sse``: the HTTP adapters' shared loop, the HTTP boundary, SSE parsing
- ``anthropic_request``/``anthropic_stream``, ``openai_request``/``openai_stream``,
  ``responses_request``/``responses_stream``: request bodies and stream events of each API;
  ``toolargs``: streamed tool arguments assembled
- ``probe``: is a model reachable (the side panel's "Test connection" and ``doctor``, one
  check) and which model servers answer on this computer's usual ports
- ``endpoints``: where the official APIs live, the headers that carry their keys (the
  registry passes each adapter its spec's), origins, the plain-http rule
- ``loopback``: whether a host is this machine (decided on the literal host; MCP URLs use it
  too)
- ``directives``: a scripted model that follows directives in the user's message
- ``scripted_summary``: the scripted models' deterministic answer to a compaction's summary
  request (``ModelRequest.purpose == "summary"``)
"""
