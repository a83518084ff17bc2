// A LAN peer that opens `count` TCP connections to host:port and never sends a byte, as the
// flood that once exhausted Baton's descriptors. It opens them 50 at a time, so the server's
// accept queue (Node's backlog of 511) never overflows: an overflowed handshake looks open to
// the client while the server has not even seen it. Prints one JSON line `watchMs` after the
// start: how many connected, and when (ms after the start) each one the server closed was closed.
import net from "node:net";

const [host, port, count, watchMs] = process.argv.slice(2);
const started = Date.now();
const closedAt = [];
let connected = 0;
let failed = 0;
let opened = 0;

function openOne() {
  if (opened >= Number(count)) return;
  opened += 1;
  const socket = net.connect({ host, port: Number(port) });
  socket.once("connect", () => {
    connected += 1;
    openOne();
  });
  socket.on("error", () => {
    failed += 1;
    openOne();
  });
  socket.on("close", () => closedAt.push(Date.now() - started));
}
for (let lane = 0; lane < 50; lane++) openOne();
setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ connected, failed, closedAt })}\n`);
  process.exit(0);
}, Number(watchMs));
