import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { openAuditStore, type AuditStore } from '../../src/audit/store.js';

/**
 * An embedded audit store for the whole test file (chDB allows one data directory per process),
 * opened before the tests and removed after them; inserts only on flush. The accessor's `reopen`
 * opens the same directory again after the store was closed.
 */
export function fileAuditStore(prefix: string): (() => AuditStore) & { reopen(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const open = () => openAuditStore(loadConfig({ DATA_DIR: dir, AUDIT_BATCH_ROWS: '1000', AUDIT_FLUSH_MS: '60000' }));
  let store: AuditStore;
  before(async () => {
    store = await open();
  });
  after(async () => {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return Object.assign(() => store, {
    async reopen() {
      store = await open();
    },
  });
}
