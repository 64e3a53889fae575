/**
 * A bare http hook server for the transports section: the floor an http hook can cost Claude Code on
 * this machine. It answers `{}` to every request as soon as the body is in, keeps connections alive
 * (Node's default; with `close`, answers `connection: close` as the receiver does) and writes nothing,
 * in a process of its own like bench/receiverChild.ts.
 * Usage: node bareHookChild.cjs PORT [close]; prints `serving PORT`. On SIGTERM it prints one JSON
 * line: requests served and the connections they came on (does Claude Code reuse them?).
 */
import * as http from 'node:http';

const headers = process.argv[3] === 'close' ? { 'content-type': 'application/json', connection: 'close' } : { 'content-type': 'application/json' };
let requests = 0;
let connections = 0;
const server = http.createServer((req, res) => {
  requests += 1;
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end('{}');
  });
});
server.on('connection', () => (connections += 1));
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write(`serving ${(server.address() as { port: number }).port}\n`));
server.on('error', (err) => process.stdout.write(`failed ${err.message}\n`));
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ requests, connections })}\n`);
  process.exit(0);
});
