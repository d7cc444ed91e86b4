import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../gateway/audit';
import { toJsonl } from '../gateway/audit/audit-export';
import { ProcessLog } from '../launcher/process-log';
import { argumentSummary } from '../notify/proposal-summary';
import type { ProposalEvent } from '../notify/proposal-watch';
import { proposalWebhookBody } from '../notify/webhook-payload';
import type { Proposal } from '../sdk/model/proposals-slice';

// Where things leave the process or its database, a GitHub token in a call's arguments is masked.

const TOKEN = `ghp_${'Q7w8E9r0T1'.repeat(3)}zz42`;
const MASKED = 'ghp_…zz42';

describe('secrets at the edges', () => {
  it('a webhook body and a push summary carry the arguments masked', () => {
    const proposal = {
      id: 'p1',
      proposer: 'agent',
      targets: ['git'],
      method: 'tools/call',
      toolName: 'push',
      arguments: { remote: `https://${TOKEN}@github.com/x.git` },
    };
    const event = { type: 'pending', proposal: proposal as unknown as Proposal, at: 0 } satisfies ProposalEvent;
    const body = JSON.stringify(proposalWebhookBody('space', event, 'http://x'));
    expect(body).not.toContain(TOKEN);
    expect(body).toContain(`https://${MASKED}@github.com/x.git`);
    expect(argumentSummary(proposal.arguments)).toContain(MASKED);
  });

  it('a process log line carries it masked, on disk and in the tail', () => {
    const log = new ProcessLog(join(mkdtempSync(join(tmpdir(), 'mew-masked-')), 'agent.log'), []);
    log.write(`using token ${TOKEN}`);
    log.flush();
    expect(readFileSync(log.file, 'utf8')).toContain(`using token ${MASKED}`);
    expect(log.tail.toArray().join('\n')).not.toContain(TOKEN);
  });

  it('the audit keeps it masked, so its export (and the hash chain over what is stored) never holds it whole', () => {
    const audit = AuditLog.attach(new Database(':memory:'));
    audit.record({
      space: 's',
      type: 'PROPOSAL_REJECTED',
      actor: 'human',
      details: { explanation: `do not push with ${TOKEN}`, api_key: 'abcdefghijklmnopqr' },
    });
    audit.flush();
    const exported = toJsonl(audit.query({ space: 's' }));
    expect(exported).not.toContain(TOKEN);
    expect(exported).toContain(MASKED);
    expect(exported).toContain('"api_key":"…opqr"');
    expect(audit.verify('s')).toMatchObject({ ok: true });
    audit.close();
  });
});
