import { useEffect } from 'preact/hooks';
import { call, client } from '../../lib/api';
import { count } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Async, DataTable, PageHeader } from '../../components/ui';

const REFRESH_MS = 5000;

function ms(v: number | null): string {
  if (v === null) return '—';
  return v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(1)} ms`;
}

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** Readiness, and request rate and latency per route over the last minute (from the service's metrics). */
export default function Health() {
  const health = useApi(() => call(client.GET('/api/v1/admin/health')), []);
  useEffect(() => {
    const timer = setInterval(health.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [health.reload]);
  return (
    <>
      <PageHeader title="Service health">
        <span class="muted small">Refreshed every {REFRESH_MS / 1000} s</span>
      </PageHeader>
      <Async state={health}>
        {(h) => (
          <>
            <section class="stats" aria-label="This node">
              <div class="stat">
                <span class="stat-label">Readiness</span>
                <span class="stat-value">
                  {h.ready ? (
                    <span class="badge badge-success">ready</span>
                  ) : (
                    <span class="badge badge-danger">lists loading</span>
                  )}
                </span>
              </div>
              <div class="stat">
                <span class="stat-label">Requests per second</span>
                <span class="stat-value">{h.requests_per_second.toFixed(1)}</span>
              </div>
              <div class="stat">
                <span class="stat-label">Latency p50 / p95 / p99</span>
                <span class="stat-value small">
                  {ms(h.latency_ms.p50)} / {ms(h.latency_ms.p95)} / {ms(h.latency_ms.p99)}
                </span>
              </div>
              <div class="stat">
                <span class="stat-label">Server errors (5xx)</span>
                <span class="stat-value">{count(h.errors)}</span>
              </div>
              <div class="stat">
                <span class="stat-label">Node</span>
                <span class="stat-value small">
                  {h.node}: {h.leader ? 'leader (ingests lists)' : 'follower'}, up {uptime(h.uptime_seconds)}
                </span>
              </div>
            </section>
            <section class="card" aria-labelledby="routes-title">
              <h2 id="routes-title">Routes, last {h.window_seconds} s</h2>
              <DataTable
                rows={h.routes}
                rowKey={(r) => `${r.method} ${r.route}`}
                empty="No requests yet."
                scroll="Routes"
                columns={[
                  { header: 'Route', kind: 'value', cell: (r) => r.route },
                  { header: 'Requests/s', kind: 'num', cell: (r) => r.requests_per_second.toFixed(2) },
                  { header: 'p50', kind: 'num', cell: (r) => ms(r.latency_ms.p50) },
                  { header: 'p95', kind: 'num', cell: (r) => ms(r.latency_ms.p95) },
                  { header: 'p99', kind: 'num', cell: (r) => ms(r.latency_ms.p99) },
                  { header: '5xx', kind: 'num', cell: (r) => count(r.errors) },
                  { header: 'Since start', kind: 'num', cell: (r) => count(r.total) },
                ]}
              />
            </section>
          </>
        )}
      </Async>
    </>
  );
}
