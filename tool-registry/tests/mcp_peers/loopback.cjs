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
