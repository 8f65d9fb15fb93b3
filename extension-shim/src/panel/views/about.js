// Settings, "About": this extension's version, the host's and the protocol version they
// speak, for a bug report and to see which side to update (issue 28).

import { el } from "../dom.js";
import { PROTOCOL_VERSIONS } from "../../versions.js";

/** @typedef {import("../../generated/protocol").InitializeResult} InitializeResult */

/**
 * The About lines: "Extension 0.1.0", "Host 0.1.0", "Protocol 1" (the session's version;
 * the extension's own while no host answers).
 * @param {string} extensionVersion @param {InitializeResult | null} host
 * @returns {string[]}
 */
export function aboutLines(extensionVersion, host) {
  const { oldest, newest } = PROTOCOL_VERSIONS;
  const spoken = oldest === newest ? `${newest}` : `${oldest} to ${newest}`;
  return [
    `Extension ${extensionVersion || "unknown"}`,
    `Host ${host?.engine?.version ?? "not connected"}`,
    `Protocol ${host?.protocolVersion ?? spoken}`,
  ];
}

/**
 * The "About" region: a heading and one line each.
 * @param {string} extensionVersion @param {InitializeResult | null} host
 * @returns {HTMLElement}
 */
export function aboutSection(extensionVersion, host) {
  const heading = el("h3", "", "About");
  heading.id = "settings-about";
  const lines = aboutLines(extensionVersion, host).map((line) => el("p", "about-line", line));
  const section = el("section", "settings-section settings-about", heading, ...lines);
  section.setAttribute("aria-labelledby", heading.id);
  return section;
}
