export { classify } from './classify';
export type { ClassifiedMessage } from './classify';
export { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, negotiateVersion, featuresOf } from './versions';
export type { HandshakeVersion, VersionFeatures } from './versions';
export type * from './messages';
export { PendingRequests } from './PendingRequests';
export type { OutgoingRequestOptions } from './PendingRequests';
export type { Transport, TransportSendOptions } from './Transport';
