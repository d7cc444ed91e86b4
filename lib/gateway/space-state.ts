import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CapabilityPattern } from '../capabilities';

/** A runtime grant. Its id is the id of the `capability/grant` envelope (or of the admin call) that made it. */
export interface GrantRecord {
  id: string;
  recipient: string;
  /** What the grant still gives: a revocation by pattern removes the capabilities it covers from here. */
  capabilities: CapabilityPattern[];
  grantedBy: string;
  reason?: string;
  ts: string;
  revoked?: { by: string; ts: string; revocationId: string };
}

/** A revocation of capabilities the participant holds from the config (or its invite): the file is never edited. */
export interface BaseRevocation {
  id: string;
  recipient: string;
  capabilities: CapabilityPattern[];
  by: string;
  ts: string;
  reason?: string;
}

export interface InvitedParticipant {
  id: string;
  capabilities: CapabilityPattern[];
  invitedBy: string;
  ts: string;
  reason?: string;
}

export interface SpaceStateData {
  version: 1;
  grants: GrantRecord[];
  revocations: BaseRevocation[];
  invited: InvitedParticipant[];
  /** Participants whose tokens were revoked by a kick; a later invite of the same id lets them back. */
  kicked: string[];
}

const EMPTY: SpaceStateData = { version: 1, grants: [], revocations: [], invited: [], kicked: [] };

/**
 * What a space learns at run time — grants, revocations, invites, kicks — kept in `<dataDir>/<space>/state.json`
 * so a gateway restart changes nothing. Written whole, to a temporary file then renamed, so a crash mid-write
 * leaves the previous state rather than half a file. Without a data directory it lives in memory only.
 */
export class SpaceState {
  readonly data: SpaceStateData;
  private readonly file?: string;

  constructor(dataDir: string | undefined, spaceId: string) {
    if (dataDir) {
      const dir = join(dataDir, spaceId);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.file = join(dir, 'state.json');
    }
    this.data = this.load();
  }

  /** Applies a change and persists it before returning, so an acknowledged change survives a crash. */
  update(change: (data: SpaceStateData) => void): void {
    change(this.data);
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 }); // the directory may have been removed under us
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 1), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private load(): SpaceStateData {
    if (!this.file) return structuredClone(EMPTY);
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return structuredClone(EMPTY);
    }
    const data = JSON.parse(text) as SpaceStateData;
    if (data.version !== 1) throw new Error(`${this.file}: unsupported state version ${String(data.version)}`);
    return { ...structuredClone(EMPTY), ...data };
  }
}
