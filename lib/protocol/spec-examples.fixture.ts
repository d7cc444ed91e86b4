// Test data only. SPEC_EXAMPLES: every complete envelope example of the v0.4 spec (shared/specs/mew-protocol-v0.4.md),
// in spec order, copied verbatim but for one `// Optional` comment. Most omit `ts`, so tests parse them as inbound
// envelopes or add a timestamp. DESIGN_EXAMPLES: our gateway's additions (DESIGN.md, "Wire decisions").
export const SPEC_EXAMPLES: readonly Record<string, unknown>[] = [
  {
    protocol: 'mew/v0.4',
    id: 'env-call-1',
    from: 'trusted-agent',
    to: ['target-agent'],
    kind: 'mcp/request',
    payload: {
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: {
        name: 'dangerous_operation',
        arguments: {
          target: 'production',
        },
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-resp-1',
    from: 'target-agent',
    to: ['trusted-agent'],
    kind: 'mcp/response',
    correlation_id: ['env-call-1'],
    payload: {
      jsonrpc: '2.0',
      id: 42,
      result: {
        content: [
          {
            type: 'text',
            text: 'Operation completed',
          },
        ],
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-req-1',
    from: 'untrusted-agent',
    to: ['target-agent'],
    kind: 'mcp/proposal',
    payload: {
      method: 'tools/call',
      params: {
        name: 'dangerous_operation',
        arguments: {
          target: 'production',
        },
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-fulfill-1',
    from: 'human-user',
    to: ['target-agent'],
    kind: 'mcp/request',
    correlation_id: ['env-req-1'],
    payload: {
      jsonrpc: '2.0',
      id: 44,
      method: 'tools/call',
      params: {
        name: 'dangerous_operation',
        arguments: {
          target: 'production',
        },
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-fulfill-resp-1',
    from: 'target-agent',
    to: ['human-user'],
    kind: 'mcp/response',
    correlation_id: ['env-fulfill-1'],
    payload: {
      jsonrpc: '2.0',
      id: 44,
      result: {
        content: [
          {
            type: 'text',
            text: 'Operation completed successfully',
          },
        ],
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'withdraw-456',
    from: 'untrusted-agent',
    correlation_id: ['env-req-1'],
    kind: 'mcp/withdraw',
    payload: {
      reason: 'no_longer_needed',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'reject-789',
    from: 'filesystem-agent',
    to: ['untrusted-agent'],
    correlation_id: ['env-req-1'],
    kind: 'mcp/reject',
    payload: {
      reason: 'unsafe',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'chat-790',
    from: 'filesystem-agent',
    to: ['untrusted-agent'],
    correlation_id: ['reject-789'],
    kind: 'chat',
    payload: {
      text: "I'm currently processing a large batch operation that requires exclusive file access. Please retry in about 5 minutes.",
      format: 'plain',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-chat-1',
    from: 'user-alice',
    kind: 'chat',
    payload: {
      text: 'Hello everyone!',
      format: 'plain',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'chat-ack-1',
    from: 'agent-1',
    kind: 'chat/acknowledge',
    correlation_id: ['env-chat-1'],
    payload: {
      status: 'received',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'chat-cancel-1',
    from: 'user-alice',
    kind: 'chat/cancel',
    to: ['agent-1'],
    correlation_id: ['env-chat-1'],
    payload: {
      reason: 'handled elsewhere',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'reason-start-1',
    from: 'agent-1',
    kind: 'reasoning/start',
    correlation_id: ['req-123'],
    payload: {
      message: 'Analyzing the request to modify the configuration file...',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'thought-1',
    from: 'agent-1',
    kind: 'reasoning/thought',
    context: 'reason-start-1',
    payload: {
      message: 'The configuration file appears to use YAML format. I should validate the syntax before making changes.',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'reason-end-1',
    from: 'agent-1',
    kind: 'reasoning/conclusion',
    context: 'reason-start-1',
    payload: {
      message: "Configuration update is safe to proceed. The changes are valid YAML and won't break existing settings.",
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'reason-cancel-1',
    from: 'agent-1',
    kind: 'reasoning/cancel',
    context: 'reason-start-1',
    payload: {
      reason: 'superseded',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'grant-789',
    from: 'trusted-orchestrator',
    to: ['untrusted-agent'],
    kind: 'capability/grant',
    payload: {
      recipient: 'untrusted-agent',
      capabilities: [
        {
          kind: 'mcp/request',
          payload: {
            method: 'tools/call',
            params: {
              name: 'read_file',
            },
          },
        },
      ],
      reason: 'Demonstrated safe file handling',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'revoke-123',
    from: 'orchestrator',
    kind: 'capability/revoke',
    payload: {
      recipient: 'agent',
      grant_id: 'grant-789',
      reason: 'Task completed',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'revoke-456',
    from: 'orchestrator',
    kind: 'capability/revoke',
    payload: {
      recipient: 'agent',
      capabilities: [
        {
          kind: 'mcp/request',
          payload: {
            method: 'tools/*',
          },
        },
      ],
      reason: 'No longer needed',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'ack-001',
    from: 'agent',
    correlation_id: ['grant-789'],
    kind: 'capability/grant-ack',
    payload: {
      status: 'accepted',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'invite-123',
    from: 'admin',
    kind: 'space/invite',
    payload: {
      participant_id: 'new-agent',
      email: 'agent-operator@example.com',
      initial_capabilities: [
        {
          kind: 'mcp/proposal',
        },
        {
          kind: 'chat',
        },
      ],
      reason: 'Adding specialized analysis agent',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'kick-456',
    from: 'admin',
    kind: 'space/kick',
    payload: {
      participant_id: 'misbehaving-agent',
      reason: 'Repeated capability violations',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-presence-1',
    from: 'system:gateway',
    kind: 'system/presence',
    payload: {
      event: 'join',
      participant: {
        id: 'new-agent',
        capabilities: [
          {
            kind: 'mcp/proposal',
          },
          {
            kind: 'chat',
          },
        ],
      },
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-welcome-1',
    from: 'system:gateway',
    to: ['new-participant'],
    kind: 'system/welcome',
    payload: {
      you: {
        id: 'new-participant',
        capabilities: [
          {
            kind: 'mcp/proposal',
          },
          {
            kind: 'chat',
          },
        ],
      },
      participants: [
        {
          id: 'agent-1',
          capabilities: [
            {
              kind: 'mcp/*',
            },
            {
              kind: 'chat',
            },
          ],
        },
        {
          id: 'agent-2',
          capabilities: [
            {
              kind: 'mcp/response',
            },
            {
              kind: 'chat',
            },
          ],
        },
      ],
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'env-violation-1',
    from: 'system:gateway',
    to: ['violator'],
    kind: 'system/error',
    correlation_id: ['env-bad-call'],
    payload: {
      error: 'capability_violation',
      attempted_kind: 'mcp/request',
      your_capabilities: [
        {
          kind: 'mcp/proposal',
        },
        {
          kind: 'chat',
        },
      ],
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'pause-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/pause',
    payload: {
      reason: 'rate_limit',
      timeout_seconds: 60,
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'resume-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/resume',
    correlation_id: ['pause-1'],
    payload: {},
  },
  {
    protocol: 'mew/v0.4',
    id: 'status-request-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/request-status',
    payload: {
      fields: ['tokens', 'latency'],
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'status-1',
    from: 'agent-1',
    kind: 'participant/status',
    correlation_id: ['status-request-1'],
    payload: {
      tokens: 12345,
      max_tokens: 20000,
      messages_in_context: 128,
      latency_ms: 350,
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'forget-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/forget',
    payload: {
      direction: 'oldest',
      entries: 10,
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'compact-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/compact',
    payload: {
      reason: 'token_pressure',
      target_tokens: 16000,
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'compact-done-1',
    from: 'agent-1',
    to: ['orchestrator'],
    kind: 'participant/compact-done',
    correlation_id: ['compact-1'],
    payload: {
      freed_tokens: 2048,
      freed_messages: 12,
      status: 'compacted',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'clear-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/clear',
  },
  {
    protocol: 'mew/v0.4',
    id: 'restart-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/restart',
  },
  {
    protocol: 'mew/v0.4',
    id: 'shutdown-1',
    from: 'orchestrator',
    to: ['agent-1'],
    kind: 'participant/shutdown',
  },
  {
    protocol: 'mew/v0.4',
    id: 'stream-req-1',
    from: 'agent-1',
    to: ['gateway'],
    kind: 'stream/request',
    payload: {
      direction: 'upload',
      expected_size_bytes: 10485760,
      description: 'Large dataset export',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'stream-open-1',
    from: 'gateway',
    to: ['agent-1'],
    kind: 'stream/open',
    correlation_id: ['stream-req-1'],
    payload: {
      stream_id: 'stream-42',
      encoding: 'binary',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: 'stream-close-1',
    from: 'gateway',
    to: ['agent-1'],
    kind: 'stream/close',
    correlation_id: ['stream-open-1'],
    payload: {
      reason: 'complete',
    },
  },
];

export const DESIGN_EXAMPLES: readonly Record<string, unknown>[] = [
  {
    protocol: 'mew/v0.4',
    id: '0b0d5c1e-9a6f-4d7e-8a43-6a1f2b3c4d5e',
    ts: '2025-09-26T10:00:00.000Z',
    from: 'system:gateway',
    to: ['admin'],
    kind: 'space/invite-ack',
    correlation_id: ['invite-123'],
    payload: {
      status: 'created',
      participant_id: 'new-agent',
      token: 'tok_5b1f7c0e2a9d4b3c',
      connection_url: 'ws://127.0.0.1:3000/ws?space=demo',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: '1c1d5c1e-9a6f-4d7e-8a43-6a1f2b3c4d5e',
    ts: '2025-09-26T10:00:01.000Z',
    from: 'system:gateway',
    to: ['late-joiner'],
    kind: 'system/welcome',
    payload: {
      you: { id: 'late-joiner', capabilities: [{ kind: 'chat' }] },
      participants: [{ id: 'agent-1', capabilities: [{ kind: 'mcp/*' }] }],
      active_streams: [
        {
          stream_id: 's-9f8e7d6c',
          owner: 'agent-1',
          direction: 'upload',
          authorized_writers: ['agent-1'],
          target: ['late-joiner'],
          encoding: 'text',
        },
      ],
    },
  },
  {
    protocol: 'mew/v0.4',
    id: '2c1d5c1e-9a6f-4d7e-8a43-6a1f2b3c4d5e',
    ts: '2025-09-26T10:00:02.000+02:00',
    from: 'system:gateway',
    to: ['agent-1'],
    kind: 'stream/open',
    correlation_id: ['stream-req-1'],
    payload: {
      stream_id: 's-9f8e7d6c',
      owner: 'agent-1',
      authorized_writers: ['agent-1'],
      target: ['late-joiner'],
      direction: 'upload',
      encoding: 'text',
    },
  },
  {
    protocol: 'mew/v0.4',
    id: '3c1d5c1e-9a6f-4d7e-8a43-6a1f2b3c4d5e',
    ts: '2025-09-26T10:00:03Z',
    from: 'system:gateway',
    to: ['agent-1'],
    kind: 'system/error',
    correlation_id: ['env-bad'],
    payload: {
      error: 'invalid_envelope',
      message: 'payload.text: Required',
      issues: [{ path: ['payload', 'text'], message: 'Required' }],
    },
  },
  {
    protocol: 'mew/v0.4',
    id: '4c1d5c1e-9a6f-4d7e-8a43-6a1f2b3c4d5e',
    ts: '2025-09-26T10:00:04Z',
    from: 'system:gateway',
    to: ['human'],
    kind: 'system/security-event',
    payload: {
      offender: 'agent-1',
      error: 'capability_violation',
      message: 'you lack a capability for "space/kick" with this payload',
      attempted_kind: 'space/kick',
      envelope_id: 'env-kick',
      suppressed: 3,
    },
  },
  {
    protocol: 'mew/v0.4',
    id: '7b2e0c4a-3f1d-4e6b-9a58-2c7d1e0f9a31',
    ts: '2025-09-26T10:00:05Z',
    from: 'system:gateway',
    kind: 'system/approval',
    correlation_id: ['env-req-1', 'env-fulfill-1'],
    payload: {
      proposal_id: 'env-req-1',
      request_id: 'env-fulfill-1',
      required: 2,
      approvals: [{ by: 'human-user', envelope_id: 'env-fulfill-1', at: '2025-09-26T10:00:05Z' }],
      complete: false,
      call: '3f5a1c0b9e7d2a4c6b8e0f1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e',
      edited: false,
    },
  },
];
