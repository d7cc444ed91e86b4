import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// What the repository's source files import, for the tests that keep its boundaries (the browser imports no server
// module; the gateway core imports no feature).

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE = /\.(?:ts|tsx|mts|mjs|js|jsx)$/;

/** Every module specifier a source file imports or re-exports (static, side-effect, dynamic, require), type-only included. */
export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

export const posix = (path: string) => path.split(sep).join('/');

export function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sourceFiles(path) : SOURCE.test(name) ? [posix(path)] : [];
  });
}

/** The repository file (relative, posix) a specifier names, or undefined for a package. */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@/')) base = join(ROOT, specifier.slice(2));
  else if (specifier.startsWith('.')) base = resolve(ROOT, dirname(fromFile), specifier);
  else return undefined;
  for (const suffix of ['', '.ts', '.tsx', '/index.ts', '/index.tsx', '.mjs', '.js']) {
    const candidate = base + suffix;
    if (existsSync(candidate) && statSync(candidate).isFile()) return posix(relative(ROOT, candidate));
  }
  throw new Error(`${fromFile}: cannot resolve "${specifier}"`);
}
