// The sandbox proxy of the apps test host: served from an origin other than the host's, under
// the Content-Security-Policy built from the app's `_meta.ui.csp`. It relays JSON-RPC between the
// host and the app, and writes the app's HTML into an inner frame (which inherits the CSP).
(() => {
  const hostOrigin = new URL(document.referrer).origin;
  const inner = document.createElement('iframe');
  inner.id = 'app';
  inner.style.cssText = 'width:100%;height:100%;border:none';
  inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  document.body.appendChild(inner);
  window.addEventListener('message', (event) => {
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (event.data?.method === 'ui/notifications/sandbox-resource-ready') {
        const frame = inner.contentDocument;
        frame.open();
        frame.write(event.data.params.html);
        frame.close();
      } else {
        inner.contentWindow?.postMessage(event.data, '*');
      }
    } else if (event.source === inner.contentWindow && event.origin === location.origin) {
      window.parent.postMessage(event.data, hostOrigin);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
})();
