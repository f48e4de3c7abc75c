/** The largest request body any route reads (a batch of screenings is the biggest). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
