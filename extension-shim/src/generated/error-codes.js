// Generated from schema/protocol.schema.json by extension-shim/scripts/gen-protocol-types.mjs.
// Do not edit: run `npm run gen:types` in extension-shim/ after the schema changes.

/** The JSON-RPC error code of each error kind (`error.data.kind`). */
export const ERROR_CODES = Object.freeze({
  stale_turn: -32001,
  not_initialized: -32002,
  not_found: -32003,
  invalid_state: -32004,
  turn_active: -32005,
  queue_full: -32006,
  conflict: -32007,
  thread_busy: -32008,
  capability: -32009,
  drift: -32010,
  too_large: -32011,
  provider: -32012,
  tool: -32013,
  storage: -32020,
  context_overflow: -32014,
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal: -32603,
  cancelled: -32800,
});
