// The two ways a browser tool fails.

import { ERROR_CODES } from "../generated/error-codes.js";

/** A tool-level failure the model can act on: becomes a result with `isError: true`. */
export class ToolFailure extends Error {}

/** An unknown tool or a request the shim cannot serve: answered as a JSON-RPC error. */
export class ToolRequestError extends Error {
  /** @param {keyof typeof ERROR_CODES} kind @param {string} message */
  constructor(kind, message) {
    super(message);
    this.kind = kind;
    this.code = ERROR_CODES[kind];
  }
}
