import { htmlResponse } from "./Html.js"

// Asks the API who is signed in and lists the routes, with the session cookie; signs out with a post to the
// logout endpoint carrying the CSRF token. Without a session it goes to the login page. Without JavaScript the
// Sign out form is a plain GET of the logout endpoint, which answers a browser with a page asking to confirm
// (its form carries the token).
const script = `
const csrf = () => (document.cookie.split("; ").find((c) => c.startsWith("gatehouse_csrf=")) || "").slice(15)
const show = (id, text) => { document.getElementById(id).textContent = text }
fetch("/api/v1/whoami", { credentials: "same-origin" }).then(async (r) => {
  if (r.status === 401) { location.assign("/login?return_to=" + encodeURIComponent(location.pathname)); return }
  const me = await r.json()
  show("who", me.subject + " (" + me.roles.join(", ") + ")")
  const routes = await fetch("/api/v1/route/list", { credentials: "same-origin" })
  if (!routes.ok) { show("routes", "routes: " + routes.status); return }
  const list = await routes.json()
  const body = document.getElementById("route-rows")
  for (const route of list) {
    const row = body.insertRow()
    row.insertCell().textContent = route.alias
    row.insertCell().textContent = route.health ? route.health.status : "unknown"
  }
  show("routes", list.length + " routes")
})
document.getElementById("logout").addEventListener("submit", (event) => {
  event.preventDefault()
  fetch("/api/v1/auth/logout", { method: "POST", credentials: "same-origin", headers: { "x-csrf-token": csrf() } })
    .then((r) => r.json()).then((r) => location.assign(r.redirect || "/login?signed_out=1"))
})
`

/** The minimal admin page at `/`: who is signed in, the routes and their health, and signing out. */
export const homePage = () =>
  htmlResponse({
    title: "Overview",
    body: `<div class="card">
<h1>Overview</h1>
<p>Signed in as <strong id="who">…</strong></p>
<p id="routes" class="muted" role="status">loading routes…</p>
<table><thead><tr><th scope="col">Route</th><th scope="col">Health</th></tr></thead><tbody id="route-rows"></tbody></table>
<form id="logout" method="get" action="/api/v1/auth/logout"><button type="submit">Sign out</button></form>
<p class="muted">API: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a></p>
</div>`,
    script
  })
