export { createMcpServer, SERVER_INFO, type McpServerFactory, type McpServerOptions } from './server.js';
export { registerMcpRoute, prefersEventStream, MCP_PATH } from './http.js';
export {
  callTool,
  restUrl,
  pipelineHeaders,
  bearerHeader,
  META_AUTHORIZATION,
  META_PAYMENT,
  META_PAYMENT_REQUIRED,
  META_PAYMENT_RESPONSE,
  type McpConnection,
} from './call.js';
export { buildTools, TOOL_SPECS, WRAP_KEY, type McpTool, type ToolSpec } from './tools.js';
