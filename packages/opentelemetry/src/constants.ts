/** The instrumentation scope of every tracer and meter this package asks for. */
export const SCOPE_NAME = '@typemcp/opentelemetry';
export const SCOPE_VERSION = '0.1.0';

// Attribute names of the MCP semantic conventions (OpenTelemetry GenAI conventions, `model/mcp`).
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const MCP_SESSION_ID = 'mcp.session.id';
export const MCP_RESOURCE_URI = 'mcp.resource.uri';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ERROR_TYPE = 'error.type';
export const NETWORK_TRANSPORT = 'network.transport';
export const CLIENT_ADDRESS = 'client.address';
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';

/** TypeMCP's own: the 2026-07-28 `resultType` of a result (`complete` or `input_required`). */
export const MCP_RESPONSE_RESULT_TYPE = 'mcp.response.result_type';

/** `gen_ai.operation.name` of a tool call. */
export const EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a `CallToolResult` with `isError: true`. */
export const TOOL_ERROR = 'tool_error';
/** `mcp.method.name` of a method the server does not have: the client's name for it stays out of span names and metrics. */
export const OTHER = '_OTHER';

/**
 * JSON-RPC errors the conventions do not count as errors of the server: the client sent
 * something unparsable, invalid, an unknown method, invalid params, or asked for a resource
 * that does not exist. Their spans keep the code in `error.type` with an unset status.
 */
export const NOT_SERVER_ERRORS: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32002]);

// Metrics.
export const OPERATION_DURATION = 'mcp.server.operation.duration';
/** TypeMCP's own: the conventions define no in-flight gauge for MCP; named like `http.server.active_requests`. */
export const ACTIVE_REQUESTS = 'mcp.server.active_requests';
/** The buckets the conventions advise for `mcp.server.operation.duration`, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Methods whose `params.uri` names a resource (`mcp.resource.uri`). */
export const RESOURCE_METHODS: ReadonlySet<string> = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);
