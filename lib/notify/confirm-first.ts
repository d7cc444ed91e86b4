import { isDangerousRisk, type ToolSecurity } from '../protocol';

/**
 * Whether a proposal of this tool is decided on the page only, never from a notification: a dangerous or
 * confirm-first tool, or one whose risk nobody declared (unknown is treated as the worst case).
 */
export function confirmFirst(risk: ToolSecurity | undefined): boolean {
  return isDangerousRisk(risk, true);
}

/** The risk in words, for a notification or a webhook message. */
export function riskLabel(risk: ToolSecurity | undefined): string {
  const level = risk?.risk_level ?? 'risk undeclared';
  return risk?.confirmation_required ? `${level}, confirm first` : level;
}
