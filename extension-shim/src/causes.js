// Chrome's reasons for closing a native Port, mapped to causes a user can act on
// (design/native-messaging.md lists every message Chrome sends).

/** @typedef {import("./types").DisconnectCause} DisconnectCause */

const LOGS = "the host's log: run `panelot-host logs` (it is PANELOT_HOME/logs/host.log)";
const DOCTOR = "`panelot-host doctor` says what is wrong and how to fix it";

/**
 * @param {string | undefined} chromeMessage chrome.runtime.lastError?.message at onDisconnect
 * @param {string} extensionId
 * @returns {DisconnectCause}
 */
export function causeOfDisconnect(chromeMessage, extensionId) {
  const origin = `chrome-extension://${extensionId}/`;
  const text = chromeMessage ?? "";
  /** @type {Omit<DisconnectCause, "chromeMessage">} */
  let cause;
  if (text.includes("not found")) {
    cause = {
      code: "host_not_found",
      message: "The Panelot host is not installed for this browser (Chrome found no valid com.panelot.host manifest).",
      fix: `Install the host: bash install/install.sh (Windows: install\\install.ps1), from the README's quickstart. Then ${DOCTOR}.`,
    };
  } else if (text.includes("forbidden")) {
    cause = {
      code: "forbidden",
      message: `The Panelot host manifest does not allow this extension: its allowed_origins lacks ${origin}.`,
      fix: `Reinstall the host for extension ID ${extensionId}: panelot-host install --extension-id ${extensionId}. ${DOCTOR}.`,
    };
  } else if (text.includes("Failed to start")) {
    cause = {
      code: "start_failed",
      message: "Chrome could not start the Panelot host.",
      fix: `Check that the path in com.panelot.host.json is executable by you; ${DOCTOR}.`,
    };
  } else if (text.includes("exited")) {
    cause = {
      code: "host_exited",
      message: "The Panelot host stopped unexpectedly (it exited or crashed).",
      fix: `See ${LOGS}. If it refused this extension: panelot-host install --extension-id ${extensionId}. ${DOCTOR}.`,
    };
  } else if (text.includes("communicating")) {
    cause = {
      code: "communication",
      message: "The connection to the Panelot host broke (it wrote something that is not a message, or a message over 1 MiB).",
      fix: `See ${LOGS}.`,
    };
  } else {
    cause = {
      code: "unknown",
      message: text ? `The connection to the Panelot host closed: ${text}` : "The connection to the Panelot host closed.",
      fix: `See ${LOGS}.`,
    };
  }
  return text ? { ...cause, chromeMessage: text } : cause;
}

/**
 * The host answered `initialize` with an error (e.g. another host holds the profile's lease).
 * @param {string} message
 * @returns {DisconnectCause}
 */
export function causeOfInitializeFailure(message) {
  return {
    code: "initialize_failed",
    message: `The Panelot host refused to start a session: ${message}`,
    fix: `Close other browser windows of this profile that run Panelot, or see ${LOGS}.`,
  };
}
