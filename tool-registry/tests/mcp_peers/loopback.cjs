// Preloaded with `node -r` so a server that calls `listen(PORT, cb)` binds 127.0.0.1 only.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) &&
      (args.length === 1 || typeof args[1] === "function")) {
    return listen.call(this, Number(port), "127.0.0.1", ...args.slice(1));
  }
  return listen.apply(this, args);
};

// With MCP_HEADER_LOG set, each HTTP request's method and `authorization` and `x-probe` headers
// are appended to that file, one JSON line each, so a test can see what the client sent.
if (process.env.MCP_HEADER_LOG) {
  const fs = require("fs");
  const http = require("http");
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, request, ...rest) {
    if (event === "request") {
      fs.appendFileSync(process.env.MCP_HEADER_LOG, JSON.stringify({
        method: request.method,
        authorization: request.headers["authorization"] ?? null,
        probe: request.headers["x-probe"] ?? null,
      }) + "\n");
    }
    return emit.call(this, event, request, ...rest);
  };
}
