/** How the server names a question to the client by default: `elicitation-1`, `sampling-2`, … by kind. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The prefix of the default keys of questions sent as `method` (`elicitation`, `sampling`, `roots`). */
export function questionKeyPrefix(method: string): string {
  return KEY_PREFIX[method] ?? method.replace(/\W+/g, '-');
}

/** JSON with object keys sorted: two equal values give the same text, whatever the order they were built in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
