import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Loaded } from '../lib/use-api';

/** Small building blocks shared by the pages. Every value is rendered as text (never as HTML). */

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </header>
  );
}

export function Alert({ kind, children }: { kind: 'error' | 'info' | 'success'; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/**
 * Loading, error and content states of a `useApi` result. With `fresh`, a reload (new filters)
 * shows that it loads in place of the previous answer, which no longer matches what was asked.
 */
export function Async<T>({
  state,
  fresh,
  children,
}: {
  state: Loaded<T>;
  fresh?: boolean;
  children: (data: T) => ComponentChildren;
}) {
  if (state.error && state.data === undefined) {
    return (
      <Alert kind="error">
        {state.error.message}{' '}
        <button type="button" class="link" onClick={state.reload}>
          Try again
        </button>
      </Alert>
    );
  }
  if (state.data === undefined || (fresh && state.loading))
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  return (
    <>
      {state.error ? <Alert kind="error">{state.error.message}</Alert> : null}
      {children(state.data)}
    </>
  );
}

function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <button type="button" class="secondary" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A secret shown once (new token, webhook signing secret), with a copy button. */
export function SecretOnce({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <section class="secret" aria-label={title}>
      <h2>{title}</h2>
      <p>Copy it now: it is shown only once and cannot be retrieved later.</p>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret">
          {secret}
        </code>
        <CopyButton text={secret} />
      </div>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

/** A modal dialog (native <dialog>: focus stays inside, Escape closes). */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    d.showModal();
    return () => d.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={onClose} onCancel={onClose}>
      <header class="dialog-header">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </header>
      {children}
    </dialog>
  );
}

/** A dialog's confirm and cancel buttons; the confirm button is disabled while `busy`. */
export function DialogActions({
  label,
  danger,
  busy,
  onConfirm,
  onCancel,
}: {
  label: string;
  danger?: boolean;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div class="page-actions">
      <button type="button" class={danger ? 'danger' : undefined} disabled={busy} onClick={onConfirm}>
        {label}
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** A labelled control; the hint sits below it, outside the label (which stays the control's short name). */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label class="field-control">
        <span class="field-label">{label}</span>
        {children}
      </label>
      {hint ? <span class="field-hint">{hint}</span> : null}
    </div>
  );
}

/** A filter's select: "any" first (the empty value), then each option as [value, label]. */
export function Choice({
  label,
  any,
  value,
  options,
  onChange,
}: {
  label: string;
  any: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{any}</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A source URL from list data, as a link only when it is http(s) (a list could carry anything). */
export function SourceLink({ url }: { url: string | null | undefined }) {
  if (!url) return <>—</>;
  if (!/^https?:\/\//i.test(url)) return <span class="value">{url}</span>;
  return (
    <a class="value" href={url} target="_blank" rel="noopener noreferrer">
      {url}
    </a>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Runs an action from a button or form, showing its error; `busy` while it runs. */
export function useAction(): {
  busy: boolean;
  error: string | null;
  run: (fn: () => Promise<void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

/** What a range with From after To is told (the API's own answer is validator text). */
export const BACKWARDS_RANGE = 'The From date is after the To date: choose a From on or before the To date.';

/** Date range inputs (UTC days, inclusive), as the API's `from`/`to`. */
export function DateRange({
  from,
  to,
  onChange,
}: {
  from: string;
  to: string;
  onChange: (r: { from: string; to: string }) => void;
}) {
  return (
    <div class="date-range">
      <Field label="From">
        <input type="date" value={from} max={to} onChange={(e) => onChange({ from: e.currentTarget.value, to })} />
      </Field>
      <Field label="To">
        <input type="date" value={to} min={from} onChange={(e) => onChange({ from, to: e.currentTarget.value })} />
      </Field>
    </div>
  );
}

/** A wide table that scrolls sideways on small screens; focusable so that keyboard users can scroll it. */
function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** `num`: right-aligned figures; `value`: a value from the data (monospace); `actions`: buttons (the header is for screen readers). */
  kind?: 'num' | 'value' | 'actions';
}

/**
 * A table of rows, or `empty` when there are none. With `scroll` (its accessible name) the table
 * scrolls sideways on small screens.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  empty,
  scroll,
  compact,
  testId,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  empty: string;
  scroll?: string;
  compact?: boolean;
  testId?: string;
}) {
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  const table = (
    <table class={compact ? 'table compact' : 'table'} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.header} class={c.kind === 'num' ? 'num' : undefined}>
              {c.kind === 'actions' ? <span class="sr-only">{c.header}</span> : c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)}>
            {columns.map((c) => (
              <td key={c.header} class={c.kind}>
                {c.cell(r)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return scroll ? <TableScroll label={scroll}>{table}</TableScroll> : table;
}

/**
 * Previous / next over keyset pages: `cursors` holds the cursor of each page visited (undefined for
 * the first), so going back needs no cursor of its own.
 */
export function KeysetPager({
  label,
  cursors,
  setCursors,
  next,
  back = 'Previous',
  forward = 'Next',
}: {
  label: string;
  cursors: (string | undefined)[];
  setCursors: (c: (string | undefined)[]) => void;
  next: string | null;
  back?: string;
  forward?: string;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button
        type="button"
        class="secondary"
        disabled={cursors.length === 1}
        onClick={() => setCursors(cursors.slice(0, -1))}
      >
        {back}
      </button>
      <span class="muted small">Page {cursors.length}</span>
      <button
        type="button"
        class="secondary"
        disabled={!next}
        onClick={() => setCursors([...cursors, next ?? undefined])}
      >
        {forward}
      </button>
    </nav>
  );
}
