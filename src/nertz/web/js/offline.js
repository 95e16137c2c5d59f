// The app offline: the service worker (/sw.js, scope /) keeps the client's shell, so
// the page opens without a network; this notice says the network is gone, for as long
// as it is: while the browser says it is offline, or since a request found no server
// (until one finds it again, or the browser says it is back online).
import { h, NETWORK_EVENT } from "./api.js";

/** Register the service worker and keep the offline notice in step with the network. */
export function watchOffline() {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      /* not installable here (a private window): the page works as before */
    });
  }
  const notice = h(
    "div",
    { class: "offline", role: "status", hidden: true },
    "You are offline: tables, scores and sheets come back when the network does.",
  );
  document.body.prepend(notice);
  let answered = true; // the last request reached the server (none yet: assume so)
  const update = () => {
    notice.hidden = navigator.onLine && answered;
  };
  window.addEventListener("online", () => {
    answered = true;
    update();
  });
  window.addEventListener("offline", update);
  window.addEventListener(NETWORK_EVENT, (e) => {
    answered = e.detail.reached;
    update();
  });
  update();
}
