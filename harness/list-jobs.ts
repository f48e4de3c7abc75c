/** An HTTP answer read as JSON (or text). */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A list operation's answer as if its request had waited for the end: a 202 (the job was still
 * running when the request's `wait` ran out, as happens on a busy machine) is polled at its
 * `Location` until the job is done (then 200 with the job) or failed (the job as polled, with its
 * status), so that tests assert outcomes, never how fast the machine is.
 */
export async function settled(base: string, answer: Answer, headers: Record<string, string>): Promise<Answer> {
  if (answer.status !== 202) return answer;
  const location = answer.headers.get('location');
  if (!location) throw new Error(`a 202 without a Location: ${JSON.stringify(answer.body)}`);
  for (;;) {
    const res = await fetch(`${base}${location}`, { headers });
    const body = (await res.json()) as { status: string };
    if (body.status === 'done') return { status: 200, headers: res.headers, body };
    if (body.status === 'failed') return { status: res.status, headers: res.headers, body };
    await new Promise((r) => setTimeout(r, 100));
  }
}
