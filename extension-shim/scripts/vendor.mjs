// Copies the panel's runtime libraries from node_modules (installed by `npm ci` from the
// lockfile) into vendor/, where the extension loads them as plain ES modules: no CDN, no
// remote code, no bundler. Run by scripts/check.sh (and so by the project's set-up/test
// command); `--check` only verifies the copies are current.
import { copyFileSync, mkdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** [from node_modules, to vendor/] */
const FILES = [
  ["marked/lib/marked.esm.js", "marked.esm.js"],
  ["marked/lib/marked.d.ts", "marked.esm.d.ts"],
  ["marked/LICENSE", "marked.LICENSE"],
  ["dompurify/dist/purify.es.mjs", "purify.es.mjs"],
  ["dompurify/dist/purify.es.d.mts", "purify.es.d.mts"],
  ["dompurify/LICENSE", "dompurify.LICENSE"],
];

const check = process.argv.includes("--check");
mkdirSync(join(root, "vendor"), { recursive: true });
let stale = 0;
for (const [from, to] of FILES) {
  const source = join(root, "node_modules", from);
  const target = join(root, "vendor", to);
  if (check) {
    if (!existsSync(target) || !readFileSync(source).equals(readFileSync(target))) {
      console.error(`vendor/${to} is missing or not node_modules/${from}`);
      stale += 1;
    }
  } else {
    copyFileSync(source, target);
  }
}
if (stale) process.exit(1);
