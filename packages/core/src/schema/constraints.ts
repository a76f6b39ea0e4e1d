import type { SchemaDraft } from './SchemaDraft';
import { sameWithUnicodeFlag } from './unicodeMode';

/**
 * Writes one class-validator constraint into a draft. Returns false when the schema cannot
 * say all of it, so class-validator still has to run.
 */
type Translate = (draft: SchemaDraft, constraints: readonly unknown[]) => boolean;

/**
 * A string format. The schema keeps it for clients, but no ajv format is as strict as the
 * validator.js check behind the decorator (ajv's `uri` takes `javascript:alert(1)`, its `email`
 * takes `a@b.c`, its `uuid` takes version 0 and `urn:uuid:`, its `date-time` takes a lower-case
 * `t` and a leap second), so class-validator always has the final say.
 */
const format =
  (name: string): Translate =>
  (d) => {
    d.requireType('string');
    d.add('format', name);
    return false;
  };

const bound =
  (type: 'number' | 'string' | 'array', keyword: Parameters<SchemaDraft['bound']>[0], fixed?: number): Translate =>
  (d, [value]) => {
    d.requireType(type);
    return d.bound(keyword, fixed ?? value);
  };

/** Constraints keyed by the `name` class-validator's built-in decorators register under. */
const TRANSLATIONS: ReadonlyMap<string, Translate> = new Map<string, Translate>([
  ['isString', (d) => (d.requireType('string'), true)],
  ['isBoolean', (d) => (d.requireType('boolean'), true)],
  ['isInt', (d) => (d.requireType('integer'), true)],
  [
    'isNumber',
    (d, [options]) => {
      // NaN and Infinity cannot travel in JSON; only maxDecimalPlaces is beyond the schema.
      d.requireType('number');
      return (options as { maxDecimalPlaces?: number } | undefined)?.maxDecimalPlaces === undefined;
    },
  ],
  ['isArray', (d) => (d.requireType('array'), true)],
  ['isObject', (d) => (d.requireType('object'), true)],
  [
    'isEnum',
    (d, [entity, values]) => {
      d.enumOf(Array.isArray(values) ? values : enumValues(entity));
      return true;
    },
  ],
  [
    'isIn',
    (d, [values]) => {
      // Objects in the list compare by reference in class-validator: no JSON value can match them.
      if (!Array.isArray(values) || values.length === 0 || !values.every(isJsonPrimitive)) return false;
      d.enumOf(values);
      return true;
    },
  ],
  [
    'equals',
    (d, [value]) => {
      if (!isJsonPrimitive(value)) return false;
      d.add('const', value);
      return true;
    },
  ],
  ['notEquals', (d, [value]) => isJsonPrimitive(value) && (d.add('not', { const: value }), true)],
  [
    'isNotIn',
    (d, [values]) => Array.isArray(values) && values.every(isJsonPrimitive) && (d.add('not', { enum: values }), true),
  ],
  ['isNotEmpty', (d) => ((d.notEmpty = true), true)],
  // A Date property travels as an ISO 8601 string; class-transformer turns it into a Date with
  // the runtime's Date parser, which refuses some date-times the format takes (V8:
  // `2024-05-01T10:00:00+02`, a leap second), so isDate still runs on the converted value.
  ['isDate', format('date-time')],
  ['isDateString', format('date-time')],
  ['isIso8601', format('date-time')],
  ['isEmail', format('email')],
  ['isUrl', format('uri')],
  ['isUuid', format('uuid')],
  ['min', bound('number', 'minimum')],
  ['max', bound('number', 'maximum')],
  ['isPositive', bound('number', 'exclusiveMinimum', 0)],
  ['isNegative', bound('number', 'exclusiveMaximum', 0)],
  [
    'isDivisibleBy',
    (d, [n]) => {
      // class-validator divides by parseInt(n) with `%`; ajv's multipleOf divides by n and
      // rounds (2 ** 60 passes multipleOf 3), so the keyword only informs.
      d.requireType('number');
      if (typeof n === 'number' && n > 0) d.add('multipleOf', n);
      return false;
    },
  ],
  ['minLength', (d, [min]) => (d.requireType('string'), d.bound('minLength', min) && lengthIsExact(min))],
  ['maxLength', bound('string', 'maxLength')],
  [
    'isLength',
    (d, [min, max]) => {
      d.requireType('string');
      const okMin = min === undefined || min === null || (d.bound('minLength', min) && lengthIsExact(min));
      const okMax = max === undefined || max === null || d.bound('maxLength', max);
      return okMin && okMax;
    },
  ],
  [
    'matches',
    (d, [pattern, modifiers]) => {
      d.requireType('string');
      const regex = schemaPattern(pattern, modifiers);
      if (regex === undefined) return false;
      d.add('pattern', regex.source);
      // Without the `u` flag class-validator matches UTF-16 code units, the schema code points:
      // the same only for a source that cannot tell them apart.
      return regex.unicode || sameWithUnicodeFlag(regex.source);
    },
  ],
  ['arrayMinSize', bound('array', 'minItems')],
  ['arrayMaxSize', bound('array', 'maxItems')],
  ['arrayNotEmpty', bound('array', 'minItems', 1)],
  // An ArrayUnique selector lives in a closure the metadata does not show, so class-validator
  // keeps the final say; the schema still tells the model the items must differ.
  ['arrayUnique', (d) => (d.requireType('array'), d.add('uniqueItems', true), false)],
]);

