'use strict';
/**
 * Redis for the cluster bench: inline commands on a fresh connection, and the command counts
 * of `INFO commandstats` (reset with `CONFIG RESETSTAT`). Commands that scripts call are
 * counted by Redis as commands of their own, beside the EVALSHA that ran them.
 */
const net = require('node:net');

/** Sends one inline command and resolves with the whole reply (a bulk string's text, or the status line). */
function command(port, line, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on port ${port} did not answer ${line} within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (value) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (chunk) => {
      data += chunk;
      const bulk = /^\$(\d+)\r\n/.exec(data);
      if (bulk) {
        if (Buffer.byteLength(data) >= bulk[0].length + Number(bulk[1]) + 2) finish(data.slice(bulk[0].length, bulk[0].length + Number(bulk[1])));
      } else if (data.includes('\r\n')) {
        finish(data.slice(0, data.indexOf('\r\n')));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function resetStats(port) {
  const reply = await command(port, 'CONFIG RESETSTAT');
  if (reply !== '+OK') throw new Error(`CONFIG RESETSTAT answered ${reply}`);
}

/** Calls per command since the last reset, without the INFO and CONFIG of the count itself. */
async function commandCounts(port) {
  const info = await command(port, 'INFO commandstats');
  const counts = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]] = Number(match[2]);
  for (const name of Object.keys(counts)) if (name === 'info' || name.startsWith('config')) delete counts[name];
  return counts;
}

module.exports = { command, resetStats, commandCounts };
