export { createMcpServer } from './server.js';
export { registerMcpRoute, prefersEventStream } from './http.js';
export { restUrl, pipelineHeaders, type McpConnection } from './call.js';
export { buildTools, toolSpecs } from './tools.js';
