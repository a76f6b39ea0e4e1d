export { auditLog, AuditArguments, SENSITIVE } from './auditLog';
export type { AuditCaller, AuditEntry, AuditLogger, AuditLogOptions } from './auditLog';
export { jsonLinesLogger } from './jsonLinesLogger';
