import pino, { type Logger } from 'pino';


/**
 * Structured JSON logs. Redaction is a second line of defence: the code never passes tokens,
 * payment headers, webhook secrets or searched values to the logger in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'screening' },
    redact: {
      paths: ['authorization', 'headers.authorization', '*.authorization', 'token', 'secret', '*.secret', 'x-payment', 'payment-signature', '*["x-payment"]', '*["payment-signature"]'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
