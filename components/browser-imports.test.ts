import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, resolveSpecifier, sourceFiles } from '../scripts/source-imports';

// The browser takes wire types from `lib/protocol` only (DESIGN.md, "Third round"). The control room (components/,
// and app/ pages: everything but route handlers) must not import server modules, not even for a type, and nothing it
// bundles may reach one or a node-only package.

const ROOT = resolve(__dirname, '..');

/** Folders of `lib/` the browser may import from: isomorphic by design (DESIGN.md, "Layout"). */
const ISOMORPHIC_FOLDERS: Record<string, string> = {
  'lib/protocol': 'wire types and schemas of the protocol and of the HTTP APIs',
  'lib/capabilities': 'the one capability matcher, shared by the gateway and the SDK',
  'lib/sdk': 'the SDK is isomorphic: the control room is a MEWParticipant',
  'lib/store': 'zustand stores fed by the browser participant',
  'lib/collections': 'plain data structures (used by the SDK)',
  'lib/secrets': 'secret masking: the control room masks its log as the server masks what leaves it',
};

/**
 * Files of feature folders (whose other parts run on the server) that are pure logic shared by the browser and the
 * server; the transitive check below keeps them free of node-only imports.
 */
const ISOMORPHIC_FILES: Record<string, string> = {
  'lib/rules/approval-rule.ts': 'the approval rule schema (zod only): the rule editor validates what the rules API will',
  'lib/rules/rule-engine.ts': 'the rule matcher: the editor previews and validates rules with the engine the supervisor runs',
  'lib/rules/rule-shape.ts': 'proposal facts and rule shapes, for "approve for…" and suggestions',
  'lib/rules/rule-suggestions.ts': 'rules suggested from the operator’s own decisions',
  'lib/rules/human-decisions.ts': 'the decisions a human made, read from the store’s proposals',
  'lib/rules/rule-preview.ts': 'what a rule would have decided on the proposals seen',
  'lib/budgets/budget.ts': 'budget arithmetic (spend, usage, formatting) the gauge shares with the gateway',
  'lib/budgets/budget-report.ts': 'a budget report brought up to date by the latest status (the gauge between polls)',
};

/** Folders of `lib/` that hold server code: a component never imports them directly, not even a type. */
const SERVER_FOLDERS = ['gateway', 'host', 'notify', 'cluster', 'launcher', 'rules', 'budgets', 'bridge', 'mcp-server', 'telemetry', 'demo'];
const SERVER_IMPORT = new RegExp(`(?:^|/)lib/(?:${SERVER_FOLDERS.join('|')})(?:/|$)`);

/** Packages that only run on the server (beside node's built-in modules). */
const SERVER_PACKAGES = ['better-sqlite3', 'ws', 'ioredis', 'web-push', '@modelcontextprotocol/sdk', '@modelcontextprotocol/server-filesystem'];

const NOT_BUNDLED = /\.(?:test|spec)\.tsx?$|\.fixture\.ts$/;
/** Route handlers run on the server and may import server code. */
const ROUTE_HANDLER = /(?:^|\/)route\.(?:ts|tsx|js)$/;

/** The control room's own files: components/ and app/ (route handlers aside), tests aside. */
function browserEntries(): string[] {
  return [...sourceFiles('components'), ...sourceFiles('app')].filter((file) => !NOT_BUNDLED.test(file) && !ROUTE_HANDLER.test(file));
}

const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

function isIsomorphic(file: string): boolean {
  return Object.hasOwn(ISOMORPHIC_FILES, file) || Object.keys(ISOMORPHIC_FOLDERS).some((folder) => file.startsWith(`${folder}/`));
}

const NODE_BUILTINS = new Set(builtinModules);
const isNodeOnly = (specifier: string) =>
  specifier.startsWith('node:') || NODE_BUILTINS.has(packageName(specifier)) || SERVER_PACKAGES.includes(packageName(specifier));

describe('the browser imports no server module', () => {
  it('finds imports of every form, type-only and relative ones included', () => {
    const text = [
      "import type { AuditEvent } from '@/lib/gateway/audit/audit-event';",
      'import {',
      '  a,',
      '  type B,',
      "} from '../../lib/notify/webhooks';",
      "export { c } from './c';",
      "import 'side-effect';",
      "const lazy = await import('@/lib/cluster/x');",
      " * import { inAComment } from 'ignored'; (a doc comment's line starts with *)",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['../../lib/notify/webhooks', './c', '@/lib/cluster/x', '@/lib/gateway/audit/audit-event', 'side-effect'].sort(),
    );
    expect(SERVER_IMPORT.test('@/lib/gateway/process-control')).toBe(true);
    expect(SERVER_IMPORT.test('../../lib/notify/webhooks')).toBe(true);
    expect(SERVER_IMPORT.test('@/lib/protocol')).toBe(false);
    expect(SERVER_IMPORT.test('@/lib/rules-like')).toBe(false);
  });

  it('has control room files to check', () => {
    const entries = browserEntries();
    expect(entries).toContain('components/audit/audit-dialog.tsx');
    expect(entries).toContain('app/page.tsx');
  });

  it('components and pages import server folders only for the listed isomorphic files', () => {
    const offending: string[] = [];
    for (const file of browserEntries()) {
      for (const specifier of importSpecifiers(readFileSync(join(ROOT, file), 'utf8'))) {
        if (!SERVER_IMPORT.test(specifier)) continue;
        const target = resolveSpecifier(file, specifier);
        if (target === undefined || !Object.hasOwn(ISOMORPHIC_FILES, target)) offending.push(`${file} imports ${specifier}`);
      }
    }
    expect(offending, 'wire types belong in lib/protocol; import them from there').toEqual([]);
  });

  it('everything the control room bundles is isomorphic: listed folders or files, no node-only package', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    const queue = browserEntries();
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of importSpecifiers(readFileSync(join(ROOT, file), 'utf8'))) {
        const target = resolveSpecifier(file, specifier);
        if (target === undefined) {
          if (isNodeOnly(specifier)) problems.push(`${file} imports the server-only module ${specifier}`);
        } else if (target.startsWith('lib/') && !isIsomorphic(target)) {
          problems.push(`${file} imports ${target}, which is not a listed isomorphic module`);
        } else {
          queue.push(target);
        }
      }
    }
    expect(seen.has('lib/protocol/index.ts')).toBe(true);
    expect(problems).toEqual([]);
  });

  it('lib/protocol imports only itself and zod', () => {
    const outside = sourceFiles('lib/protocol')
      .filter((file) => !NOT_BUNDLED.test(file))
      .flatMap((file) => importSpecifiers(readFileSync(join(ROOT, file), 'utf8')).map((specifier) => ({ file, specifier })))
      .filter(({ specifier }) => !/^\.\/[^/]+$/.test(specifier) && specifier !== 'zod')
      .map(({ file, specifier }) => `${file} imports ${specifier}`);
    expect(outside).toEqual([]);
  });

  it('lists only isomorphic files that exist', () => {
    for (const file of Object.keys(ISOMORPHIC_FILES)) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });
});
