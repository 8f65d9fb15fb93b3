// Shapes of the extension's own messages (the protocol's come from generated/protocol.d.ts).
import type { InitializeResult } from "./generated/protocol";

/** A JSON-RPC 2.0 message as it travels between panel, worker and host. */
export interface RpcMessage {
  jsonrpc?: "2.0";
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: RpcErrorObject;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { kind?: string; [key: string]: unknown };
}

/** Why the native Port closed, in words a user can act on. */
export interface DisconnectCause {
  /** host_not_found | forbidden | start_failed | host_exited | communication | initialize_failed | version_skew | unknown */
  code: string;
  /** A plain headline for the banner. */
  headline: string;
  /** What happened, for people. */
  message: string;
  /** What to do about it, in words (the commands are in `commands`). */
  fix: string;
  /** Commands to run in a terminal, shown as blocks with a Copy button. */
  commands: string[];
  /** The technical part: ids, files, Chrome's terms; the banner keeps it under "Details". */
  details: string;
  /** Chrome's own text (chrome.runtime.lastError.message), when there was one. */
  chromeMessage?: string;
}

/** `$/host.status` params: the worker's view of its host connection. */
export interface HostStatus {
  state: "connecting" | "connected" | "disconnected";
  /** Counts native Ports opened by this worker; a new value means a new host process. */
  connection: number;
  cause?: DisconnectCause;
  /** When state is disconnected: the next attempt is in this many milliseconds. */
  retryInMs?: number;
  engine?: InitializeResult["engine"];
}
