/** Names the spec gives (§3.9.4); anything else is labelled from its snake_case key. */
const KNOWN_LABELS: Readonly<Record<string, string>> = {
  tokens: 'Tokens',
  max_tokens: 'Max tokens',
  messages_in_context: 'Messages in context',
  latency_ms: 'Latency (ms)',
};

/** Charted first, in this order; other numeric fields follow in the order they were first reported. */
const PREFERRED_ORDER = ['messages_in_context', 'latency_ms'];

const COLORS: Readonly<Record<string, string>> = {
  tokens: '#38bdf8', // sky-400
  max_tokens: '#94a3b8', // slate-400
  messages_in_context: '#34d399', // emerald-400
  latency_ms: '#fbbf24', // amber-400
};
const OTHER_COLORS = ['#a78bfa', '#f472b6', '#2dd4bf', '#fb923c'];

/** A readable label for a status field: `cost_usd` → `Cost (usd)`, `queue_depth` → `Queue depth`. */
export function fieldLabel(key: string): string {
  const known = KNOWN_LABELS[key];
  if (known) return known;
  const words = key.split('_').filter(Boolean);
  const unit = words.length > 1 && ['ms', 's', 'usd', 'bytes', 'kb', 'mb', 'pct'].includes(words.at(-1)!) ? words.pop() : undefined;
  const text = words.join(' ');
  const label = text.charAt(0).toUpperCase() + text.slice(1);
  return unit ? `${label} (${unit})` : label;
}

/** The line colour of a field, stable per field name (a hash picks one for fields the spec does not name). */
export function fieldColor(key: string): string {
  const known = COLORS[key];
  if (known) return known;
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return OTHER_COLORS[Math.abs(hash) % OTHER_COLORS.length];
}

/** One small chart: tokens share theirs with `max_tokens`, every other field gets its own. */
export interface ChartGroup {
  key: string;
  title: string;
  fields: readonly string[];
}

/** The charts for a participant's numeric fields. */
export function chartGroups(fields: readonly string[]): ChartGroup[] {
  const groups: ChartGroup[] = [];
  const tokenFields = ['tokens', 'max_tokens'].filter((f) => fields.includes(f));
  if (tokenFields.length > 0) groups.push({ key: 'tokens', title: fields.includes('max_tokens') ? 'Tokens vs max' : 'Tokens', fields: tokenFields });
  const rest = fields.filter((f) => f !== 'tokens' && f !== 'max_tokens');
  const rank = (f: string) => (PREFERRED_ORDER.includes(f) ? PREFERRED_ORDER.indexOf(f) : PREFERRED_ORDER.length);
  for (const f of [...rest].sort((a, b) => rank(a) - rank(b))) groups.push({ key: f, title: fieldLabel(f), fields: [f] });
  return groups;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** `12,345` (up to two decimals). */
export function formatNumber(value: number): string {
  return integer.format(value);
}

/** `12.3K`, for axis ticks. */
export function formatCompact(value: number): string {
  return compact.format(value);
}
