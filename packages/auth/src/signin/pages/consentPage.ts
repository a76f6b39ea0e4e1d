import { escapeHtml, page } from './html';

/** What the consent page shows and posts back. */
export interface ConsentView {
  readonly serviceName: string;
  readonly action: string;
  readonly requestId: string;
  readonly csrf: string;
  readonly userName: string;
  /** The client's name as it gives it (unverified). */
  readonly clientName: string | undefined;
  /** The host the client is verified to be (its metadata document's) or claims (its redirect). */
  readonly clientDomain: string;
  /** Whether the domain is verified: a metadata document's host is; a registration's redirect host is only claimed. */
  readonly domainVerified: boolean;
  /** Where the browser goes after approving. */
  readonly redirectHost: string;
  /** The scopes asked for now, with their descriptions. */
  readonly newScopes: ReadonlyArray<{ readonly name: string; readonly description: string | undefined }>;
  /** The scopes the user allowed this client before. */
  readonly grantedScopes: readonly string[];
}

/**
 * The consent page: who asks (the domain prominently, since the name is whatever the client
 * says), for what, and approve or deny. The form carries the request's id and a CSRF token.
 */
export function consentPage(view: ConsentView): string {
  const name = view.clientName !== undefined && view.clientName !== '' ? view.clientName : view.clientDomain;
  const scopes = view.newScopes
    .map(({ name: scope, description }) => `<li><code>${escapeHtml(scope)}</code>${description !== undefined ? ` — ${escapeHtml(description)}` : ''}</li>`)
    .join('\n');
  // No scope still lets the client act as the user wherever no scope is needed: say so.
  const asked = scopes !== '' ? scopes : `<li>Use ${escapeHtml(view.serviceName)} as you</li>`;
  const granted =
    view.grantedScopes.length === 0
      ? ''
      : `<p>You already allowed it: ${view.grantedScopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(', ')}.</p>`;
  const verified = view.domainVerified
    ? `<p>This application is published at</p>\n<p class="domain" id="client-domain">${escapeHtml(view.clientDomain)}</p>`
    : `<p class="warning">This application registered itself and is <strong>not verified</strong>. After you approve, you are sent to</p>\n<p class="domain" id="client-domain">${escapeHtml(view.clientDomain)}</p>`;
  const sentTo =
    view.domainVerified && view.redirectHost !== view.clientDomain ? `<p>After you approve, you are sent to <strong>${escapeHtml(view.redirectHost)}</strong>.</p>` : '';
  return page(
    `Allow ${name} to use ${view.serviceName}?`,
    `<h1>Allow <span id="client-name">${escapeHtml(name)}</span> to use ${escapeHtml(view.serviceName)}?</h1>
${verified}
${sentTo}
<p>Signed in as <strong>${escapeHtml(view.userName)}</strong>.</p>
<form method="post" action="${escapeHtml(view.action)}">
<fieldset>
<legend>It asks to</legend>
<ul id="scopes">
${asked}
</ul>
</fieldset>
${granted}
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p>Only approve if you started this sign-in and trust this domain.</p>`,
  );
}
