import { DefinitionError } from '../../../src/errors';
import { UriTemplate } from '../../../src/uri';
import type { UriVariables } from '../../../src/uri';

/** The variables of RFC 6570 §3.2 (the associative `keys` are not supported). */
const RFC_VARIABLES = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: [],
  undef: undefined,
};

const expand = (template: string) => new UriTemplate(template).expand(RFC_VARIABLES);

describe('UriTemplate parsing', () => {
  it.each([
    ['file:///{path', 'unclosed "{" at position 8'],
    ['a}b', '"}" without a matching "{" at position 1'],
    ['x{}', 'empty expression "{}" at position 1'],
    ['{a b}', 'invalid variable name "a b" at position 1'],
    ['{x,}', 'missing variable name at position 3'],
    ['{+}', 'missing variable name at position 2'],
    ['{a{b}', 'invalid variable name "a{b" at position 1'],
    ['{$x}', 'unknown operator "$" at position 1'],
    ['{=x}', 'operator "=" is reserved by RFC 6570 and not supported at position 1'],
    ['{,x}', 'operator "," is reserved'],
    ['{!x}', 'operator "!" is reserved'],
    ['{@x}', 'operator "@" is reserved'],
    ['{|x}', 'operator "|" is reserved'],
    ['{x:0}', 'invalid modifier ":0" (use "*" or ":1" to ":9999") at position 2'],
    ['{x:10000}', 'invalid modifier ":10000"'],
    ['{x:3*}', 'invalid modifier ":3*"'],
    ['{a.}', 'invalid variable name "a."'],
  ])('rejects %s', (template, problem) => {
    let error: unknown;
    try {
      new UriTemplate(template);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DefinitionError);
    expect(error).toMatchObject({ code: 'INVALID_OPTION' });
    expect((error as Error).message).toContain(`Invalid URI template "${template}"`);
    expect((error as Error).message).toContain(problem);
  });

  it('accepts the RFC variable name forms', () => {
    expect(new UriTemplate('{a.b,c_1,%41x}').variableNames).toEqual(['a.b', 'c_1', '%41x']);
  });

  it('lists variable names once, in order of appearance', () => {
    const template = new UriTemplate('repo://{owner}/{repo}/blob/{+path}{?ref,owner}{#path}');
    expect(template.variableNames).toEqual(['owner', 'repo', 'path', 'ref']);
    expect(Object.isFrozen(template.variableNames)).toBe(true);
    expect(template.template).toBe('repo://{owner}/{repo}/blob/{+path}{?ref,owner}{#path}');
  });

  it.each([
    ['file:///{path}', true],
    ['api://items{?page,limit}', true],
    ['x{}', true],
    ['file:///etc/hosts', false],
    ['a{b', false],
  ])('isTemplate(%s) is %s', (uri, expected) => {
    expect(UriTemplate.isTemplate(uri)).toBe(expected);
  });
});

