import { describe, expect, it } from 'vitest';
import { LLM_TOOL_NAME_PATTERN, LlmToolNames } from './llm-tool-names';

describe('LlmToolNames', () => {
  it('names a tool participant__tool and maps the name back exactly', () => {
    const names = new LlmToolNames();
    expect(names.nameFor({ participantId: 'files', tool: 'write_file' })).toBe('files__write_file');
    expect(names.resolve('files__write_file')).toEqual({ participantId: 'files', tool: 'write_file' });
    expect(names.resolve('files__unknown')).toBeUndefined();
  });

  it('makes any id API-safe, keeps names stable, and never gives two tools one name', () => {
    const names = new LlmToolNames();
    const dotted = names.nameFor({ participantId: 'fs.v2', tool: 'read/file' });
    const underscored = names.nameFor({ participantId: 'fs_v2', tool: 'read_file' });
    expect(dotted).toBe('fs_v2__read_file');
    expect(underscored).toBe('fs_v2__read_file_2');
    expect(names.nameFor({ participantId: 'fs.v2', tool: 'read/file' })).toBe(dotted);
    expect(names.resolve(dotted)).toEqual({ participantId: 'fs.v2', tool: 'read/file' });
    expect(names.resolve(underscored)).toEqual({ participantId: 'fs_v2', tool: 'read_file' });
  });

  it('keeps long and exotic names within the API’s pattern, collisions included', () => {
    const names = new LlmToolNames();
    const long = 'x'.repeat(80);
    const first = names.nameFor({ participantId: 'agent-with-a-long-name', tool: long });
    const second = names.nameFor({ participantId: 'agent-with-a-long-name', tool: `${long}y` });
    const empty = names.nameFor({ participantId: 'é', tool: '' });
    for (const name of [first, second, empty]) expect(name).toMatch(LLM_TOOL_NAME_PATTERN);
    expect(first).not.toBe(second);
    expect(names.resolve(second)?.tool).toBe(`${long}y`);
  });
});
