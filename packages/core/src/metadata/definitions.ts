/** Plain definitions the decorators hand to the metadata store. No schema work here. */

export type Constructor<T = unknown> = new (...args: any[]) => T;

/**
 * An icon of a server, tool, prompt or resource (MCP `Icon`): its URL (`https:`, `data:`) and
 * what it suits, so a client picks one.
 */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/**
 * An icon read from a file (`icons: [{ file: './icon.png' }]`), a path relative to the folder
 * the server runs from. It is sent as a `data:` URI: `typemcp build` reads it into the bundle,
 * and an unbundled server (`typemcp dev`, `node dist/main.js`) reads it when it is made.
 */
export interface IconFile {
  file: string;
  /** Default: from the extension (`.png`, `.jpg`/`.jpeg`, `.svg`, `.webp`). */
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/**
 * Hints to the client about what a tool does (MCP `ToolAnnotations`): whether it only reads,
 * destroys, can be repeated, reaches outside. Hints only: nothing enforces them.
 */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The options of `@Tool`: how clients see the tool, its input and output, and how it runs. */
export interface ToolOptions {
  /** Tool name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /** Input DTO class; defaults to the method's first parameter type. */
  input?: Constructor;
  /**
   * A hand-written JSON Schema (2020-12) for the input, instead of a DTO: listed as given
   * (`$schema`, `$defs`, … kept), checked with ajv, and passed to the method as a plain object.
   */
  inputSchema?: Record<string, unknown>;
  /** Output DTO class: the result becomes `structuredContent` and the listing gets `outputSchema`. */
  output?: Constructor;
  /** MIME type of binary (`Uint8Array`) results. */
  mimeType?: string;
  /**
   * Whether the tool may run as a task (MCP tasks; long-running tools): `'optional'` lets the
   * client choose, `'required'` refuses calls that are not tasks, `'forbidden'` (the default)
   * never runs it as one. A task whose replica stops is run again elsewhere only when
   * `annotations.idempotentHint` is true; otherwise it fails. See docs/reference/tasks.md.
   */
  task?: TaskSupport;
  /**
   * When a call that becomes a task becomes one. `'call'` (the default): at once, and the whole
   * method runs as the task. `'continueAsTask'`: the method starts within the call (what it asks
   * the client is asked there) and the call becomes a task when it calls
   * `ctx.continueAsTask()`; a method that returns first answers the call directly.
   */
  taskStart?: TaskStart;
  /**
   * MCP Apps: the interactive UI a host shows with this tool, a `ui://` resource of this server
   * declared with `@Resource({ uri, ui })`, and who may call the tool.
   */
  ui?: ToolUi;
}

/** `@Tool({ ui })`: the tool's `_meta.ui` (MCP Apps). */
export interface ToolUi {
  /** The `ui://` URI of the UI resource the host renders for this tool. */
  resourceUri: string;
  /**
   * Who may call the tool: `'model'` (the agent) and/or `'app'` (the UI, through the host).
   * Default both. An app-only tool is hidden from clients that cannot show apps.
   */
  visibility?: Array<'model' | 'app'>;
}

/** `@Resource({ ui })`: what the host applies to the UI it renders from this resource (MCP Apps `_meta.ui`). */
export interface AppResourceUi {
  /** Origins the UI may reach; everything else is blocked by the host's Content-Security-Policy. */
  csp?: AppCsp;
  /** Browser features the UI asks for (hosts may grant them). */
  permissions?: { camera?: Record<string, never>; microphone?: Record<string, never>; geolocation?: Record<string, never>; clipboardWrite?: Record<string, never> };
  /** A dedicated origin for the UI, in the form the host documents. */
  domain?: string;
  /** Whether the host should draw a border around the UI. */
  prefersBorder?: boolean;
}

/** The origins an app's UI may use, by kind (MCP Apps `_meta.ui.csp`). */
export interface AppCsp {
  /** fetch, XHR and WebSocket targets (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, …). */
  resourceDomains?: string[];
  /** Nested frames (`frame-src`). */
  frameDomains?: string[];
  /** Document base URIs (`base-uri`). */
  baseUriDomains?: string[];
  [directive: string]: unknown;
}

/** How a tool may run as a task: `execution.taskSupport` of its listing. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** When a call that becomes a task becomes one (`@Tool({ taskStart })`). */
export type TaskStart = 'call' | 'continueAsTask';

export interface ToolDefinition {
  kind: 'tool';
  target: Constructor;
  methodName: string;
  options: ToolOptions;
  /** `design:paramtypes` of the method, or undefined when the compiler emitted none. */
  paramTypes: unknown[] | undefined;
}

export interface PropertyDescription {
  target: Constructor;
  propertyName: string;
  description: string;
}

/** `@Title`: the label a client shows for a DTO property (elicitation forms). */
export interface PropertyTitle {
  target: Constructor;
  propertyName: string;
  title: string;
}

/** `@EnumTitles`: labels for the values of an enum property, keyed by value. */
export interface PropertyEnumTitles {
  target: Constructor;
  propertyName: string;
  titles: Readonly<Record<string, string>>;
}

/**
 * Hints to the client about a resource (MCP `Annotations`): who it is for, how much it matters,
 * when it last changed.
 */
export interface ResourceAnnotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

/** A concrete resource a template enumerates for `resources/list`. */
export interface ResourceListing {
  uri: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** The options of `@Resource`: the uri or template it answers, and how clients see it. */
export interface ResourceOptions {
  /** A fixed uri, or an RFC 6570 template (any `{…}` makes it one). */
  uri: string;
  /** Defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known ahead of reading. */
  size?: number;
  annotations?: ResourceAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * Templates only: the name of a method on the same class that returns the concrete
   * resources (`ResourceListing[]`) to show in `resources/list`.
   */
  list?: string;
  /**
   * Protocol 2026-07-28: the caching hint of this resource's `resources/read` results,
   * instead of the server's (`cacheHints`). `ttlMs` is how long a client may reuse a read;
   * `cacheScope: 'public'` lets shared caches keep it, `'private'` only the same caller.
   */
  cache?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
  /**
   * MCP Apps: this is the UI of an app (a `ui://` URI). Served as `text/html;profile=mcp-app`
   * with these settings as `_meta.ui` on its listing and on every content item it reads.
   */
  ui?: AppResourceUi;
}

export interface ResourceDefinition {
  kind: 'resource';
  target: Constructor;
  methodName: string;
  options: ResourceOptions;
}

/** The options of `@Prompt`: how clients see the prompt, and its arguments. */
export interface PromptOptions {
  /** Defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Arguments DTO class; defaults to the method's first parameter type. */
  args?: Constructor;
}

export interface PromptDefinition {
  kind: 'prompt';
  target: Constructor;
  methodName: string;
  options: PromptOptions;
  paramTypes: unknown[] | undefined;
}

/** Completes one argument of a prompt, or one variable of a resource template. */
export type CompletionOptions = { prompt: string; argument: string } | { resource: string; argument: string };

export interface CompletionDefinition {
  kind: 'completion';
  target: Constructor;
  methodName: string;
  options: CompletionOptions;
}

/** `@Skill`: a skill whose files a provider method makes (Skills extension). */
export interface SkillOptions {
  /**
   * The skill's path in the namespace: its name (`git-workflow`), or prefix segments then its
   * name (`acme/billing/refunds`). The name is the last segment and follows the Agent Skills
   * naming rules: lowercase letters, digits and hyphens.
   */
  path: string;
  /** What the skill does and when to use it: the `description` of its frontmatter. */
  description: string;
  /** Further frontmatter fields (`license`, `compatibility`, `metadata`, `allowed-tools`, …), sent verbatim. */
  frontmatter?: Record<string, unknown>;
  /**
   * `'dynamic'`: the method runs for every read, and listings carry `resources: "dynamic"`
   * instead of a manifest of digests. By default the method runs once, when the skill is
   * first asked for, and its files are served from then on.
   */
  resources?: 'dynamic';
}

/** What a `@Skill` method returns: the `SKILL.md` body (after the frontmatter), and the skill's other files by path. */
export interface SkillContent {
  instructions: string;
  /** Paths under the skill's root (`references/GUIDE.md`), `/`-separated; text or bytes. */
  files?: Record<string, string | Uint8Array>;
}

export interface SkillDefinition {
  kind: 'skill';
  target: Constructor;
  methodName: string;
  options: SkillOptions;
}

/** What `@UseMiddleware` declared on a class (no methodName) or one method. */
export interface MiddlewareDeclaration {
  target: Constructor;
  methodName?: string;
  middlewares: unknown[];
}

/**
 * What `@Public`, `@Scopes`, `@Roles` or `@Guard` declared on a class (no methodName) or one
 * method. The guard is typed where it is evaluated (access/).
 */
export interface AccessDeclaration {
  target: Constructor;
  methodName?: string;
  public?: boolean;
  scopes?: readonly string[];
  roles?: readonly string[];
  guard?: unknown;
}
