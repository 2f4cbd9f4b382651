import { createHash } from "node:crypto"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

/** Text made safe to put in HTML content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

// One small stylesheet for every page: system fonts, readable contrast, visible focus, no external assets.
const style = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #f6f7f9; --card: #fff; --muted: #59636e; --accent: #0b5cad;
  --error: #a4161a; --border: #d0d7de; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --card: #161b22; --muted: #9198a1;
  --accent: #58a6ff; --error: #ff7b72; --border: #30363d; } }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.5; }
header { padding: .75rem 1.5rem; border-bottom: 1px solid var(--border); background: var(--card); display: flex;
  justify-content: space-between; align-items: center; }
header strong { font-size: 1.1rem; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--border); border-radius: 6px; }
button, .button { display: inline-block; margin-top: 1rem; padding: .5rem 1rem; font: inherit; font-weight: 600;
  color: #fff; background: var(--accent); border: 0; border-radius: 6px; cursor: pointer; text-decoration: none; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.error { color: var(--error); font-weight: 600; }
.muted { color: var(--muted); }
.or { margin: 1.25rem 0 0; }
table { width: 100%; border-collapse: collapse; } th, td { text-align: left; padding: .25rem .5rem;
  border-bottom: 1px solid var(--border); }
`

/** A page: content, plus the hashes of the inline scripts it runs (the only scripts its CSP allows). */
export interface Page {
  readonly title: string
  readonly body: string
  readonly script?: string | undefined
  /**
   * Origins besides this server's that a form of the page may lead to: where the answer to its post redirects
   * (browsers hold that redirect to `form-action` too).
   */
  readonly formTargets?: ReadonlyArray<string> | undefined
}

/**
 * A complete HTML page with a strict Content-Security-Policy: no external resources, only this page's own inline
 * style and script (by hash), requests and form posts to this origin only (forms also to `formTargets`), never
 * framed.
 */
export const htmlResponse = (page: Page, status = 200): HttpServerResponse.HttpServerResponse => {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Gatehouse</title>
<style>${style}</style>
</head>
<body>
<header><strong>Gatehouse</strong><span class="muted">management plane</span></header>
<main>
${page.body}
</main>
${page.script === undefined ? "" : `<script>${page.script}</script>`}
</body>
</html>
`
  const csp = [
    "default-src 'none'",
    `style-src ${hashOf(style)}`,
    ...(page.script === undefined ? [] : [`script-src ${hashOf(page.script)}`]),
    "connect-src 'self'",
    ["form-action 'self'", ...(page.formTargets ?? []).map((target) => new URL(target).origin)].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; ")
  return HttpServerResponse.text(html, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": csp,
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "cache-control": "no-store"
    }
  })
}
