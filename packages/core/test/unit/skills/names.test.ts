import { canonicalSkillUri, checkSkillPath, nameProblem } from '../../../src/skills/names';

describe('skill names and paths', () => {
  it('keeps the Agent Skills naming rules', () => {
    for (const name of ['a', 'git-workflow', 'pdf2text', 'x'.repeat(64)]) expect(nameProblem(name)).toBeUndefined();
    for (const name of ['', 'A', 'git_workflow', '-a', 'a-', 'a--b', 'x'.repeat(65), 'ü', 'a.b']) expect(nameProblem(name)).toBeDefined();
    expect(nameProblem(7)).toBe('needs a "name"');
  });

  it('checks skill paths: segments, the name last, an authority first', () => {
    expect(checkSkillPath('acme/billing/refunds', 'here')).toEqual(['acme', 'billing', 'refunds']);
    expect(() => checkSkillPath('acme//refunds', 'here')).toThrow(/here: the skill path "acme\/\/refunds" needs one or more non-empty/);
    expect(() => checkSkillPath('../refunds', 'here')).toThrow(/none "\." or "\.\."/);
    expect(() => checkSkillPath('acme/Refunds', 'here')).toThrow(/the last segment of the skill path is the skill's name and "name" "Refunds" breaks the naming rules/);
    expect(() => checkSkillPath('a b/refunds', 'here')).toThrow(/becomes the URI authority/);
  });

  it('spells a client URI as the server does, or refuses it', () => {
    expect(canonicalSkillUri('skill://pdf-processing/templates/eu invoice.md')).toBe('skill://pdf-processing/templates/eu%20invoice.md');
    expect(canonicalSkillUri('skill://pdf-processing/templates/eu%20invoice.md')).toBe('skill://pdf-processing/templates/eu%20invoice.md');
    expect(canonicalSkillUri('skill://a/%53KILL.md')).toBe('skill://a/SKILL.md');
    for (const uri of ['skill://a/../b', 'skill://a/%2E%2E/b', 'skill://a/b%2Fc', 'skill://a//b', 'skill://a/b?x=1', 'skill://a/b#top', 'skill://a\\b', 'skill://a/%zz', 'file:///a', 'skill:///etc/passwd']) {
      expect({ uri, canonical: canonicalSkillUri(uri) }).toEqual({ uri, canonical: undefined });
    }
  });
});
