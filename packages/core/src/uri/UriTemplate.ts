import { DefinitionError } from '../errors';

/**
 * Variables recovered by {@link UriTemplate.match}. A value is a list for explode (`*`)
 * variables and when the matched text held a literal ',' (the list separator).
 */
export type UriVariables = Record<string, string | string[]>;

type ExpandValue = string | number | boolean | string[] | undefined;
type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface OperatorRule {
  first: string;
  sep: string;
  named: boolean;
  ifemp: string;
  reserved: boolean;
}

// RFC 6570 appendix A.
const OPERATORS: Record<Operator, OperatorRule> = {
  '': { first: '', sep: ',', named: false, ifemp: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifemp: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifemp: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifemp: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifemp: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifemp: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifemp: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifemp: '=', reserved: false },
};

interface VarSpec {
  name: string;
  explode: boolean;
  prefix: number; // 0 = no prefix modifier
}
interface Expression {
  op: Operator;
  vars: VarSpec[];
}
/** A string part is a literal, already percent-encoded for the URI. */
type Part = string | Expression;

interface Slot {
  groups: number[]; // alternative capture groups; the first that participated wins
  read: (raw: string, out: Map<string, string | string[]>) => boolean;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Characters an unreserved-only expansion can produce ('%' stands for pct-encoded). */
const U = `${ALNUM}-._~%`;
/** ... and those a reserved expansion (`+`, `#`) can produce. */
const R = `${U}:/?#[]@!$&'()*+,;=`;
const VARCHAR = '(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})';
const VARNAME = new RegExp(`^${VARCHAR}+(?:\\.${VARCHAR}+)*$`);
const ESCAPE_UNRESERVED = /[^A-Za-z0-9\-._~]/gu;
const ESCAPE_RESERVED = /%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/gu;
const UTF8 = new TextEncoder();

/**
 * RFC 6570 URI Template (levels 1–4) with an inverse, {@link match}, for resource templates.
 *
 * Not supported: associative (object) values of level 4 — `expand` throws a TypeError —
 * and prefix modifiers on lists (the whole list is used, as the RFC leaves it undefined).
 *
 * Matching notes:
 * - `{var}` only matches what its expansion can produce: unreserved characters,
 *   pct-encoded triplets and ',' (which splits into a list). It never crosses '/', '?' or
 *   '#'. A value is decoded exactly once, so `%2F` in the uri does yield '/' (and `..` is
 *   an ordinary value): callers that map variables onto file paths must validate them.
 * - `{+var}` and `{#var}` may contain '/'; a `{+var}` followed by `{?…}` or `{#…}` stops at
 *   the '?' or '#'. A single-variable `{+var}`/`{#var}` is never split on ','.
 * - `{?a,b}` accepts any subset of its parameters in template order; other orders and
 *   unknown parameters do not match.
 * - Where a value could also contain what follows it (`{name}.{ext}`, `{+dir}/{file}`,
 *   `{name}{.ext}`), the last such expression backtracks and splits at the last possible
 *   place; the variables after it cannot contain the character it splits on, and every
 *   other variable stops at the first character that can begin what follows. So there
 *   is at most one backtracking expression and no nested quantifier over overlapping
 *   characters (ReDoS). Adjacent expressions with no delimiter (`{a}{b}`) split arbitrarily.
 * - An empty `{var}` / `{+var}` yields '' (both '' and undefined expand to nothing).
 */
export class UriTemplate {
  readonly variableNames: readonly string[];
  private readonly parts: readonly Part[];
  private readonly regex: RegExp;
  private readonly slots: readonly Slot[];

  constructor(readonly template: string) {
    this.parts = parse(template);
    const names = this.parts.flatMap((p) => (typeof p === 'string' ? [] : p.vars.map((v) => v.name)));
    this.variableNames = Object.freeze([...new Set(names)]);
    ({ regex: this.regex, slots: this.slots } = compile(this.parts));
  }

  /** True when `uri` contains an expression `{…}` (`{}` too, so the constructor reports it). */
  static isTemplate(uri: string): boolean {
    return /\{[^{}]*\}/.test(uri);
  }

  expand(variables: Record<string, ExpandValue>): string {
    let out = '';
    for (const part of this.parts) out += typeof part === 'string' ? part : expandExpression(part, variables);
    return out;
  }

  /** The variables that expand to exactly `uri`, or undefined when it does not match. */
  match(uri: string): UriVariables | undefined {
    const m = this.regex.exec(uri);
    if (!m) return undefined;
    const out = new Map<string, string | string[]>();
    for (const { groups, read } of this.slots) {
      const raw = groups.map((g) => m[g]).find((s) => s !== undefined);
      if (raw !== undefined && !read(raw, out)) return undefined;
    }
    // fromEntries defines own properties, so a variable named __proto__ stays data.
    return Object.fromEntries(out);
  }
}

function fail(template: string, position: number, problem: string): never {
  throw new DefinitionError('INVALID_OPTION', `Invalid URI template "${template}": ${problem} at position ${position}.`);
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (close !== -1 && (open === -1 || close < open)) fail(template, close, '"}" without a matching "{"');
    const end = open === -1 ? template.length : open;
    if (end > i) parts.push(encode(template.slice(i, end), true));
    if (open === -1) break;
    if (close === -1) fail(template, open, 'unclosed "{"');
    parts.push(parseExpression(template, open + 1, close));
    i = close + 1;
  }
  return parts;
}

