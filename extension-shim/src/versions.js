// The protocol versions this extension speaks (one constant for the worker and the panel),
// and a host's refusal of them read as which side to update and how (docs/protocol.md,
// "initialize", version negotiation). Hosts from before negotiation said less: the refusal
// "unsupported protocol version" with `data.errors` [{path: "$.params.protocolVersion",
// message: "this host speaks protocol version 1"}], and `minProtocolVersion` as an unknown
// field; both are read here too.

/** @typedef {import("./types").RpcErrorObject} RpcErrorObject */
/** @typedef {{oldest: number, newest: number}} Versions */

/** The protocol versions this extension speaks, oldest to newest. */
export const PROTOCOL_VERSIONS = Object.freeze({ oldest: 1, newest: 1 });

/** What to run when the host is older and did not say how it was installed. */
export const DEFAULT_HOST_UPDATE = "pipx upgrade panelot-host";
/** Prints the folder an unpacked extension is loaded from (issue 28). */
export const EXTENSION_PATH_COMMAND = "panelot-host extension path";

const INVALID_PARAMS = -32602;
const VERSION_PATH = "$.params.protocolVersion";
const MIN_VERSION_PATH = "$.params.minProtocolVersion";
const SPEAKS = /protocol versions? (\d+)(?:\s*(?:to|-|–|\.\.)\s*(\d+))?/;

/**
 * `initialize`'s version params: `minProtocolVersion` only for a range wider than one
 * version (hosts from before negotiation refuse the field as unknown).
 * @param {Versions} [spoken]
 * @returns {{protocolVersion: number, minProtocolVersion?: number}}
 */
export function versionParams(spoken = PROTOCOL_VERSIONS) {
  return spoken.oldest === spoken.newest
    ? { protocolVersion: spoken.newest }
    : { protocolVersion: spoken.newest, minProtocolVersion: spoken.oldest };
}

/**
 * The versions `initialize` params say the client speaks.
 * @param {{protocolVersion: number, minProtocolVersion?: number | null}} params
 * @returns {Versions}
 */
export function spokenBy(params) {
  return { oldest: params.minProtocolVersion ?? params.protocolVersion, newest: params.protocolVersion };
}

/**
 * @typedef {object} VersionSkew
 * @property {"host" | "extension"} update the older side, the one to update
 * @property {Versions} host the versions the host speaks
 * @property {Versions} spoken the versions this extension speaks
 * @property {string | null} hostVersion the host's own version, when it said it
 * @property {string} command what upgrades the host (its own words, else the default)
 */

/**
 * A refused `initialize` read as version skew; null when it was refused for another reason
 * or when the two sides do share a version (a host from before negotiation: retry with it,
 * see `retryVersion`).
 * @param {RpcErrorObject} error @param {Versions} [spoken]
 * @returns {VersionSkew | null}
 */
export function versionSkew(error, spoken = PROTOCOL_VERSIONS) {
  const host = hostVersionsIn(error);
  if (host === null || shared(host, spoken) !== null) return null;
  const data = error.data ?? {};
  const said = data.update === "host" || data.update === "extension" ? data.update : null;
  return {
    update: said ?? (host.newest < spoken.oldest ? "host" : "extension"),
    host,
    spoken,
    hostVersion: typeof data.hostVersion === "string" ? data.hostVersion : null,
    command: typeof data.hostUpdateCommand === "string" && data.hostUpdateCommand.trim() ? data.hostUpdateCommand : DEFAULT_HOST_UPDATE,
  };
}

/**
 * The version to send `initialize` again with, to a host from before negotiation that
 * refused this one but speaks a version this extension speaks too; else null. (A host that
 * negotiates has already chosen, so its refusals are never retried.)
 * @param {RpcErrorObject} error @param {Versions} spoken
 * @returns {number | null}
 */
export function retryVersion(error, spoken) {
  if (isObject(error.data?.protocolVersions)) return null;
  const host = hostVersionsIn(error);
  return host === null ? null : shared(host, spoken);
}

/**
 * The versions a refusing host speaks, from what it said; null when the refusal is not
 * about versions.
 * @param {RpcErrorObject} error
 * @returns {Versions | null}
 */
export function hostVersionsIn(error) {
  if (!error || error.code !== INVALID_PARAMS) return null;
  const data = error.data ?? {};
  const stated = data.protocolVersions;
  if (isObject(stated) && Number.isInteger(stated.oldest) && Number.isInteger(stated.newest)) {
    return { oldest: /** @type {number} */ (stated.oldest), newest: /** @type {number} */ (stated.newest) };
  }
  const violations = Array.isArray(data.errors) ? data.errors.filter(isObject) : [];
  for (const violation of violations) {
    const found = violation.path === VERSION_PATH ? SPEAKS.exec(String(violation.message ?? "")) : null;
    if (found) return { oldest: Number(found[1]), newest: Number(found[2] ?? found[1]) };
  }
  // a host from before negotiation does not know minProtocolVersion: it speaks version 1
  if (violations.some((v) => v.path === MIN_VERSION_PATH && /unknown field/.test(String(v.message)))) return { oldest: 1, newest: 1 };
  const message = String(error.message ?? "");
  if (!/unsupported protocol version/i.test(message)) return null;
  // the refusal without its details: every host from before negotiation speaks version 1
  const words = SPEAKS.exec(message);
  return words ? { oldest: Number(words[1]), newest: Number(words[2] ?? words[1]) } : { oldest: 1, newest: 1 };
}

/** @param {Versions} versions */
export function versionWords(versions) {
  return versions.oldest === versions.newest ? `protocol version ${versions.newest}` : `protocol versions ${versions.oldest} to ${versions.newest}`;
}

/** @param {Versions} a @param {Versions} b @returns {number | null} the newest version both speak */
function shared(a, b) {
  const newest = Math.min(a.newest, b.newest);
  return newest >= Math.max(a.oldest, b.oldest) ? newest : null;
}

/** @param {unknown} value @returns {value is Record<string, any>} */
function isObject(value) {
  return typeof value === "object" && value !== null;
}
