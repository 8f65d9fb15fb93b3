// The browser profile's random id, created once and kept in chrome.storage.local, so the
// host keeps each Chrome profile's threads in their own database (protocol section 9).

const KEY = "panelot.profileId";

/** @returns {Promise<string>} */
export async function profileId() {
  const stored = await chrome.storage.local.get(KEY);
  const current = stored[KEY];
  if (typeof current === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(current)) return current;
  const created = crypto.randomUUID();
  await chrome.storage.local.set({ [KEY]: created });
  return created;
}
