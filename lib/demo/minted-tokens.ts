import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The participant tokens the gateway minted for a space, from `<dataDir>/<space>/tokens.json` (written by the
 * gateway for participants whose config lists no token). Throws if the file is missing or malformed: call it
 * after the gateway has loaded the space.
 *
 * @example
 * const tokens = readMintedTokens('data', 'demo'); // { human: '…', files: '…', scribe: '…', auditor: '…' }
 */
export function readMintedTokens(dataDir: string, space: string): Record<string, string> {
  const file = join(dataDir, space, 'tokens.json');
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { participants?: unknown };
  const participants = stored.participants;
  if (typeof participants !== 'object' || participants === null) throw new Error(`${file} has no "participants" map`);
  return Object.fromEntries(Object.entries(participants).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
