import type { Schemas } from '../lib/api';
import { count } from '../lib/format';
import { Field } from './ui';

/** Plan or own quota, as the operator sets a customer's allowance (create and edit forms). */
export interface Allowance {
  planId: string;
  quota: string;
}

/** The API's fields; an empty choice is `empty` (undefined when creating: the defaults; null when editing: clear it). */
export function allowanceBody<E extends null | undefined>(
  a: Allowance,
  empty: E,
): { plan_id: number | E; monthly_quota: number | E } {
  return {
    plan_id: a.planId ? Number(a.planId) : empty,
    monthly_quota: a.quota.trim() === '' ? empty : Number(a.quota),
  };
}

export function AllowanceFields({
  plans,
  value,
  onChange,
}: {
  plans: Schemas['Plan'][];
  value: Allowance;
  onChange: (a: Allowance) => void;
}) {
  return (
    <>
      <Field label="Plan">
        <select value={value.planId} onChange={(e) => onChange({ ...value, planId: e.currentTarget.value })}>
          <option value="">No plan</option>
          {plans.map((p) => (
            <option key={p.id} value={String(p.id)}>
              {p.name} ({count(p.monthly_quota)}/month)
            </option>
          ))}
        </select>
      </Field>
      <Field label="Own monthly quota" hint="Overrides the plan’s quota; empty: the plan’s.">
        <input
          type="number"
          min={0}
          max={1_000_000_000}
          step={1}
          value={value.quota}
          onInput={(e) => onChange({ ...value, quota: e.currentTarget.value })}
        />
      </Field>
    </>
  );
}
