export { SkillCatalog, SKILL_FILE, fileUri, skillUris } from './SkillCatalog';
export type { FolderSkill, RegisteredSkill, SkillFiles } from './SkillCatalog';
export type { SkillFolderOptions } from './folder';
export { buildSkill } from './fromMethod';
export { digestOf, fileContents } from './files';
export type { SkillFile } from './files';
export { canonicalSkillUri, encodeSegment } from './names';