/** Built-in validators that only pass strings: the schema can at least say "string". */
const STRING_ONLY = new Set([
  'contains', 'notContains', 'isAlpha', 'isAlphanumeric', 'isAscii', 'isBase32', 'isBase58', 'isBase64',
  'isBIC', 'isBooleanString', 'isBtcAddress', 'isByteLength', 'isCreditCard', 'isCurrency', 'isDataURI',
  'isDecimal', 'isEAN', 'isEthereumAddress', 'isFqdn', 'IsFirebasePushId', 'isFullWidth', 'isHalfWidth',
  'isHash', 'isHexColor', 'isHexadecimal', 'isHSL', 'isIBAN', 'isIdentityCard', 'isIp', 'isIsbn', 'isIsin',
  'isISO31661Alpha2', 'isISO31661Alpha3', 'isISO31661Numeric', 'isISO4217CurrencyCode', 'isISO6391', 'isISRC',
  'isISSN', 'isJson', 'isJwt', 'isLatLong', 'isLocale', 'isLowercase', 'isMacAddress', 'isMagnetURI', 'isMilitaryTime',
  'isMimeType', 'isMobilePhone', 'isMongoId', 'isMultibyte', 'isNumberString', 'isOctal', 'isPassportNumber',
  'isPhoneNumber', 'isPort', 'isPostalCode', 'isRFC3339', 'isRgbColor', 'isSemVer', 'isStrongPassword',
  'isSurrogatePair', 'isTaxId', 'isTimeZone', 'isUppercase', 'isVariableWidth',
]);

/**
 * Applies a built-in constraint by name. Returns false when class-validator must still check
 * something (an unknown or only partly expressible constraint).
 */
export function applyConstraint(
  draft: SchemaDraft,
  name: string | undefined,
  constraints: readonly unknown[] | undefined,
): boolean {
  const translate = name === undefined ? undefined : TRANSLATIONS.get(name);
  if (translate) return translate(draft, constraints ?? []);
  if (name !== undefined && STRING_ONLY.has(name)) draft.typeHint = 'string';
  return false;
}

/** The values of a TypeScript enum object (numeric enums also map value → key; skip those). */
function enumValues(entity: unknown): unknown[] {
  if (entity === null || typeof entity !== 'object') return [];
  return Object.entries(entity)
    .filter(([key]) => Number.isNaN(Number.parseInt(key, 10)))
    .map(([, value]) => value);
}

function isJsonPrimitive(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || typeof value === 'string' || typeof value === 'boolean';
}

/**
 * The JSON Schema `pattern` of a `@Matches` regex, and whether the regex has the `u` flag; or
 * undefined when there is none: schema patterns are compiled with only the `u` flag, so `i`,
 * `m`, `s`, `y` and `v` change what matches (`g` and `d` do not), and a source that is invalid
 * in unicode mode cannot go.
 */
function schemaPattern(pattern: unknown, modifiers: unknown): { source: string; unicode: boolean } | undefined {
  let source: string;
  let flags: string;
  if (pattern instanceof RegExp) [source, flags] = [pattern.source, pattern.flags];
  else if (typeof pattern === 'string') [source, flags] = [pattern, typeof modifiers === 'string' ? modifiers : ''];
  else return undefined;
  if (/[^gud]/.test(flags)) return undefined;
  try {
    new RegExp(source, 'u');
  } catch {
    return undefined;
  }
  return { source, unicode: flags.includes('u') };
}

/**
 * Whether `minLength` says what class-validator's length check (validator.js isLength) says
 * about a minimum. isLength counts code points, less each variation selector (U+FE0E, U+FE0F)
 * that follows another character, so "a\uFE0F" is one long for it and two for the schema.
 * Each uncounted selector follows a counted character, so any non-empty string is at least
 * one long for both: a minimum up to 1 is exact, a larger one needs class-validator.
 */
function lengthIsExact(min: unknown): boolean {
  return typeof min === 'number' && min <= 1;
}
