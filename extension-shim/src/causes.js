// Chrome's reasons for closing a native Port, mapped to causes a user can act on
// (the messages Chrome sends, as its native-messaging documentation and sources word them).

import { EXTENSION_PATH_COMMAND, PROTOCOL_VERSIONS, versionSkew, versionWords } from "./versions.js";

/** @typedef {import("./types").DisconnectCause} DisconnectCause */
/** @typedef {import("./types").RpcErrorObject} RpcErrorObject */
/** @typedef {import("./versions.js").Versions} Versions */
/** @typedef {import("./versions.js").VersionSkew} VersionSkew */

const LOGS_WORDS = "The host's log says what happened";
const LOGS_COMMAND = "panelot-host logs";
const DOCTOR_COMMAND = "panelot-host doctor";

/**
 * @param {string | undefined} chromeMessage chrome.runtime.lastError?.message at onDisconnect
 * @param {string} extensionId
 * @returns {DisconnectCause}
 */
export function causeOfDisconnect(chromeMessage, extensionId) {
  const origin = `chrome-extension://${extensionId}/`;
  const text = chromeMessage ?? "";
  const install = `panelot-host install --extension-id ${extensionId}`;
  /** @type {Omit<DisconnectCause, "chromeMessage">} */
  let cause;
  if (text.includes("not found")) {
    cause = {
      code: "host_not_found",
      headline: "The Panelot host is not installed",
      message: "Panelot's engine runs as a program on this computer, and Chrome did not find it.",
      fix: "Install it with the README's first command (from the folder of Panelot), then press Retry now.",
      commands: ["bash install/install.sh", DOCTOR_COMMAND],
      details: "Chrome found no valid com.panelot.host manifest for this browser. On Windows: install\\install.ps1.",
    };
  } else if (text.includes("forbidden")) {
    cause = {
      code: "forbidden",
      headline: "The host does not allow this extension",
      message: "The Panelot host on this computer was installed for another copy of the extension.",
      fix: "Run this in a terminal to allow this one, then press Retry now.",
      commands: [install],
      details: `The host's manifest (com.panelot.host.json) lists the extensions it answers in allowed_origins, and ${origin} is not among them. Extension ID: ${extensionId}. ${DOCTOR_COMMAND} checks the whole installation.`,
    };
  } else if (text.includes("Failed to start")) {
    cause = {
      code: "start_failed",
      headline: "Chrome could not start the Panelot host",
      message: "The host is installed, but Chrome could not run it.",
      fix: "This command says what is wrong and how to fix it.",
      commands: [DOCTOR_COMMAND],
      details: "Check that the path in com.panelot.host.json exists and that you may run it.",
    };
  } else if (text.includes("exited")) {
    cause = {
      code: "host_exited",
      headline: "The Panelot host stopped",
      message: "The host stopped unexpectedly. Panelot tries again on its own; nothing you saved is lost.",
      fix: `${LOGS_WORDS}: run the first command. If the host refused this extension, the second allows it.`,
      commands: [LOGS_COMMAND, install],
      details: `The log is PANELOT_HOME/logs/host.log. Extension ID: ${extensionId}.`,
    };
  } else if (text.includes("communicating")) {
    cause = {
      code: "communication",
      headline: "The connection to the Panelot host broke",
      message: "The host sent something Chrome could not read. Panelot tries again on its own.",
      fix: `${LOGS_WORDS}.`,
      commands: [LOGS_COMMAND],
      details: "Chrome drops the connection when the host writes something that is not a message, or a message over 1 MiB. The log is PANELOT_HOME/logs/host.log.",
    };
  } else {
    cause = {
      code: "unknown",
      headline: "Panelot lost its connection to the host",
      message: "Panelot tries again on its own.",
      fix: `${LOGS_WORDS}.`,
      commands: [LOGS_COMMAND],
      details: "The log is PANELOT_HOME/logs/host.log.",
    };
  }
  return text ? { ...cause, chromeMessage: text } : cause;
}

/**
 * The host answered `initialize` with an error: versions that do not meet (which side to
 * update, and how), or another refusal (e.g. another host holds the profile's lease).
 * @param {RpcErrorObject} error
 * @param {Versions} [spoken] the protocol versions this extension sent
 * @param {string} [extensionVersion] this extension's version (manifest.json)
 * @returns {DisconnectCause}
 */
export function causeOfInitializeFailure(error, spoken = PROTOCOL_VERSIONS, extensionVersion = "") {
  const skew = versionSkew(error, spoken);
  if (skew) return causeOfVersionSkew(skew, extensionVersion);
  return {
    code: "initialize_failed",
    headline: "The Panelot host refused to start",
    message: `The host refused to start a session: ${error.message}`,
    fix: `Close other windows of this browser profile that run Panelot, then press Retry now. ${LOGS_WORDS}.`,
    commands: [LOGS_COMMAND],
    details: "The log is PANELOT_HOME/logs/host.log.",
  };
}

/**
 * The host and this extension share no protocol version: say which side is older and how
 * to update it.
 * @param {VersionSkew} skew @param {string} extensionVersion
 * @returns {DisconnectCause}
 */
export function causeOfVersionSkew(skew, extensionVersion) {
  const extension = extensionVersion ? `This extension (${extensionVersion})` : "This extension";
  const host = skew.hostVersion ? `the host (${skew.hostVersion})` : "the host";
  const details = `${extension} speaks ${versionWords(skew.spoken)}; ${host} speaks ${versionWords(skew.host)}.`;
  if (skew.update === "host") {
    return {
      code: "version_skew",
      headline: "Update the Panelot host",
      message: `The Panelot host is older than this extension: run \`${skew.command}\`.`,
      fix: "Run this in a terminal to update the host, then press Retry now.",
      commands: [skew.command],
      details,
    };
  }
  return {
    code: "version_skew",
    headline: "Update the Panelot extension",
    message: `This extension is older than the Panelot host: update the extension (reload it from the folder \`${EXTENSION_PATH_COMMAND}\` prints, or update it from the Chrome Web Store).`,
    fix: "Loaded unpacked: in chrome://extensions, press Reload on Panelot, or Load unpacked the folder this command prints. From the Chrome Web Store: chrome://extensions, Update. Then press Retry now.",
    commands: [EXTENSION_PATH_COMMAND],
    details,
  };
}
