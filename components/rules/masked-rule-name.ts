import type { ApprovalRuleInput } from '@/lib/rules/approval-rule';
import { describeMatch } from '@/lib/rules/rule-shape';
import { maskText, maskValue } from '@/lib/secrets/secret-masking';
import { secretsOf } from '@/lib/secrets/unmask-edited';

/** The longest name a rule may have (`approvalRuleInputSchema`): names made here are cut to it. */
export const RULE_NAME_MAX = 120;
/** A secret of the match shorter than this is not looked for elsewhere in a name: it would hit ordinary words. */
const COPIED_SECRET_MIN = 4;

/**
 * A rule's name with its secrets masked, as the control room shows it and saves it. A name made from a proposal or a
 * suggestion describes the rule's match (`describeMatch`), which pins the proposals' argument values: a secret among
 * them (`ghp_…abcd`, a `token` argument) is masked in the name as on the proposals' cards, while the match keeps the
 * real value (the rule must match the calls). Names are listed wherever rules are (the rules dialog, a card's "by
 * rule", toasts), so one holding a secret would leak it there; names saved before masking are masked when shown.
 *
 * The description is put back masked (also when the name was cut short inside it), then any of the match's secrets
 * copied elsewhere into the name and any recognised secret are masked. The same name when there is none.
 *
 * @example
 * maskedRuleName({ name: 'agent → tools · deploy · token ghp_… (always)', match: { …, arguments: { token: 'ghp_…' } } });
 * // 'agent → tools · deploy · token …wxyz (always)'
 */
export function maskedRuleName(rule: Pick<ApprovalRuleInput, 'name' | 'match'>): string {
  const shownMatch = maskValue(rule.match);
  let name = rule.name;
  if (shownMatch !== rule.match) {
    const raw = describeMatch(rule.match);
    const shown = describeMatch(shownMatch);
    const at = name.indexOf(raw);
    if (at >= 0) name = name.slice(0, at) + shown + name.slice(at + raw.length);
    else if (name.length >= RULE_NAME_MAX && !name.includes(shown)) name = cutDescription(name, raw, shown);
    for (const { secret, masked } of secretsOf(rule.match)) {
      if (secret.length >= COPIED_SECRET_MIN) name = name.split(secret).join(masked);
    }
  }
  return maskText(name);
}

/** A name cut to the longest length inside the description `raw`: what is left of it replaced by `shown`. */
function cutDescription(name: string, raw: string, shown: string): string {
  for (let cut = 0; cut < name.length; cut++) {
    if (raw.startsWith(name.slice(cut))) return `${name.slice(0, cut)}${shown}`.slice(0, RULE_NAME_MAX);
  }
  return name;
}

/**
 * What an operator's audited Reveal of a rule's secrets is recorded under (`SECRET_REVEALED`'s envelope_id): a rule
 * is no envelope, so its id marked as a rule's (`rule:<id>`; a draft not saved yet: `rule:draft`). The rules list and
 * the editor reveal a rule together.
 */
export function ruleRevealId(ruleId: string | undefined): string {
  return `rule:${ruleId ?? 'draft'}`;
}
