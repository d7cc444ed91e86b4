import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCH_SECTION, launchedOf } from '../launcher/launch-config';
import { configBaseDir, IMPLICIT_SUPERVISOR_ID, loadSpaceConfig, parseSpaceConfig, SpaceConfigError, SUPERVISOR_CAPABILITIES } from './space-config';

const dir = mkdtempSync(join(tmpdir(), 'mew-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const IMPLICIT_SUPERVISOR = { id: IMPLICIT_SUPERVISOR_ID, capabilities: SUPERVISOR_CAPABILITIES, routing: 'broadcast', description: expect.any(String) };

describe('space config', () => {
  it('loads the space.yaml layout, normalising MCPx string capabilities and applying defaults', () => {
    const config = loadSpaceConfig(
      file(
        'space.yaml',
        `space: {id: team, name: Team}
participants:
  lead:
    tokens: ["lead-token-0123456789"]
    capabilities: ["mcp/request:tools/*", {kind: chat}]
  guest: {tokens: ["guest-token-0123456789"]}
defaults:
  capabilities: [chat]
limits: {max_frame_bytes: 2048}
`,
      ),
    );
    expect(config).toMatchObject({ id: 'team', name: 'Team', limits: { maxFrameBytes: 2048 } });
    expect(config.participants).toEqual([
      {
        id: 'lead',
        tokens: ['lead-token-0123456789'],
        capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/*' } }, { kind: 'chat' }],
        routing: 'broadcast',
      },
      { id: 'guest', tokens: ['guest-token-0123456789'], capabilities: [{ kind: 'chat' }], routing: 'broadcast' },
      IMPLICIT_SUPERVISOR,
    ]);
  });

  it('loads JSON by extension', () => {
    const config = loadSpaceConfig(file('space.json', JSON.stringify({ space: { id: 'j' }, participants: { a: null } })));
    expect(config.participants).toEqual([{ id: 'a', tokens: undefined, capabilities: [], routing: 'broadcast' }, IMPLICIT_SUPERVISOR]);
  });

  it('gives every space a rule supervisor unless the config turns it off', () => {
    // No automation section (or no supervisor named): the gateway adds one, with only what applying rules takes.
    const implicit = parseSpaceConfig({ space: { id: 's' }, participants: { a: null } });
    expect(implicit.supervisor).toBe('rules');
    expect(implicit.participants.find((p) => p.id === 'rules')).toEqual({
      id: 'rules',
      capabilities: [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }],
      routing: 'broadcast',
      description: expect.stringContaining('approval rules'),
    });
    const timeouts = { dangerous: { after_seconds: 60, action: 'escalate' } };
    for (const automation of [{ timeouts }, { supervisor: true, timeouts }]) {
      expect(parseSpaceConfig({ space: { id: 's' }, participants: {}, automation })).toMatchObject({
        supervisor: 'rules',
        timeouts,
        participants: [IMPLICIT_SUPERVISOR],
      });
    }
    // A configured participant as the supervisor: nothing is added.
    const named = parseSpaceConfig({ space: { id: 's' }, participants: { robot: { capabilities: [{ kind: '*' }] } }, automation: { supervisor: 'robot' } });
    expect([named.supervisor, named.participants.map((p) => p.id)]).toEqual(['robot', ['robot']]);
    // Turned off: no supervisor, no participant.
    const off = parseSpaceConfig({ space: { id: 's' }, participants: { a: null }, automation: { supervisor: false } });
    expect([off.supervisor, off.participants.map((p) => p.id)]).toEqual([undefined, ['a']]);
  });

  it.each([
    ['a missing space id', { participants: {} }, /space/],
    ['a participant id with a slash', { space: { id: 's' }, participants: { 'a/b': null } }, /participants\.a\/b.*invalid participant id/],
    ['an empty token', { space: { id: 's' }, participants: { a: { tokens: [''] } } }, /participants\.a\.tokens\.0: a token cannot be empty/],
    ['an unknown key', { space: { id: 's' }, participants: {}, extra: 1 }, /extra|Unrecognized/i],
    ['an invalid regex capability', { space: { id: 's' }, participants: { a: { capabilities: [{ kind: '/[/' }] } } }, /participants\.a\.capabilities\.0/],
    ['an unknown limit', { space: { id: 's' }, participants: {}, limits: { max_frames: 10 } }, /limits\.max_frames: unknown limit/],
    ['a limit of the wrong type', { space: { id: 's' }, participants: {}, limits: { rate_per_second: 'fast' } }, /limits\.rate_per_second: .*number/],
    [
      'a token shared by two participants',
      { space: { id: 's' }, participants: { a: { tokens: ['same-token-0123456789'] }, b: { tokens: ['same-token-0123456789'] } } },
      /participants\.b\.tokens\.0: token is used by another participant/,
    ],
    [
      'a timeout with an unknown action',
      { space: { id: 's' }, participants: { r: null }, automation: { supervisor: 'r', timeouts: { dangerous: { after_seconds: 60, action: 'explode' } } } },
      /automation\.timeouts\.dangerous\.action/,
    ],
    [
      'an MCPx response capability with a method, which could never match',
      { space: { id: 's' }, participants: { a: { capabilities: ['chat', 'mcp/response:tools/call'] } } },
      /participants\.a\.capabilities\.1: MCPx capability "mcp\/response:tools\/call" would never match: .*write "mcp\/response"/,
    ],
    [
      'a supervisor that is no participant',
      { space: { id: 's' }, participants: {}, automation: { supervisor: 'nobody' } },
      /automation\.supervisor: "nobody" is not a participant/,
    ],
    [
      'timeouts with the supervisor turned off',
      { space: { id: 's' }, participants: {}, automation: { supervisor: false, timeouts: { default: { after_seconds: 60, action: 'reject' } } } },
      /automation\.timeouts: timeouts are applied by the rule supervisor/,
    ],
    [
      'a participant with the implicit supervisor’s id that is not named the supervisor',
      { space: { id: 's' }, participants: { rules: null } },
      /participants\.rules: "rules" is the id of the rule supervisor the gateway adds: name it the supervisor \(automation\.supervisor: rules\), or turn the supervisor off/,
    ],
  ])('names the file, the path and the problem for %s', (_name, raw, message) => {
    expect(() => parseSpaceConfig(raw, 'my-space.yaml')).toThrow(SpaceConfigError);
    expect(() => parseSpaceConfig(raw, 'my-space.yaml')).toThrow(message);
    expect(() => parseSpaceConfig(raw, 'my-space.yaml')).toThrow(/^my-space\.yaml: /);
  });

  it('reports unreadable files and YAML syntax errors with the file name', () => {
    expect(() => loadSpaceConfig(join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: \(root\): cannot read/);
    expect(() => loadSpaceConfig(file('bad.yaml', 'space: [unclosed'))).toThrow(/bad\.yaml: \(root\): not valid YAML/);
  });
});

describe("the reference implementation's configs", () => {
  it('load with its space keys: default_participant signs in, ui_theme and per-participant UI fields are noted as ignored', () => {
    const config = parseSpaceConfig({
      space: { id: 'ref', name: 'ref', description: 'rendered by mew init', default_participant: 'human', ui_theme: 'dark' },
      participants: { human: { default_to: { chat: ['mew'] }, capabilities: [{ kind: '*' }] }, mew: { type: 'local', capabilities: [{ kind: 'chat' }] } },
    });
    expect(config.signInAs).toBe('human');
    expect(config.ignored).toEqual(['space.ui_theme', 'participants.human.default_to', 'participants.mew.type']);
    expect(() => parseSpaceConfig({ space: { id: 'ref', default_participant: 'nobody' }, participants: { a: null } })).toThrow(
      /space\.default_participant: "nobody" is not a participant/,
    );
  });

  it('resolves relative paths from the project folder for a config in .mew/ (its layout), else from the file’s folder', () => {
    expect(configBaseDir('/srv/project/.mew/space.yaml')).toBe('/srv/project');
    expect(configBaseDir('/srv/project/spaces/space.yaml')).toBe('/srv/project/spaces');
  });
});

// A config in the style `mew init` renders (quoted scalars, comments, a template variable filled with a multi-line
// prompt whose lines start at column 0 inside a double-quoted scalar): strict YAML refuses it, js-yaml reads it.
const RENDERED_STYLE = `space:
  id: "minutes"
  name: "minutes"
  ui_theme: "neon-pulse"

participants:
  human:
    # No tokens field - generated at runtime
    default_to:
      chat: ["scribe"]
    capabilities:
      - kind: "*"  # everything

  scribe:
    command: "node"
    args: ["./.mew/agents/scribe.cjs"]
    auto_start: true
    env:
      MEW_TOKEN: "\${TOKEN}"
      SCRIBE_PROMPT: "You keep the minutes.

Steps:
1. LISTEN: follow the discussion
2. WRITE: one file per meeting

Always:
- Name who said what"
    capabilities:
      - kind: "chat"
      - kind: "participant/status"
`;

describe('YAML as lenient as the reference implementation’s', () => {
  const reading = { sections: [LAUNCH_SECTION], env: {} };

  it('reads what only js-yaml takes, the way js-yaml does, and says it read the file leniently', () => {
    const config = loadSpaceConfig(file('rendered.yaml', RENDERED_STYLE), reading);
    expect(config.readLeniently).toMatch(/^Missing closing "quote at line \d+, column 1$/);
    expect(config.ignored).toEqual(['space.ui_theme', 'participants.human.default_to']);
    const scribe = config.participants.find((p) => p.id === 'scribe')!;
    expect(scribe.capabilities).toEqual([{ kind: 'chat' }, { kind: 'participant/status' }]);
    expect(launchedOf(scribe).launch?.env.SCRIBE_PROMPT).toBe(
      'You keep the minutes.\nSteps: 1. LISTEN: follow the discussion 2. WRITE: one file per meeting\nAlways: - Name who said what',
    );
  });

  it('reads strict YAML strictly, with no note', () => {
    const config = loadSpaceConfig(file('strict.yaml', RENDERED_STYLE.replace(/SCRIBE_PROMPT: "[^"]*"/, 'SCRIBE_PROMPT: "one line"')), reading);
    expect(config.readLeniently).toBeUndefined();
  });

  it('still refuses what neither parser reads, with the file and the strict parser’s line and column', () => {
    expect(() => loadSpaceConfig(file('broken.yaml', 'space:\n  id: "x\nparticipants: [unclosed'))).toThrow(
      /^.*broken\.yaml: \(root\): not valid YAML: .* at line \d+, column \d+/,
    );
  });

  it('still names the file and the path of a problem in a file read leniently', () => {
    const bad = RENDERED_STYLE.replace('auto_start: true', 'auto_start: true\n    routing: "sideways"');
    expect(() => loadSpaceConfig(file('rendered-bad.yaml', bad), reading)).toThrow(/rendered-bad\.yaml: participants\.scribe\.routing: /);
  });
});
