import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, resolveSpecifier, sourceFiles } from '../../scripts/source-imports';

// The gateway core knows nothing of what a space runs beside it: features register with the space's host
// (lib/host), which builds on the core, never the reverse. Test fixtures (which compose the whole product) aside.

const ROOT = resolve(import.meta.dirname, '../..');

/** What the core must not import, and why each is outside it. */
const FEATURE_FOLDERS: Record<string, string> = {
  'lib/host': 'the space host composes the core with the features',
  'lib/launcher': 'launched processes: a feature (processes)',
  'lib/bridge': 'the MCP bridge: a launched participant',
  'lib/notify': 'notifications: a feature',
  'lib/cluster': 'cluster mode builds on the core (a space owner hosts the space)',
  'lib/demo': 'the demo: a space config and its agents',
  'lib/sdk': 'the SDK is a client of the gateway',
};

const FIXTURE = /\.test\.ts$|^lib\/gateway\/testing(?:\.ts$|\/)/;

describe('the gateway core', () => {
  it('imports no feature, nor the host, cluster, demo or SDK', () => {
    const core = sourceFiles('lib/gateway').filter((file) => !FIXTURE.test(file));
    expect(core.length).toBeGreaterThan(30);
    const crossings = core.flatMap((file) =>
      importSpecifiers(readFileSync(resolve(ROOT, file), 'utf8')).flatMap((specifier) => {
        const target = resolveSpecifier(file, specifier);
        const folder = target && Object.keys(FEATURE_FOLDERS).find((f) => target.startsWith(`${f}/`));
        return folder ? [`${file} imports ${target} (${FEATURE_FOLDERS[folder]})`] : [];
      }),
    );
    expect(crossings).toEqual([]);
  });
});
