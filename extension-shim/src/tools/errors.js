// The two ways a browser tool fails.

/** A tool-level failure the model can act on: becomes a result with `isError: true`. */
export class ToolFailure extends Error {}

/** An unknown tool or a request the shim cannot serve: answered as a JSON-RPC error. */
export class ToolRequestError extends Error {
  /** @param {number} code @param {string} message @param {string} kind */
  constructor(code, message, kind) {
    super(message);
    this.code = code;
    this.kind = kind;
  }
}
