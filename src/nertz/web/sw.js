// The service worker (served as /sw.js, scope /; server/installable.py fills in SHELL,
// the page and every file of the client, and VERSION, made from their contents). It
// keeps the client's shell so the app opens with the network gone, and says so there.
// Pages and the client's files come from the network when it answers (always the
// newest), else from the cache; the API and the table's socket are never touched.
const SHELL = "__SHELL__";
const CACHE = "nertz-shell-__VERSION__";

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

async function precache() {
  const cache = await caches.open(CACHE);
  // "/" is the page only when asked for HTML (a script asking gets the server's status).
  await cache.put("/", await fetch("/", { headers: { Accept: "text/html" } }));
  await cache.addAll(SHELL.filter((url) => url !== "/"));
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((k) => k.startsWith("nertz-shell-") && k !== CACHE)
            .map((k) => caches.delete(k)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // Every page of the client is the one page (its router shows the screen).
    event.respondWith(fromNetwork(request, "/"));
  } else if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") {
    event.respondWith(fromNetwork(request, url.pathname));
  }
});

async function fromNetwork(request, key) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  } catch {
    const cached = await caches.match(key);
    return cached || Response.error();
  }
}
