export { createPayments } from './payments.js';
export { V1_RECEIPT_HEADER, V2_RECEIPT_HEADER } from './settle.js';
export { MemoryNonceStore, SqlNonceStore, type NonceStore } from './nonces.js';
export { PAYMENT_REQUIRED_HEADER } from './challenge.js';
export { V1_PAYMENT_HEADER, V2_PAYMENT_HEADER } from './decode.js';
export { paymentHeaderFromMcpMeta, mcpPaymentResponse } from './mcp.js';
