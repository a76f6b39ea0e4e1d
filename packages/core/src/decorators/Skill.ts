import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor, SkillOptions } from '../metadata';

/**
 * Declares a provider method as the source of an Agent Skill served over the Skills extension.
 * The method returns the `SKILL.md` body, or `{ instructions, files }`; the frontmatter comes
 * from the options (`name` is the last segment of `path`). Access decorators apply to it as to
 * a tool.
 */
export function Skill(options: SkillOptions): MethodDecorator {
  const copy: SkillOptions = { ...options };
  return legacyOnly<MethodDecorator>('Skill', (prototype, methodName) => {
    metadataStore.add({ kind: 'skill', target: prototype.constructor as Constructor, methodName: String(methodName), options: copy });
  });
}
