import { createHash } from 'node:crypto';
import type { EntityType, ListType, Metadata } from '../../engine/model.js';

/** Webhook event payloads (SPEC.md "Events") and their deterministic ids. */

/** A monitored value's `entity_type`: the `monitor` name of a kind of the table (src/core/kinds.ts). */
export type MonitoredEntityType = string;

export const EVENT_TYPES = ['entity.listed', 'entity.delisted', 'entity.relisted', 'subject.alert', 'test'] as const;
export type WebhookEventType = (typeof EVENT_TYPES)[number];

interface Listing {
  list: string;
  list_name: string;
  list_type: ListType;
  value: string;
  source_url: string | null;
  metadata: Metadata;
}

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  created_at: string;
  /** The list change reported (as in the changes feed); null for test events and ENS resolutions. */
  change_id: string | null;
  monitored_entity: { id: number | null; entity_type: string; value: string; label: string | null };
  listing: Listing;
  /** `subject.alert` only: the customer's subject a list change matched, and the alert it opened. */
  subject?: EventSubject;
}

/** The subject of a `subject.alert` event. */
interface EventSubject {
  external_id: string;
  type: string;
  names: string[];
  alert_id: number;
  /** The subject's name or value that matched. */
  screened_value: string;
  score: number;
}

/** A row of `webhook_events`: the payload in parts (see migration 020). */
export interface EventRow {
  id: string;
  type: WebhookEventType;
  created_at: string;
  change_id: string | null;
  monitored_entity_id: number | null;
  entity_type: string;
  value: string;
  label: string | null;
  listing: string;
  /** JSON text of the EventSubject of a `subject.alert`; null or absent otherwise. */
  subject?: string | null;
}

/**
 * `evt_` + 32 hex digits of SHA-256 over what makes an event unique: customer, monitored entity,
 * list, the listed value's canonical identity, change kind, and the list version with its
 * ingestion time (or, for a new ENS resolution, the resolution's sequence number). Versions are
 * content hashes, so a list that returns to an earlier content repeats a version: the ingestion
 * time, committed with the change, tells the two changes apart. A change delivered twice (the
 * loaders' at-least-once sinks) or re-run after a crash yields the same id, and the outbox keeps
 * one row.
 */
export function eventId(p: {
  customerId: number;
  monitoredEntityId: number;
  list: string;
  entityType: EntityType;
  canonicalValue: string;
  kind: string;
  version: string;
  /** The change's ingestion time (ListChange.at); '' for ENS resolutions. */
  at: string;
}): string {
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        p.customerId,
        p.monitoredEntityId,
        p.list,
        p.entityType,
        p.canonicalValue,
        p.kind,
        p.version,
        p.at,
      ]),
    )
    .digest('hex');
  return `evt_${h.slice(0, 32)}`;
}

export function eventFromRow(row: EventRow): WebhookEvent {
  return {
    id: row.id,
    type: row.type,
    created_at: row.created_at,
    change_id: row.change_id ?? null,
    monitored_entity: { id: row.monitored_entity_id, entity_type: row.entity_type, value: row.value, label: row.label },
    listing: JSON.parse(row.listing) as Listing,
    ...(row.subject ? { subject: JSON.parse(row.subject) as EventSubject } : {}),
  };
}

/** The exact bytes POSTed: built from the stored row, identical at every attempt. */
export function eventBody(row: EventRow): string {
  return JSON.stringify(eventFromRow(row));
}