describe('UriTemplate expansion (RFC 6570 §1.2 and §3.2)', () => {
  it.each([
    // §3.2.1 variable expansion
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{;count}', ';count=one,two,three'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?count}', '?count=one,two,three'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&count*}', '&count=one&count=two&count=three'],
    // §3.2.2 simple string expansion
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['{x,y}', '1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    // §3.2.3 reserved expansion
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    // §3.2.4 fragment expansion
    ['{#var}', '#value'],
    ['{#hello}', '#Hello%20World!'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    // §3.2.5 label expansion
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['www{.dom*}', 'www.example.com'],
    ['X{.var}', 'X.value'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    ['X{.var:3}', 'X.val'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    // §3.2.6 path segment expansion
    ['{/who}', '/fred'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var}', '/value'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    // §3.2.7 path-style parameter expansion
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    // §3.2.8 form-style query expansion
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?x,y,undef}', '?x=1024&y=768'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    // §3.2.9 form-style query continuation
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
    // empty lists are undefined
    ['X{.empty_keys}{?empty_keys*}', 'X'],
  ])('%s → %s', (template, expected) => {
    expect(expand(template)).toBe(expected);
  });

  it('encodes UTF-8, literals and lone surrogates; keeps pct-triplets only for + and #', () => {
    const template = new UriTemplate('a b/{x}{+x}{#x}');
    expect(template.expand({ x: 'é%41%' })).toBe('a%20b/%C3%A9%2541%25%C3%A9%41%25#%C3%A9%41%25');
    expect(new UriTemplate('{x}').expand({ x: '\uD800' })).toBe('%EF%BF%BD');
    expect(new UriTemplate('{x:2}').expand({ x: '😀😀😀' })).toBe('%F0%9F%98%80%F0%9F%98%80');
  });

  it('stringifies numbers and booleans and skips null', () => {
    const template = new UriTemplate('{?page,all,none}');
    expect(template.expand({ page: 2, all: false, none: null as unknown as undefined })).toBe('?page=2&all=false');
  });

  it('ignores inherited properties and rejects associative values', () => {
    expect(new UriTemplate('{constructor}').expand({})).toBe('');
    expect(() => new UriTemplate('{keys}').expand({ keys: { a: '1' } as unknown as string })).toThrow(
      'URI template variable "keys" is an object; associative values are not supported.',
    );
  });
});

describe('UriTemplate matching', () => {
  const match = (template: string, uri: string) => new UriTemplate(template).match(uri);

  it.each<[string, string, UriVariables]>([
    // level 1
    ['file:///{path}', 'file:///hosts', { path: 'hosts' }],
    ['index://docs/{id}', 'index://docs/Hello%20World%21', { id: 'Hello World!' }],
    ['index://docs/{id}', 'index://docs/', { id: '' }],
    ['index://docs/{id}', 'index://docs/a%2Fb', { id: 'a/b' }],
    ['users/{id}/posts/{post}', 'users/42/posts/7', { id: '42', post: '7' }],
    ['{name}.{ext}', 'archive.tar.gz', { name: 'archive.tar', ext: 'gz' }],
    ['v{major}.{minor}.{patch}', 'v1.2.3', { major: '1', minor: '2', patch: '3' }],
    // level 2: reserved and fragment
    ['file:///{+path}', 'file:///a/b/c.txt', { path: 'a/b/c.txt' }],
    ['repo://{owner}/{repo}/blob/{+path}', 'repo://me/site/blob/src/a%20b.ts', { owner: 'me', repo: 'site', path: 'src/a b.ts' }],
    ['repo://{owner}/{repo}/blob/{+path}{?ref}', 'repo://me/site/blob/a/b.ts?ref=main', { owner: 'me', repo: 'site', path: 'a/b.ts', ref: 'main' }],
    ['docs://{+path}/raw', 'docs://a/b/raw', { path: 'a/b' }],
    ['{+dir}/{file}', 'a/b/c.txt', { dir: 'a/b', file: 'c.txt' }],
    ['page{#section}', 'page#intro/part-2', { section: 'intro/part-2' }],
    ['page{#section}', 'page', {}],
    ['page{#section}', 'page#', { section: '' }],
    // level 3: several variables per expression
    ['map?{x,y}', 'map?1024,768', { x: '1024', y: '768' }],
    ['map?{x,y}', 'map?1024', { x: '1024' }],
    ['{x,hello,y}', '1024,Hello%20World%21,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['{+path,x}/here', '/foo/bar,1024/here', { path: '/foo/bar', x: '1024' }],
    ['{#path,x}/here', '#/foo/bar,1024/here', { path: '/foo/bar', x: '1024' }],
    ['X{.who,var}', 'X.fred.value', { who: 'fred', var: 'value' }],
    ['X{.var}', 'X.b.c', { var: 'b.c' }],
    ['file{.ext}', 'file', {}],
    ['{name}{.ext}', 'report.2024.pdf', { name: 'report.2024', ext: 'pdf' }],
    ['{/who,var}', '/fred/value', { who: 'fred', var: 'value' }],
    ['{/who,var}', '/fred', { who: 'fred' }],
    ['{/var,x}/here', '/value/1024/here', { var: 'value', x: '1024' }],
    ['{;x,y,empty}', ';x=1024;y=768;empty', { x: '1024', y: '768', empty: '' }],
    ['{;x,y}', ';y=768', { y: '768' }],
    ['api://items{?page,limit}', 'api://items', {}],
    ['api://items{?page,limit}', 'api://items?page=1', { page: '1' }],
    ['api://items{?page,limit}', 'api://items?limit=10', { limit: '10' }],
    ['api://items{?page,limit}', 'api://items?page=1&limit=10', { page: '1', limit: '10' }],
    ['api://items{?page,limit}', 'api://items?page=', { page: '' }],
    ['api://items{?q}', 'api://items?q=a%26b%3Dc', { q: 'a&b=c' }],
    ['?fixed=yes{&x,y}', '?fixed=yes&y=768', { y: '768' }],
    ['{&x,y}', '&x=1024&y=768', { x: '1024', y: '768' }],
    // lists and level 4 modifiers
    ['{list}', 'red,green,blue', { list: ['red', 'green', 'blue'] }],
    ['{+list}', 'red,green,blue', { list: 'red,green,blue' }],
    ['{list*}', 'red', { list: ['red'] }],
    ['{/list*}', '/red/green/blue', { list: ['red', 'green', 'blue'] }],
    ['X{.list*}', 'X.red.green.blue', { list: ['red', 'green', 'blue'] }],
    ['{/list*,x}', '/red/1024', { list: ['red'], x: '1024' }],
    ['{;list*}', ';list=red;list=green', { list: ['red', 'green'] }],
    ['{?list*}', '?list=red&list=green&list=blue', { list: ['red', 'green', 'blue'] }],
    ['{?list}', '?list=red,green', { list: ['red', 'green'] }],
    ['{var:3}', 'val', { var: 'val' }],
    ['{id}/{id}', 'a/a', { id: 'a' }],
    ['{__proto__}', 'x', JSON.parse('{"__proto__":"x"}')],
  ])('%s matches %s', (template, uri, expected) => {
    const result = match(template, uri);
    expect(result).toEqual(expected);
    if (result) expect(Object.keys(result).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each([
    ['file:///{path}', 'file:///a/b', 'simple variables do not cross "/"'],
    ['file:///{path}', 'file:///a?b', 'nor "?"'],
    ['file:///{path}', 'file:///a#b', 'nor "#"'],
    ['file:///{path}', 'file:///a%zz', 'malformed escape'],
    ['file:///{path}', 'file:///%E0%A4%A', 'truncated escape'],
    ['file:///{path}', 'file:///%C3', 'invalid UTF-8'],
    ['file:///{+path}', 'file:///a%', 'malformed escape in a reserved value'],
    ['index://docs/{id}', 'index://doc/1', 'wrong literal'],
    ['index://docs/{id}', 'INDEX://docs/1', 'literals are case-sensitive'],
    ['users/{id}', 'users/1/posts', 'extra segment'],
    ['users/{id}/posts', 'users/1', 'missing literal'],
    ['{/who,var}', '/a/b/c', 'more segments than variables'],
    ['{x,y}', '1,2,3', 'more values than variables'],
    ['api://items{?page,limit}', 'api://items?limit=10&page=1', 'parameters out of template order'],
    ['api://items{?page,limit}', 'api://items?sort=asc', 'unknown parameter'],
    ['api://items{?page}', 'api://items?page', 'form parameters need "="'],
    ['api://items{?page}', 'api://items?pages=1', 'parameter name prefix'],
    ['{var:3}', 'value', 'longer than the prefix'],
    ['{id}/{id}', 'a/b', 'a repeated variable with two values'],
    ['{x}', 'a b', 'a character no expansion produces'],
    ['repo://{owner}/{repo}/blob/{+path}', 'repo://me/site/blob/src/a b.ts', 'nor in a reserved value'],
  ])('%s does not match %s (%s)', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });

  it('yields "/" for a simple variable only from %2F, decoding once', () => {
    const template = new UriTemplate('file:///{name}');
    expect(template.match('file:///..%2F..%2Fetc%2Fpasswd')).toEqual({ name: '../../etc/passwd' });
    expect(template.match('file:///%252F')).toEqual({ name: '%2F' });
  });

  it.each<[string, Record<string, string>]>([
    ['file:///{path}', { path: 'notes 2024 é.txt' }],
    ['index://docs/{id}', { id: 'a-b_c~d.e' }],
    ['repo://{owner}/{repo}/blob/{+path}', { owner: 'me', repo: 'my repo', path: 'src/index.ts' }],
    ['api://items{?page,limit}', { page: '3', limit: '50' }],
    ['api://items{?page,limit}', { limit: '' }],
    ['x{/a,b}{;c}{&d}', { a: 'α', b: 'b', c: 'c c', d: 'd' }],
    ['{name}.{ext}', { name: 'archive.tar', ext: 'gz' }],
    ['{+dir}/{file}', { dir: 'a/b', file: 'c' }],
    ['page{#section}', { section: 'Über uns' }],
    ['{x,y}', { x: 'Hello World!', y: '' }],
  ])('round-trips %s', (template, variables) => {
    const t = new UriTemplate(template);
    expect(t.match(t.expand(variables))).toEqual(variables);
  });

  it.each([
    ['{a}.{b}.{c}', `x.${'.'.repeat(10_000)}!`],
    ['{a}.{b}.{c}/x', `x.${'.'.repeat(10_000)}/y`],
    ['{+a}/{+b}/{+c}', `${'/'.repeat(10_000)} `],
    ['{a}{b}{c}', `${'a'.repeat(10_000)}!`],
    ['{name}{.ext}', `${'.a'.repeat(5_000)}!`],
    ['x{/a,b,c}{.ext}', `x${'/a.'.repeat(3_334)}!`],
    ['repo://{owner}/{repo}/blob/{+path}{?ref}', `repo://a/b/blob/${'/?'.repeat(5_000)}`],
    ['api://items{?a,b,c,d}', `api://items?${'a=&'.repeat(3_334)}`],
    ['{/list*}{;list*}', `${'/'.repeat(5_000)}${';list='.repeat(1_000)}!`],
  ])('returns on adversarial input for %s', (template, uri) => {
    expect(uri.length).toBeGreaterThanOrEqual(10_000);
    expect(new UriTemplate(template).match(uri)).toBeUndefined();
  });
});
