export { classify, isPlainObject } from './classify';
export { HEADER_TOKEN_CHARACTERS, isHeaderToken } from './headerToken';
export type { ClassifiedMessage } from './classify';
export {
  HANDSHAKE_VERSIONS,
  LATEST_HANDSHAKE_VERSION,
  MODERN_VERSIONS,
  LATEST_MODERN_VERSION,
  SUPPORTED_VERSIONS,
  isModernVersion,
  VERSION_WITHOUT_HEADER,
  PROTOCOL_VERSION_META,
  isServedVersion,
  revisionOf,
} from './versions';
export type { EraName, HandshakeVersion, ModernVersion, Revision } from './versions';
export type * from './messages';
export { PendingRequests } from './PendingRequests';
export type { OutgoingRequestOptions } from './PendingRequests';
export type { HttpRequestInfo, MessageInfo, Transport, TransportSendOptions } from './Transport';
export type { HttpStage, HttpStageReply, HttpStageRequest } from './HttpStage';
export type { Principal } from './Principal';
export { clip, echo, quote, reasonText, ECHO_LIMIT } from './quote';
export { canonicalJson, questionKeyPrefix } from './questions';
