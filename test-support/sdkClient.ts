/**
 * Connects the official SDK client so that the conversation really runs at a chosen protocol
 * version. The SDK client (1.32) has no option for it: it always asks for its
 * LATEST_PROTOCOL_VERSION and accepts any answer in its SUPPORTED_PROTOCOL_VERSIONS. So the
 * outgoing `initialize` request is rewritten on the wire to ask for the pinned version, and the
 * server's answer is checked to be exactly that version.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RecordingTransport } from './recordingTransport';

export interface ConnectSdkClientOptions {
  /** One of SUPPORTED_SPEC_VERSIONS; 2026-07-28 has no handshake the SDK client could pin. */
  protocolVersion: string;
  /** Needed before the client may answer sampling, elicitation or roots requests. */
  capabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  /** Other SDK client options (listChanged handlers, validators, …). */
  clientOptions?: Omit<ClientOptions, 'capabilities'>;
}

export interface SdkClientConnection {
  client: Client;
  recorder: RecordingTransport;
}

/** Rewrites `params.protocolVersion` of every outgoing `initialize` request. */
export function pinProtocolVersion(protocolVersion: string): (message: JSONRPCMessage) => JSONRPCMessage {
  return (message) => {
    if (!('method' in message) || message.method !== 'initialize' || !('id' in message)) return message;
    return { ...message, params: { ...message.params, protocolVersion } };
  };
}

export async function connectSdkClient(transport: Transport, options: ConnectSdkClientOptions): Promise<SdkClientConnection> {
  const { protocolVersion } = options;
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) {
    throw new Error(
      `The SDK client cannot speak ${protocolVersion}: it accepts only ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} ` +
        `(2026-07-28 has no initialize handshake; talk to it with raw JSON-RPC instead)`,
    );
  }
  const recorder = new RecordingTransport(transport, { rewriteOutgoing: pinProtocolVersion(protocolVersion) });
  const client = new Client(options.clientInfo ?? { name: 'sdk-interop-client', version: '0.0.0' }, {
    ...options.clientOptions,
    capabilities: options.capabilities ?? {},
  });
  await client.connect(recorder);

  const answer = recorder.received.find((r) => r.requestMethod === 'initialize')?.message;
  const answered = answer && 'result' in answer ? answer.result.protocolVersion : undefined;
  if (answered !== protocolVersion) {
    await client.close();
    throw new Error(`Asked the server for protocol ${protocolVersion} but it answered ${String(answered)}`);
  }
  return { client, recorder };
}
