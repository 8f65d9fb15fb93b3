// What to do about a turn the model's server refused, in the user's words, with the one
// setting that fixes it: "The model refused the output limit Panelot asked for" → "Open
// Settings → Output limit". The server's own words stay in the status line beside it.

/** @typedef {{advice: string, label: string, field: string | null}} Fix */

/** @type {[RegExp, Fix][]} */
const FIXES = [
  [
    /max_tokens|max_output_tokens|max_completion_tokens|output limit|maximum output/i,
    { advice: "The model refused the length of answer Panelot asked for: set its output limit.", label: "Open Settings → Output limit", field: "setting-output-limit" },
  ],
  [
    /context (?:length|window)|maximum context|prompt is too long|too many tokens/i,
    { advice: "The conversation is longer than the model reads: set its context window, so Panelot summarizes older turns in time.", label: "Open Settings → Context window", field: "setting-context-window" },
  ],
  [
    /api[ _-]?key|unauthori[sz]ed|authentication|HTTP 401|HTTP 403|permission denied/i,
    { advice: "The model's server did not accept the API key.", label: "Open Settings → API key", field: "setting-api-key" },
  ],
  [
    /model.*(?:not found|does not exist|unknown)|(?:not found|unknown).*model|HTTP 404/i,
    { advice: "The model's server does not know this model.", label: "Open Settings → Model", field: "setting-model" },
  ],
];

/**
 * The fix for a provider error's message; a general one when none is known.
 * @param {string} message @returns {Fix}
 */
export function providerFix(message) {
  for (const [pattern, fix] of FIXES) if (pattern.test(message)) return fix;
  return { advice: "Check the model's settings, then send your message again.", label: "Open settings", field: null };
}
