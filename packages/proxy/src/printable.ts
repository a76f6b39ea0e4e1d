/** C0 and C1 control characters (ESC among them): a terminal would act on them. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * What an upstream sent, as a line the operator's log can show: a string as it is, anything
 * else as JSON, with control characters escaped (`\u001b`), cut after `max` characters.
 */
export function printable(value: unknown, max = Infinity): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  if (text.length > max) text = `${text.slice(0, max)}…`;
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
