import type { SchemaDraft } from './SchemaDraft';

/**
 * Writes one class-validator constraint into a draft. Returns false when the schema cannot
 * say all of it, so class-validator still has to run.
 */
type Translate = (draft: SchemaDraft, constraints: readonly unknown[]) => boolean;

/** A string format; validator options change what the format accepts, so they need class-validator. */
const format =
  (name: string): Translate =>
  (d, [options]) => {
    d.requireType('string');
    d.add('format', name);
    return isEmptyOptions(options);
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
  // A Date property travels as an ISO 8601 string; class-transformer turns it into a Date.
  ['isDate', (d) => (d.requireType('string'), d.add('format', 'date-time'), true)],
  ['isDateString', format('date-time')],
  ['isIso8601', format('date-time')],
  ['isEmail', format('email')],
  ['isUrl', format('uri')],
  [
    'isUuid',
    (d, [version]) => {
      d.requireType('string');
      d.add('format', 'uuid');
      return version === undefined || version === 'all';
    },
  ],
  ['min', bound('number', 'minimum')],
  ['max', bound('number', 'maximum')],
  ['isPositive', bound('number', 'exclusiveMinimum', 0)],
  ['isNegative', bound('number', 'exclusiveMaximum', 0)],
  [
    'isDivisibleBy',
    (d, [n]) => {
      d.requireType('number');
      if (typeof n !== 'number' || !(n > 0)) return false;
      d.add('multipleOf', n);
      return true;
    },
  ],
  ['minLength', bound('string', 'minLength')],
  ['maxLength', bound('string', 'maxLength')],
  [
    'isLength',
    (d, [min, max]) => {
      d.requireType('string');
      const okMin = min === undefined || min === null || d.bound('minLength', min);
      const okMax = max === undefined || max === null || d.bound('maxLength', max);
      return okMin && okMax;
    },
  ],
  [
    'matches',
    (d, [pattern, modifiers]) => {
      d.requireType('string');
      const source = schemaPattern(pattern, modifiers);
      if (source === undefined) return false;
      d.add('pattern', source);
      return true;
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

function isEmptyOptions(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  return typeof options === 'object' && Object.keys(options).length === 0;
}

/**
 * A JSON Schema `pattern` with the same meaning as the regex, or undefined when there is none:
 * schema patterns are compiled with only the `u` flag, so `i`, `m`, `s`, `y` and `v` change
 * what matches (`g` and `d` do not), and a source that is invalid in unicode mode cannot go.
 */
function schemaPattern(pattern: unknown, modifiers: unknown): string | undefined {
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
  return source;
}
