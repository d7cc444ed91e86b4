/** Button looks shared by the cards and dialogs, so every action reads the same everywhere. */
export const buttonClass = {
  base: 'inline-flex items-center gap-1.5 rounded px-3 py-1.5 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:cursor-not-allowed disabled:opacity-50',
  neutral: 'border border-slate-700 bg-slate-900 text-slate-200 hover:bg-slate-800',
  approve: 'bg-emerald-700 text-white hover:bg-emerald-600',
  danger: 'bg-red-700 text-white hover:bg-red-600',
  rejectOutline: 'border border-red-800 bg-red-950/40 text-red-200 hover:bg-red-900/60',
  grant: 'border border-sky-700 bg-sky-950 text-sky-200 hover:bg-sky-900',
} as const;
