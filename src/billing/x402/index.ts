export { createPayments, V1_RECEIPT_HEADER, V2_RECEIPT_HEADER, type PaymentsDeps } from './payments.js';
export { MemoryNonceStore, SqlNonceStore, type NonceStore, type SqlDb } from './nonces.js';
export { PAYMENT_REQUIRED_HEADER, type ServiceInfo, type ChallengeBodyV1, type ChallengeOption } from './challenge.js';
export { V1_PAYMENT_HEADER, V2_PAYMENT_HEADER } from './decode.js';
export { x402Settings, type X402Settings } from './settings.js';
export { paymentHeaderFromMcpMeta, mcpPaymentResponse } from './mcp.js';
