// Token counts of text files with a real tokenizer (js-tiktoken, which bundles its BPE
// ranks: nothing is downloaded), for the snapshot benchmark (bench/bench_snapshot.py).
// Usage: node count-tokens.mjs FILE... -> {"FILE": {"o200k_base": n, "cl100k_base": n}}

import { readFileSync } from "node:fs";
import { getEncoding } from "js-tiktoken";

const encodings = ["o200k_base", "cl100k_base"].map((name) => [name, getEncoding(name)]);
const counts = {};
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  counts[file] = Object.fromEntries(encodings.map(([name, encoding]) => [name, encoding.encode(text).length]));
}
process.stdout.write(JSON.stringify(counts));
