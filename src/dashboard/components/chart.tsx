import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { count } from '../lib/format';

interface ChartSeries {
  label: string;
  values: number[];
  /** A CSS class of the legend swatch and the stroke/fill colour (see styles.css `--series-*`). */
  color: 'primary' | 'danger' | 'neutral';
}

export interface ChartProps {
  title: string;
  /** One label per point: `YYYY-MM-DD` days (a time axis) or category names. */
  labels: string[];
  series: ChartSeries[];
  axis: 'days' | 'categories';
  height?: number;
}

const COLORS: Record<ChartSeries['color'], string> = { primary: '#2563eb', danger: '#c2410c', neutral: '#64748b' };
const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 1 });
const integers = (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? count(v) : ''));
const fromZero = (_u: uPlot, _min: number, max: number): [number, number] => [0, Math.max(max, 1) * 1.1];

/**
 * A uPlot chart (canvas) with a text alternative: the figure is labelled, and its numbers are in a
 * table under "Show data" for screen readers and keyboard users. The first series is drawn as
 * bars; a second series on a day axis as a line with points on its own scale, read on the right
 * (matches are a small fraction of requests).
 */
export function Chart({ title, labels, series, axis, height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  // The plot is rebuilt when the data changes, not each time the page re-renders with equal data.
  const data = JSON.stringify([labels, series, axis, height]);
  useEffect(() => {
    const el = box.current!;
    const xs = axis === 'days' ? labels.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000) : labels.map((_, i) => i);
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: {
          time: axis === 'days',
          range: (_u, min, max) => [
            min - 0.6 * (axis === 'days' ? 86_400 : 1),
            max + 0.6 * (axis === 'days' ? 86_400 : 1),
          ],
        },
        // Counts start at zero: a bar's height is its count.
        ...Object.fromEntries(series.map((_s, i) => [i === 0 ? 'y' : `y${i}`, { range: fromZero }])),
      },
      axes: [
        axis === 'days'
          ? { stroke: '#475569', grid: { show: false } }
          : {
              stroke: '#475569',
              grid: { show: false },
              splits: () => xs,
              values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
              rotate: -30,
              size: 72,
            },
        { stroke: COLORS[series[0].color], grid: { stroke: '#e2e8f0' }, values: integers },
        ...series.slice(1).map((s, i) => ({
          scale: `y${i + 1}`,
          side: 1 as const,
          stroke: COLORS[s.color],
          grid: { show: false },
          values: integers,
        })),
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          scale: i === 0 ? 'y' : `y${i}`,
          stroke: COLORS[s.color],
          fill: i === 0 ? `${COLORS[s.color]}cc` : undefined,
          width: i === 0 ? 0 : 2,
          paths: i === 0 || axis === 'categories' ? bars : undefined,
          points: { show: i > 0 },
        })),
      ],
    };
    const plot = new uPlot(opts, [xs, ...series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data]);
  const id = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class="chart" aria-labelledby={id}>
      <figcaption id={id}>{title}</figcaption>
      <ul class="legend">
        {series.map((s, i) => (
          <li key={s.label}>
            <span class={`swatch swatch-${s.color}`} aria-hidden="true" />
            {s.label}
            {i > 0 ? ' (right axis)' : ''}
          </li>
        ))}
      </ul>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details>
        <summary>Show data</summary>
        <table class="table compact">
          <thead>
            <tr>
              <th scope="col">{axis === 'days' ? 'Day' : 'Name'}</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((l, i) => (
              <tr key={l}>
                <th scope="row">{l}</th>
                {series.map((s) => (
                  <td key={s.label} class="num">
                    {count(s.values[i] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
