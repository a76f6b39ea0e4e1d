/** Text as HTML: every character that could open markup or end an attribute is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; display: grid; place-items: center; min-height: 100vh; background: Canvas; color: CanvasText; }
  main { max-width: 30rem; padding: 2rem; border: 1px solid GrayText; border-radius: 0.75rem; margin: 1rem; }
  h1 { font-size: 1.35rem; margin-top: 0; }
  .domain { font-size: 1.25rem; font-weight: 700; font-family: ui-monospace, monospace; padding: 0.5rem 0.75rem; border: 2px solid CanvasText; border-radius: 0.5rem; display: inline-block; word-break: break-all; }
  .warning { border-left: 4px solid #b45309; padding-left: 0.75rem; }
  ul { padding-left: 1.25rem; }
  label { display: block; margin-top: 0.75rem; font-weight: 600; }
  input { font: inherit; padding: 0.4rem; width: 100%; box-sizing: border-box; }
  .actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: 0.5rem 1.25rem; border-radius: 0.5rem; border: 2px solid CanvasText; background: Canvas; color: CanvasText; cursor: pointer; }
  button.primary { background: CanvasText; color: Canvas; }
  button:focus-visible, input:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  .error { color: #b91c1c; font-weight: 600; }
`;

/** A complete page: language, title, one `main` landmark, the shared style. */
export function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

/** A page that says what went wrong, where no redirect to the client may happen. */
export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}
