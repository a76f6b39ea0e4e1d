export { bytesToBase64, bytesToBase64url, base64urlToBytes, base64urlToText, textToBase64url } from './base64';
export { constantTimeEqual, hmacSha256, randomToken, sha256Base64url } from './crypto';
export { laterTurn, nextTurn, unrefTimer } from './timers';
export { writeStderr } from './stderr';
