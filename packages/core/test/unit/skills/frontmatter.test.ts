import { readFrontmatter, writeSkillMarkdown } from '../../../src/skills/frontmatter';

describe('SKILL.md frontmatter', () => {
  it('reads YAML 1.2 core types, a byte order mark and CRLF line ends', () => {
    const text = '\uFEFF---\r\nname: a\r\ndescription: "Does: things"\r\nversion: 1.0\r\nyes: yes\r\nwhen: 2026-01-02\r\nnothing: ~\r\n---\r\nbody';
    expect(readFrontmatter(text, 'a', 'f')).toEqual({ name: 'a', description: 'Does: things', version: 1, yes: 'yes', when: '2026-01-02', nothing: null });
  });

  it('refuses anchors and aliases, which hosts do not read', () => {
    expect(() => readFrontmatter('---\nname: a\ndescription: &d x\nother: *d\n---\n', 'a', 'f')).toThrow(/f has malformed YAML frontmatter/);
  });

  it('refuses a "__proto__" field', () => {
    expect(() => readFrontmatter('---\nname: a\ndescription: x\n__proto__: {}\n---\n', 'a', 'f')).toThrow(/"__proto__"/);
  });

  it('counts a description in characters, not UTF-16 units', () => {
    expect(readFrontmatter(`---\nname: a\ndescription: ${'😀'.repeat(1024)}\n---\n`, 'a', 'f').description).toHaveLength(2048);
  });

  it('writes frontmatter that reads back to the same object', () => {
    const frontmatter = { name: 'a', description: 'Colons: and "quotes", # hashes', license: 'MIT', 'allowed-tools': 'Bash(git:*) Read', metadata: { version: '1.0', empty: '' }, count: 3, flag: false };
    const text = writeSkillMarkdown(frontmatter, '# Body\n');
    expect(text.endsWith('---\n\n# Body\n')).toBe(true);
    expect(readFrontmatter(text, 'a', 'f')).toEqual(frontmatter);
  });
});
