import type { AccessPolicy } from '../access';
import type { Registry } from '../runtime/Registry';
import type { PromptItem } from './PromptItem';
import type { ResourceItem, TemplateItem } from './ResourceItem';
import type { ToolItem } from './ToolItem';

/**
 * The registries of what a server serves and the access rules over them: what the features
 * list and serve, a mount mirrors, a remote catalog fills, and the server's catalog holds.
 */
export interface Catalog {
  readonly tools: Registry<ToolItem>;
  readonly prompts: Registry<PromptItem>;
  readonly resources: Registry<ResourceItem>;
  readonly templates: Registry<TemplateItem>;
  /** Who may use and see which target (`@Scopes`, `@Roles`, `@Guard`, `@Public`). */
  readonly access: AccessPolicy;
}
