import { Skill } from '@typemcp/core';
import type { SkillContent } from '@typemcp/core';

/**
 * skills/pdf-processing as code, for the entries that serve no folder (Bun, Deno and Workers
 * bundles run without the files beside them): the same frontmatter, instructions and
 * subdirectory file.
 */
export class ConformanceSkill {
  @Skill({ path: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', frontmatter: { license: 'Apache-2.0', metadata: { version: '2.1.0' } } })
  pdfProcessing(): SkillContent {
    return {
      instructions: '# PDF processing\n\nFill forms as [references/FORMS.md](references/FORMS.md) describes.\n',
      files: { 'references/FORMS.md': "# Forms\n\nList the form's fields, map each to the user's data, and write a filled copy beside the original.\n" },
    };
  }
}