function parseExpression(template: string, start: number, end: number): Expression {
  if (start === end) fail(template, start - 1, 'empty expression "{}"');
  let pos = start;
  let op: Operator = '';
  const c = template[pos];
  if (Object.hasOwn(OPERATORS, c)) {
    op = c as Operator;
    pos++;
  } else if ('=,!@|'.includes(c)) fail(template, pos, `operator "${c}" is reserved by RFC 6570 and not supported`);
  else if (!/[A-Za-z0-9_%]/.test(c)) fail(template, pos, `unknown operator "${c}"`);
  const vars: VarSpec[] = [];
  for (const spec of template.slice(pos, end).split(',')) {
    const cut = spec.search(/[:*]/);
    const name = cut < 0 ? spec : spec.slice(0, cut);
    const modifier = cut < 0 ? '' : spec.slice(cut);
    if (!VARNAME.test(name)) fail(template, pos, name ? `invalid variable name "${name}"` : 'missing variable name');
    if (modifier && modifier !== '*' && !/^:[1-9]\d{0,3}$/.test(modifier)) {
      fail(template, pos + name.length, `invalid modifier "${modifier}" (use "*" or ":1" to ":9999")`);
    }
    vars.push({ name, explode: modifier === '*', prefix: modifier ? Number(modifier.slice(1)) || 0 : 0 });
    pos += spec.length + 1;
  }
  return { op, vars };
}

