import { injectable } from 'tsyringe';
import { Skill } from '@typemcp/core';
import type { SkillContent } from '@typemcp/core';
import { OnCallRota } from './onCallRota';

/** Skills whose files are written by code: one made once, one made for every read. */
@injectable()
export class ReleaseSkills {
  constructor(private readonly rota: OnCallRota) {}

  @Skill({
    path: 'release-checklist',
    description: 'Walk through the release checklist before tagging a version. Use when the user prepares a release.',
    frontmatter: { license: 'MIT', metadata: { steps: '4' } },
  })
  releaseChecklist(): SkillContent {
    return {
      instructions: ['# Release checklist', '', 'Go through [checklist.md](checklist.md) in order and stop at the first item that fails.', ''].join('\n'),
      files: {
        'checklist.md': ['1. CI is green on `main`.', '2. CHANGELOG.md has a section for the version.', '3. `npm version <version>` bumps every package.', '4. The tag is pushed and the release notes are published.', ''].join('\n'),
      },
    };
  }

  @Skill({
    path: 'team/on-call',
    description: "Find who is on call this week and how to reach them. Use when an incident needs a human.",
    resources: 'dynamic',
  })
  onCall(): SkillContent {
    const week = this.rota.thisWeek();
    return {
      instructions: ['# On call', '', `This week (${week.start}) the on-call engineer is ${week.engineer}.`, 'Escalation steps are in [escalation.md](escalation.md).', ''].join('\n'),
      files: { 'escalation.md': `Page ${week.engineer} first; after 15 minutes without an answer, page ${week.backup}.\n` },
    };
  }
}
