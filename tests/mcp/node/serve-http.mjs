// Starts server-everything's Streamable HTTP transport bound to 127.0.0.1 only.
// Usage: PORT=<port> node serve-http.mjs   (the packaged server listens on every interface)
import http from "node:http";

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};

process.argv[2] = "streamableHttp";
await import("@modelcontextprotocol/server-everything/dist/index.js");
