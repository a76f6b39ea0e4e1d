import { serveNotes } from './server';

/**
 * The notes service on its own: NOTES_API_KEY is the key its clients must send, PORT its port
 * (default 0, a free one). Prints `LISTENING <url>` on stdout once it serves. With
 * CLOSE_ON_STDIN_END=1 it stops when its stdin closes, so it ends with the process that
 * started it (the gateway).
 */
async function main(): Promise<void> {
  const apiKey = process.env.NOTES_API_KEY;
  if (!apiKey) throw new Error('set NOTES_API_KEY to the key clients must send in x-api-key');
  const service = await serveNotes({ apiKey, port: Number(process.env.PORT ?? 0) });
  const stop = () => void service.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (process.env.CLOSE_ON_STDIN_END === '1') {
    process.stdin.once('end', stop).resume();
  }
  process.stdout.write(`LISTENING ${service.url}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`notes: ${error.message}\n`);
  process.exit(1);
});
