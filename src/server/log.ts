import pino, { type Logger } from 'pino';
import { V1_PAYMENT_HEADER, V2_PAYMENT_HEADER } from '../billing/x402/decode.js';

/**
 * Structured JSON logs. Redaction is a second line of defence: the code never passes tokens,
 * payment headers, webhook secrets or searched values to the logger in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'screening' },
    redact: {
      paths: [
        'authorization',
        'headers.authorization',
        '*.authorization',
        'token',
        'secret',
        '*.secret',
        ...[V1_PAYMENT_HEADER, V2_PAYMENT_HEADER].flatMap((h) => [h, `*["${h}"]`]),
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