/** Percent-encodes what the operator may not emit as is; `reserved` keeps pct-triplets. */
function encode(value: string, reserved: boolean): string {
  return value.replace(reserved ? ESCAPE_RESERVED : ESCAPE_UNRESERVED, (ch) =>
    ch.length === 3
      ? ch // an existing pct-triplet
      : Array.from(UTF8.encode(ch), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

function normalize(value: unknown, name: string): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.length ? value.map(String) : undefined;
  if (typeof value === 'object') {
    throw new TypeError(`URI template variable "${name}" is an object; associative values are not supported.`);
  }
  return String(value);
}

function expandExpression({ op, vars }: Expression, values: Record<string, ExpandValue>): string {
  const { first, sep, named, ifemp, reserved } = OPERATORS[op];
  const enc = (s: string) => encode(s, reserved);
  const param = (name: string, s: string) => (s === '' ? name + ifemp : `${name}=${enc(s)}`);
  const items: string[] = [];
  for (const { name, explode, prefix } of vars) {
    // hasOwn: a variable named "constructor" must not pick up Object.prototype members.
    const value = normalize(Object.hasOwn(values, name) ? values[name] : undefined, name);
    if (value === undefined) continue;
    if (typeof value === 'string') {
      const s = prefix ? Array.from(value).slice(0, prefix).join('') : value;
      items.push(named ? param(name, s) : enc(s));
    } else if (explode) {
      items.push(value.map((s) => (named ? param(name, s) : enc(s))).join(sep));
    } else {
      const joined = value.map(enc).join(',');
      items.push(named ? `${name}=${joined}` : joined);
    }
  }
  return items.length ? first + items.join(sep) : '';
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const without = (chars: string, drop: string) => [...chars].filter((c) => !drop.includes(c)).join('');

function charClass(chars: string): string {
  const alnum = [...ALNUM].every((c) => chars.includes(c));
  const rest = [...new Set(chars)].filter((c) => !(alnum && ALNUM.includes(c)));
  return `[${alnum ? 'A-Za-z0-9' : ''}${rest.map((c) => (/[\\\]\[^-]/.test(c) ? `\\${c}` : c)).join('')}]`;
}

/** Characters one variable's captured text can hold (separators included when it splits). */
function valueChars(op: Operator, spec: VarSpec): string {
  if (op === '+' || op === '#') return R;
  if (op === '.' || op === '/') return spec.explode ? U + op : `${U},`;
  return spec.explode && OPERATORS[op].named ? U : `${U},`;
}

/** Characters that can begin `part`. */
function startChars(part: Part): string {
  if (typeof part === 'string') return part[0];
  return OPERATORS[part.op].first || valueChars(part.op, part.vars[0]);
}

/**
 * What may follow expression `i`: the first characters of the next parts up to the next
 * literal (expressions can expand to nothing). `soft` leaves out the '?' and '#' of `{?…}`
 * and `{#…}`, which always end a preceding value as they start query and fragment.
 */
function followOf(parts: readonly Part[], i: number): { all: string; soft: string } {
  let all = '';
  let hard = '';
  for (const next of parts.slice(i + 1)) {
    all += startChars(next);
    if (typeof next === 'string') break;
    if (next.op === '?' || next.op === '#') hard += next.op;
  }
  return { all, soft: without(all, hard) };
}

const overlaps = (a: string, b: string) => [...a].some((c) => b.includes(c));

/**
 * Linear-time shape: every variable stops before anything that can follow it, so its end
 * is forced, except in the last expression whose text could run into what follows
 * (`{name}.{ext}`, `{+dir}/{file}`). That one backtracks, and the variables after it may
 * not contain the characters it splits on, so each retry only rescans one segment.
 */
function compile(parts: readonly Part[]): { regex: RegExp; slots: Slot[] } {
  const follows = parts.map((_, i) => followOf(parts, i));
  let backtracking = -1;
  parts.forEach((part, i) => {
    if (typeof part === 'string') return;
    if (part.vars.some((v) => overlaps(valueChars(part.op, v), follows[i].soft))) backtracking = i;
  });
  const splitters = backtracking < 0 ? '' : follows[backtracking].soft;

  let source = '^';
  let groups = 0;
  const slots: Slot[] = [];
  parts.forEach((part, i) => {
    if (typeof part === 'string') {
      source += escapeRegExp(part);
      return;
    }
    const { op, vars } = part;
    const { first, sep, named } = OPERATORS[op];
    const { all, soft } = follows[i];
    const stop = i === backtracking ? without(all, soft) : i > backtracking ? all + splitters : all;
    // Greedy before a literal (split at its last occurrence), lazy before an expression
    // (whose own class excludes its separator, so it takes the last piece).
    const quantifier = i === backtracking && typeof parts[i + 1] !== 'string' ? '*?' : '*';
    const value = (spec: VarSpec) => {
      // Only the last variable of a '.' or '/' expression may contain its separator.
      const own = (op === '.' || op === '/') && spec !== vars[vars.length - 1] ? sep : '';
      return charClass(without(valueChars(op, spec), stop + own)) + quantifier;
    };

    if (!named) {
      if (op === '' || op === '+' || op === '#') {
        source += op === '#' ? `(?:#(${value(vars[0])}))?` : `(${value(vars[0])})`;
        slots.push({ groups: [++groups], read: (raw, out) => readJoined(part, raw, out) });
      } else {
        for (const spec of vars) {
          source += `(?:${escapeRegExp(sep)}(${value(spec)}))?`;
          const read = (raw: string) => (spec.explode ? raw.split(sep) : splitList(raw));
          slots.push({ groups: [++groups], read: (raw, out) => assign(out, spec, read(raw)) });
        }
      }
      return;
    }

    const found = new Map<VarSpec, number[]>(vars.map((spec) => [spec, []]));
    const param = (spec: VarSpec) => {
      found.get(spec)!.push(++groups);
      const item = `${escapeRegExp(spec.name)}${op === ';' ? `(?:=${value(spec)})?` : `=${value(spec)}`}`;
      // The inner repetition starts with the separator, which no value contains.
      return spec.explode ? `(${item}(?:${escapeRegExp(sep)}${item})*)` : `(${item})`;
    };
    if (op === '?') {
      // Any subset in template order: one alternative per first parameter present.
      const alternatives = vars.map((_, k) =>
        vars
          .slice(k)
          .map((spec, j) => (j === 0 ? param(spec) : `(?:&${param(spec)})?`))
          .join(''),
      );
      source += `(?:\\?(?:${alternatives.join('|')}))?`;
    } else {
      source += vars.map((spec) => `(?:${escapeRegExp(first)}${param(spec)})?`).join('');
    }
    for (const spec of vars) {
      // "name=value" items ("name" alone for an empty ';' value).
      const read = (raw: string) => {
        const values = raw.split(sep).map((item) => item.slice(spec.name.length + 1));
        return spec.explode ? values : splitList(values[0]);
      };
      slots.push({ groups: found.get(spec)!, read: (raw, out) => assign(out, spec, read(raw)) });
    }
  });
  return { regex: new RegExp(`${source}$`), slots };
}

const splitList = (raw: string): string | string[] => (raw.includes(',') ? raw.split(',') : raw);

/** `{x,y}`, `{+x,y}`, `{#x,y}`: one capture, split on ',' in template order. */
function readJoined({ op, vars }: Expression, raw: string, out: Map<string, string | string[]>): boolean {
  if (vars.length === 1 && !vars[0].explode) return assign(out, vars[0], op === '' ? splitList(raw) : raw);
  const pieces = raw.split(',');
  let i = 0;
  for (const spec of vars) {
    if (i === pieces.length) break;
    const ok = assign(out, spec, spec.explode ? pieces.slice(i) : pieces[i]);
    i = spec.explode ? pieces.length : i + 1;
    if (!ok) return false;
  }
  return i === pieces.length; // more values than variables: not an expansion of this template
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined; // malformed escape: no match rather than an exception
  }
}

function assign(out: Map<string, string | string[]>, spec: VarSpec, raw: string | string[]): boolean {
  const decoded = (typeof raw === 'string' ? [raw] : raw).map(decode);
  if (decoded.includes(undefined)) return false;
  const value = typeof raw === 'string' ? decoded[0]! : (decoded as string[]);
  if (spec.prefix && typeof value === 'string' && Array.from(value).length > spec.prefix) return false;
  // A variable used twice must get the same value both times.
  const seen = out.get(spec.name);
  if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(value)) return false;
  out.set(spec.name, value);
  return true;
}
