'use client';

import { useId, useMemo } from 'react';
import { useSpace } from '@/components/session/space-session';
import { parseCapabilities, TEMPLATES, templateText, type ParsedCapabilities, type TemplateId } from './capability-templates';
import { INPUT } from './styles';

export interface PickerValue {
  template: TemplateId;
  toolName: string;
  text: string;
}

export function initialPicker(template: TemplateId = 'proposal-only'): PickerValue {
  return { template, toolName: '', text: templateText(template, '') };
}

/** The picker's patterns, validated (a tool template needs its tool name first). */
export function parsePicker(value: PickerValue): ParsedCapabilities {
  if (value.template === 'tool-by-name' && value.toolName.trim() === '') return { ok: false, error: 'Enter a tool name.' };
  return parseCapabilities(value.text);
}

/**
 * Capability patterns from a template or as JSON. The textarea is the truth: a template fills it, editing it
 * makes it "Custom JSON", and it is validated live (the error names the path of the bad value).
 */
export function CapabilityPicker({
  legend,
  value,
  parsed,
  onChange,
}: {
  legend: string;
  value: PickerValue;
  parsed: ParsedCapabilities;
  onChange: (value: PickerValue) => void;
}) {
  const id = useId();
  // The tools slice is replaced only when a tools/list answer (or request) arrives.
  const tools = useSpace((s) => s.tools);
  const toolNames = useMemo(() => [...new Set([...tools.byParticipant.values()].flatMap((t) => t.tools.map((tool) => tool.name)))].sort(), [tools]);

  const choose = (template: TemplateId) => onChange({ ...value, template, text: template === 'custom' ? value.text : templateText(template, value.toolName) });

  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-sm font-medium text-slate-200">{legend}</legend>
      <div className="grid grid-cols-1 gap-1 sm:grid-cols-2">
        {[...TEMPLATES, { id: 'custom' as const, label: 'Custom JSON', hint: 'any pattern (spec §4.1)' }].map((t) => (
          <label
            key={t.id}
            className="flex cursor-pointer items-start gap-2 rounded border border-slate-800 px-2 py-1.5 text-sm has-[:checked]:border-sky-600 has-[:checked]:bg-sky-950/40"
          >
            <input
              type="radio"
              name={`${id}-template`}
              value={t.id}
              checked={value.template === t.id}
              onChange={() => choose(t.id)}
              data-autofocus={value.template === t.id || undefined}
              className="mt-1 accent-sky-500 focus-visible:ring-2 focus-visible:ring-sky-400"
            />
            <span>
              <span className="block text-slate-100">{t.label}</span>
              <span className="block text-xs text-slate-400">{t.hint}</span>
            </span>
          </label>
        ))}
      </div>
      {value.template === 'tool-by-name' && (
        <label className="flex flex-col gap-1 text-sm">
          Tool name
          <input
            value={value.toolName}
            list={`${id}-tools`}
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. read_file"
            onChange={(e) => onChange({ ...value, toolName: e.target.value, text: templateText('tool-by-name', e.target.value) })}
            className={`${INPUT} font-mono`}
          />
          <datalist id={`${id}-tools`}>
            {toolNames.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
      )}
      <label className="flex flex-col gap-1 text-sm">
        Capability patterns (JSON)
        <textarea
          value={value.text}
          onChange={(e) => onChange({ ...value, template: 'custom', text: e.target.value })}
          rows={6}
          spellCheck={false}
          aria-invalid={!parsed.ok}
          aria-describedby={`${id}-validation`}
          className={`${INPUT} font-mono text-xs`}
        />
      </label>
      <p id={`${id}-validation`} aria-live="polite" className={`text-xs ${parsed.ok ? 'text-emerald-300' : 'text-red-300'}`}>
        {parsed.ok
          ? `Valid: ${parsed.capabilities.length} pattern${parsed.capabilities.length === 1 ? '' : 's'}.`
          : `Invalid${parsed.path ? ` at ${parsed.path}` : ''}: ${parsed.error}`}
      </p>
    </fieldset>
  );
}
