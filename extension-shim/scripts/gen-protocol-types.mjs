// Generates src/generated/protocol.d.ts (the types) and src/generated/error-codes.js (the
// error codes by kind) from ../schema/protocol.schema.json (the host's published schema),
// so the extension's protocol types and codes are never written by hand.
//   node scripts/gen-protocol-types.mjs          write the file
//   node scripts/gen-protocol-types.mjs --check  exit 1 when the committed file is stale
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = (/** @type {string} */ p) => fileURLToPath(new URL(p, import.meta.url));
const SCHEMA = here("../../schema/protocol.schema.json");
const OUT = here("../src/generated/protocol.d.ts");
const CODES_OUT = here("../src/generated/error-codes.js");
const TOOLS = here("../../schema/browser-tools.json");

/** `browser_click` -> `BrowserClickArgs`. @param {string} name */
const argsTypeName = (name) => `${name.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("")}Args`;

/**
 * The browser tools the host declares (schema/browser-tools.json): each tool's arguments as
 * an interface, and `BrowserToolArgs` from name to arguments.
 */
async function browserToolTypes() {
  const { tools } = JSON.parse(await readFile(TOOLS, "utf8"));
  const parts = [];
  const map = [];
  for (const [name, tool] of Object.entries(tools)) {
    const type = argsTypeName(name);
    const body = await compile({ ...tool.parameters, title: type }, type, {
      bannerComment: "",
      additionalProperties: false,
      unknownAny: true,
      strictIndexSignatures: false,
      style: { singleQuote: false, printWidth: 100 },
    });
    parts.push(body.trimEnd());
    map.push(`  ${JSON.stringify(name)}: ${type};`);
  }
  return [
    "// The browser tools the host declares (schema/browser-tools.json).",
    ...parts,
    `export interface BrowserToolArgs {\n${map.join("\n")}\n}`,
    "export type BrowserToolName = keyof BrowserToolArgs;",
    "",
  ].join("\n");
}

/** The error codes by kind, as a frozen ES module. @param {Record<string, number>} codes */
function errorCodes(codes) {
  const lines = Object.entries(codes).map(([kind, code]) => `  ${kind}: ${code},`);
  return [
    "// Generated from schema/protocol.schema.json by extension-shim/scripts/gen-protocol-types.mjs.",
    "// Do not edit: run `npm run gen:types` in extension-shim/ after the schema changes.",
    "",
    "/** The JSON-RPC error code of each error kind (`error.data.kind`). */",
    "export const ERROR_CODES = Object.freeze({",
    ...lines,
    "});",
    "",
  ].join("\n");
}

/** @param {string} ref  "#/$defs/Name" */
const defName = (ref) => ref.replace("#/$defs/", "");

/**
 * A TypeScript map from method name to its params/result types, from an x-* table.
 * @param {string} name @param {Record<string, {params?: {$ref: string}, result?: {$ref: string}}>} table
 */
function methodMap(name, table) {
  const lines = Object.entries(table).map(([method, spec]) => {
    const parts = [];
    if (spec.params) parts.push(`params: ${defName(spec.params.$ref)}`);
    if (spec.result) parts.push(`result: ${defName(spec.result.$ref)}`);
    return `  ${JSON.stringify(method)}: { ${parts.join("; ")} };`;
  });
  return `export interface ${name} {\n${lines.join("\n")}\n}\n`;
}

async function generate() {
  const schema = JSON.parse(await readFile(SCHEMA, "utf8"));
  const defs = schema.$defs;
  // One root that references every definition, so each becomes a named export.
  const root = {
    title: "ProtocolDefinitions",
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(defs).map((k) => [k, { $ref: `#/$defs/${k}` }])),
    $defs: Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, { ...v, title: k }])),
  };
  const body = await compile(/** @type {any} */ (root), "ProtocolDefinitions", {
    bannerComment: "",
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: false,
    style: { singleQuote: false, printWidth: 100 },
  });
  return [
    "// Generated from schema/protocol.schema.json by extension-shim/scripts/gen-protocol-types.mjs.",
    "// Do not edit: run `npm run gen:types` in extension-shim/ after the schema changes.",
    "",
    body.trimEnd(),
    "",
    `export type ProtocolVersion = ${schema["x-protocolVersion"]};`,
    "",
    methodMap("Ops", schema["x-ops"]),
    methodMap("ShimRequests", schema["x-shimRequests"]),
    methodMap("Events", schema["x-events"]),
    methodMap("ControlNotifications", schema["x-notifications"]),
    "export type OpMethod = keyof Ops;",
    "export type EventMethod = keyof Events;",
    "",
    await browserToolTypes(),
  ].join("\n");
}

const text = await generate();
const codes = errorCodes(JSON.parse(await readFile(SCHEMA, "utf8"))["x-errorCodes"]);
if (process.argv.includes("--check")) {
  const current = await readFile(OUT, "utf8").catch(() => "");
  const currentCodes = await readFile(CODES_OUT, "utf8").catch(() => "");
  if (current !== text || currentCodes !== codes) {
    console.error(
      "extension-shim/src/generated/ is stale: run `npm run gen:types` in extension-shim/",
    );
    process.exit(1);
  }
  console.error("protocol types are current");
} else {
  await writeFile(OUT, text);
  await writeFile(CODES_OUT, codes);
  console.error(`wrote ${OUT} and ${CODES_OUT}`);
}
