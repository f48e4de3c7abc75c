import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { isDue, nextCheckAt, nextScheduledMinute, PrimarySchedule } from '../../loaders/schedule.js';

const t = (s: string) => new Date(s);

describe('schedule', () => {
  test('fixed UTC minutes: the next one strictly after now, rolling over the hour and the day', () => {
    assert.equal(nextScheduledMinute([5, 35], t('2026-03-01T10:00:00Z')).toISOString(), '2026-03-01T10:05:00.000Z');
    assert.equal(nextScheduledMinute([5, 35], t('2026-03-01T10:05:00Z')).toISOString(), '2026-03-01T10:35:00.000Z');
    assert.equal(nextScheduledMinute([5, 35], t('2026-03-01T10:05:00.001Z')).toISOString(), '2026-03-01T10:35:00.000Z');
    assert.equal(nextScheduledMinute([35, 5], t('2026-03-01T10:36:10Z')).toISOString(), '2026-03-01T11:05:00.000Z');
    assert.equal(nextScheduledMinute([5, 35], t('2026-12-31T23:50:00Z')).toISOString(), '2027-01-01T00:05:00.000Z');
    assert.equal(nextScheduledMinute([0], t('2026-03-01T10:00:00Z')).toISOString(), '2026-03-01T11:00:00.000Z');
  });

  test('PrimarySchedule uses its injected clock and sorts its minutes', () => {
    let now = t('2026-03-01T10:20:00Z');
    const s = new PrimarySchedule([35, 5, 35], () => now);
    assert.deepEqual(s.checkMinutesUtc, [5, 35]);
    assert.equal(s.nextCheckAt().toISOString(), '2026-03-01T10:35:00.000Z');
    now = t('2026-03-01T10:40:00Z');
    assert.equal(s.nextCheckAt().toISOString(), '2026-03-01T11:05:00.000Z');
    assert.throws(() => new PrimarySchedule([]), { message: 'no check minutes given' });
  });

  test('interval cadences count from the last attempt; static lists run once', () => {
    const last = t('2026-03-01T10:00:00Z');
    const now = t('2026-03-01T10:30:00Z');
    const m = [5, 35];
    assert.equal(nextCheckAt('hourly', last, now, m)!.toISOString(), '2026-03-01T11:00:00.000Z');
    assert.equal(nextCheckAt('daily', last, now, m)!.toISOString(), '2026-03-02T10:00:00.000Z');
    assert.equal(nextCheckAt('weekly', last, now, m)!.toISOString(), '2026-03-08T10:00:00.000Z');
    assert.equal(nextCheckAt('scheduled', last, now, m)!.toISOString(), '2026-03-01T10:05:00.000Z');
    assert.equal(nextCheckAt('static', last, now, m), null);
    assert.equal(nextCheckAt('daily', null, now, m), now);
  });

  test('due: never checked, or the next check time has passed', () => {
    const m = [5, 35];
    assert.equal(isDue('static', null, t('2026-03-01T10:30:00Z'), m), true);
    assert.equal(isDue('static', t('2026-03-01T10:00:00Z'), t('2026-03-09T10:30:00Z'), m), false);
    assert.equal(isDue('scheduled', t('2026-03-01T10:06:00Z'), t('2026-03-01T10:34:59Z'), m), false);
    assert.equal(isDue('scheduled', t('2026-03-01T10:06:00Z'), t('2026-03-01T10:35:00Z'), m), true);
    assert.equal(isDue('hourly', t('2026-03-01T10:00:00Z'), t('2026-03-01T10:59:59Z'), m), false);
    assert.equal(isDue('hourly', t('2026-03-01T10:00:00Z'), t('2026-03-01T11:00:00Z'), m), true);
  });
});
