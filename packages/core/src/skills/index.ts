export { SkillCatalog, SKILL_FILE, fileUri, skillUris } from './SkillCatalog';
export type { RegisteredSkill } from './SkillCatalog';
export type { SkillFolderOptions } from './folder';
export { buildSkill, skillFilesOf } from './fromMethod';
export { digestOf, fileContents } from './files';
export type { SkillFile } from './files';
export { canonicalSkillUri, encodeSegment } from './names';
