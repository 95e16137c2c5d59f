// The app offline: the service worker (/sw.js, scope /) keeps the client's shell, so
// the page opens without a network; this notice says the network is gone, for as long
// as it is.
import { h } from "./api.js";

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
  const update = () => {
    notice.hidden = navigator.onLine;
  };
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  update();
}
