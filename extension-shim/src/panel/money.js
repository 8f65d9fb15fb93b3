// Budgets in money, as people write and read them: "$0.10", "$2.00"; the presets of the
// settings' "Budget per turn" and the "Continue (+$…)" amounts of a budget pause.

/** The budgets per turn offered in settings, in US dollars. */
export const BUDGET_PRESETS = [0.1, 0.5, 2];

// amounts a person picks without thinking twice: the pause's presets snap to these
const NICE = [0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];

/** A budget: "$0.10", "$2.00", "$0.005" (below a cent, the first significant digit). @param {number} usd */
export function amount(usd) {
  if (usd > 0 && usd < 0.01) return `$${usd.toPrecision(1)}`;
  return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * An amount typed by a person ("0.5", "$2", "1,50" is refused): a positive number of
 * dollars of at most 100,000, or null.
 * @param {string} text
 */
export function parseDollars(text) {
  const cleaned = text.trim().replace(/^\$/, "").trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(cleaned)) return null;
  const usd = Number(cleaned);
  return usd > 0 && usd <= 100_000 ? usd : null;
}

/** The nice amount nearest to `usd` on a log scale. @param {number} usd */
function nice(usd) {
  return NICE.reduce((best, n) => (Math.abs(Math.log(n / usd)) < Math.abs(Math.log(best / usd)) ? n : best));
}

/**
 * What a budget-paused turn may be given more, scaled from its budget: half of it, about
 * two and a half times and ten times ($0.10: +$0.05, +$0.25, +$1.00); $0.10 when the budget
 * is not known.
 * @param {number | null | undefined} budget
 */
export function continuePresets(budget) {
  const base = budget && budget > 0 ? budget : 0.1;
  return [...new Set([base / 2, base * 2.5, base * 10].map(nice))];
}
