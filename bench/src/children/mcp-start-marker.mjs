// Stands in front of a real MCP server: records that a server process started (its pid, one line in
// MARKER_FILE) and then runs the server in this same process. The capability benchmark configures
// every server through it, so "no process started" is checked by the file, not only by sampling.
//
//   node mcp-start-marker.mjs MARKER_FILE SERVER_SCRIPT [ARGS...]
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [marker, server, ...rest] = process.argv.slice(2);
if (!marker || !server) throw new Error('usage: mcp-start-marker.mjs MARKER_FILE SERVER_SCRIPT [ARGS...]');
appendFileSync(marker, `${process.pid}\n`);
// The server reads its own arguments from process.argv as if it had been started directly.
process.argv = [process.argv[0], server, ...rest];
await import(pathToFileURL(server).href);
