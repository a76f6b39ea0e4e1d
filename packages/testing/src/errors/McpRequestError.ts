/** The server answered a request with a JSON-RPC error: `code` and `data` are the server's. The client's own, so either package's `instanceof` holds. */
export { McpRequestError } from '@typemcp/client';
