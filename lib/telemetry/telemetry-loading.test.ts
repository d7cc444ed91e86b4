import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveSpecifier } from '../../scripts/source-imports';
import { serverFeatures } from '../host/server-features';
import { startOtelRuntime } from './otel-runtime';
import { TELEMETRY_FEATURE } from './telemetry-feature';
import { telemetrySettings } from './telemetry-settings';

// With no OpenTelemetry configured the server loads none of it: no feature, and no module the server imports
// statically imports an OpenTelemetry package (the SDK is behind one `import()`). scripts/gateway-modules.test.ts
// checks what the compiled gateway loads.

const ROOT = resolve(import.meta.dirname, '../..');

/** Specifiers a file imports for their values, at load time (type-only imports and `import()` left out). */
function staticValueImports(text: string): string[] {
  const patterns = [/^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** Every package that loading `entry` loads through static imports of the repository's files. */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of staticValueImports(readFileSync(resolve(ROOT, file), 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target) visit(target);
      else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

describe('loading OpenTelemetry', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is not part of what the server imports: the SDK and exporters come in with the first space that exports', () => {
    const packages = [...packagesLoadedBy('lib/host/run-server.ts')];
    expect(packages).toContain('ws');
    expect(packages.filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
  });

  it('registers the feature only when something is to be exported', () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', '');
    expect(serverFeatures().map((f) => f.name)).not.toContain(TELEMETRY_FEATURE);
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:4318');
    expect(serverFeatures()[0].name).toBe(TELEMETRY_FEATURE);
    expect(serverFeatures({ telemetry: false }).map((f) => f.name)).not.toContain(TELEMETRY_FEATURE);
    vi.stubEnv('OTEL_SDK_DISABLED', 'true');
    expect(serverFeatures().map((f) => f.name)).not.toContain(TELEMETRY_FEATURE);
  });

  it('starts and stops over gRPC too (nothing listening: nothing to send)', async () => {
    const runtime = await startOtelRuntime(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })!);
    await runtime.shutdown();
  });
});
