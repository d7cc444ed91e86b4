import { describe, expect, it } from 'vitest';
import { applyEnvelopes } from './apply-envelope';
import { toolsOf } from './space-selectors';
import { createSpaceState } from './space-state';
import { env, response, T0 } from './testing';
import { toolRisk } from '../../protocol';
import { findToolSecurity } from './tools-slice';

const listRequest = (id: string, to: string, params?: unknown) =>
  env({ id, from: 'human', to: [to], kind: 'mcp/request', payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', ...(params ? { params } : {}) } });

describe('tools', () => {
  it('takes tools from the tools/list response correlated to the request, with MGP security from security or annotations', () => {
    const s = applyEnvelopes(
      createSpaceState({ me: 'human' }, T0),
      [
        listRequest('list-1', 'fs'),
        response('list-1-resp', 'fs', 'human', 'list-1', {
          result: {
            tools: [
              {
                name: 'execute_command',
                description: 'Execute a shell command',
                inputSchema: { type: 'object' },
                security: { risk_level: 'dangerous', side_effects: ['filesystem', 'process'], confirmation_required: true },
              },
              { name: 'read_file', inputSchema: { type: 'object' }, annotations: { risk_level: 'safe', confirmation_required: false } },
              { name: 'delete_file', annotations: { destructiveHint: true } },
              { name: 'plain' },
              { description: 'no name: dropped' },
            ],
          },
        }),
      ],
      T0,
    );
    expect(toolsOf(s, 'fs').map((t) => t.name)).toEqual(['execute_command', 'read_file', 'delete_file', 'plain']);
    expect(s.tools.byParticipant.get('fs')?.byName.get('execute_command')).toEqual({
      name: 'execute_command',
      description: 'Execute a shell command',
      inputSchema: { type: 'object' },
      security: { risk_level: 'dangerous', side_effects: ['filesystem', 'process'], confirmation_required: true, source: 'security' },
    });
    expect(findToolSecurity(s.tools, 'fs', 'read_file')).toMatchObject({ risk_level: 'safe', source: 'annotations' });
    expect(findToolSecurity(s.tools, 'fs', 'delete_file')).toEqual({
      risk_level: 'dangerous',
      confirmation_required: true,
      derived_from: 'mcp-annotations',
      source: 'mcp-hints',
    });
    expect(findToolSecurity(s.tools, 'fs', 'plain')).toBeUndefined();
    expect(findToolSecurity(s.tools, undefined, 'execute_command')?.risk_level).toBe('dangerous');
    expect(s.tools.pendingLists.size).toBe(0);
  });

  it('ignores responses to other requests, and a later list replaces the tools unless it is a further page', () => {
    const tools = (...names: string[]) => ({ result: { tools: names.map((name) => ({ name })) } });
    const s = applyEnvelopes(
      createSpaceState({}, T0),
      [
        env({ id: 'call-1', from: 'human', to: ['fs'], kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'x' } } }),
        response('call-1-resp', 'fs', 'human', 'call-1', tools('bogus')),
        listRequest('l1', 'fs'),
        response('r1', 'fs', 'human', 'l1', tools('a', 'b')),
        listRequest('l2', 'fs', { cursor: 'page-2' }),
        response('r2', 'fs', 'human', 'l2', tools('c')),
      ],
      T0,
    );
    expect(toolsOf(s, 'fs').map((t) => t.name)).toEqual(['a', 'b', 'c']);
    const replaced = applyEnvelopes(s, [listRequest('l3', 'fs'), response('r3', 'fs', 'human', 'l3', tools('z'))], T0);
    expect(toolsOf(replaced, 'fs').map((t) => t.name)).toEqual(['z']);
  });

  it('reads nothing from a tool without metadata', () => {
    expect(toolRisk({ annotations: { title: 'X' } })).toBeUndefined();
  });
});
