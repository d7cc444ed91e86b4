import { describe, expect, it } from 'vitest';
import { AgentConfigurationError, assertAgentConfigured, resolveAgentSettings } from './agent-options';
import { MEWAgent } from './mew-agent';

describe('agent options', () => {
  it('refuses an agent with neither an API key nor an endpoint', () => {
    expect(() => assertAgentConfigured({})).toThrow(new AgentConfigurationError('not configured: set OPENAI_API_KEY or agent.base_url'));
    expect(() => MEWAgent.assertConfigured({ apiKey: '' })).toThrow(AgentConfigurationError);
    expect(() => new MEWAgent({ gateway: 'ws://127.0.0.1:1/ws', space: 's', token: 't', model: 'm' })).toThrow(
      'not configured: set OPENAI_API_KEY or agent.base_url',
    );
    expect(() => assertAgentConfigured({ baseUrl: 'http://localhost:11434/v1' })).not.toThrow();
  });

  it('applies the documented defaults and rejects invalid values clearly', () => {
    expect(resolveAgentSettings({ model: 'm', apiKey: 'k' })).toMatchObject({
      maxIterations: 8,
      contextWindow: 128_000,
      stream: true,
      maxRepliesPerMinute: 10,
      classifyChats: false,
      classificationThreshold: 0.7,
      prompts: {},
    });
    expect(() => resolveAgentSettings({ model: 'm', apiKey: 'k', maxIterations: 0 })).toThrow(/invalid agent options:.*maxIterations/s);
    expect(() => resolveAgentSettings({ model: '', apiKey: 'k' })).toThrow(/model/);
  });
});
