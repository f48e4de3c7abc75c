import { count } from '../lib/format';
import type { Schemas } from '../lib/api';

/** This month's quota: used, left, the quota and the plan (overview and billing). */
export function QuotaCards({ quota, plan }: { quota: Schemas['QuotaStatus']; plan: string | null }) {
  return (
    <section class="stats" aria-label={`Quota for ${quota.month}`}>
      <div class="stat">
        <span class="stat-label">Used in {quota.month}</span>
        <span class="stat-value" data-testid="quota-used">
          {count(quota.used)}
        </span>
        <meter
          min={0}
          max={Math.max(quota.monthly_quota, 1)}
          value={quota.used}
          aria-label="Share of the monthly quota used"
        />
      </div>
      <div class="stat">
        <span class="stat-label">Left this month</span>
        <span class="stat-value" data-testid="quota-left">
          {count(quota.remaining)}
        </span>
      </div>
      <div class="stat">
        <span class="stat-label">Monthly quota</span>
        <span class="stat-value">{count(quota.monthly_quota)}</span>
      </div>
      <div class="stat">
        <span class="stat-label">Plan</span>
        <span class="stat-value">{plan ?? 'Custom quota'}</span>
      </div>
    </section>
  );
}
