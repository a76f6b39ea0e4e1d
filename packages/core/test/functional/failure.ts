import { McpRequestError } from '@typemcp/testing';

/** The JSON-RPC error a TestClient request ended with: its code, and the server's own message. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpRequestError) return { code: error.code, message: error.message.replace(/^\S+ failed with -?\d+: /, '') };
    throw error;
  }
  throw new Error('expected the request to fail');
}
