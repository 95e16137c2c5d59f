// The invite dialog: the link, the short code to type on the home page, "Copy invite"
// (the phone's share sheet where there is one), the link as a QR code drawn by the
// server, and the watch link (a spectator's: it takes no seat). The server says what
// each is (GET /api/tables/{code}/invite; server/invites.py); a private table's needs
// its key, which this page holds from its link or its seat.
import { api, h, toast } from "../api.js";
import { dialogHead } from "../dialog.js";

/** Whether this page may offer the invite: it holds the key, or the table is public. */
export function canInvite(tv) {
  // A practice table (server/practice.py) is one person's, with no seat to offer.
  return !!tv.table && !tv.table.practice && (tv.table.public || (tv.me !== null && !!tv.key));
}

function absolute(path) {
  return path ? `${location.origin}${path}` : null;
}

/** The text "Copy invite" hands over: the link, and the code to type instead. */
export function inviteText(shared) {
  const code = shared.invite ? ` — or type ${shared.invite} on ${location.origin}` : "";
  return `Play Nertz with me: ${absolute(shared.link)}${code}`;
}

/** Hand ``text`` on: the share sheet on a phone (Web Share), else the clipboard. */
async function handOn(text, url) {
  if (navigator.share && matchMedia("(pointer: coarse)").matches) {
    try {
      await navigator.share({ title: "Nertz", text, url });
      return "shared";
    } catch (error) {
      if (error.name === "AbortError") return null; // the person closed the sheet
    }
  }
  await navigator.clipboard.writeText(text);
  return "copied";
}

function copyButton(label, text, url, done) {
  return h(
    "button",
    {
      type: "button",
      class: "copy-btn",
      onclick: async () => {
        try {
          const how = await handOn(text, url);
          if (how) toast(how === "shared" ? "Invite shared" : done);
        } catch {
          toast("The clipboard is not available here: select the text and copy it.", "error", 5000);
        }
      },
    },
    label,
  );
}

/** The QR code the server drew (SVG), inline so that it takes the page's colours. */
async function qrCode(path) {
  const response = await fetch(path);
  if (!response.ok) return h("p", { class: "error", text: "The QR code could not be loaded." });
  const svg = new DOMParser().parseFromString(
    await response.text(),
    "image/svg+xml",
  ).documentElement;
  if (svg.nodeName !== "svg")
    return h("p", { class: "error", text: "The QR code could not be read." });
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "QR code of the invite link");
  return h("div", { class: "qr-box" }, document.importNode(svg, true));
}

/** Open the invite dialog in ``dialog`` (the table's one <dialog>). */
export async function showInvite(tv, dialog) {
  let shared;
  try {
    const key = tv.key && !tv.table.public ? `?key=${encodeURIComponent(tv.key)}` : "";
    shared = await api("GET", `/api/tables/${encodeURIComponent(tv.code)}/invite${key}`);
  } catch (error) {
    toast(error.message, "error", 5000);
    return;
  }
  const link = absolute(shared.link);
  const watch = absolute(shared.watch);
  tv.opensDialog("invite");
  dialog.replaceChildren(
    dialogHead("Invite people"),
    shared.invite
      ? h(
          "p",
          { class: "invite-code-line" },
          "Code to type on the home page: ",
          h("strong", { class: "invite-code", text: shared.invite }),
        )
      : null,
    h("p", {}, "Link: ", h("code", { class: "invite-link", text: link })),
    h(
      "div",
      { class: "invite-actions" },
      copyButton(
        "Copy invite",
        inviteText(shared),
        link,
        "Invite copied: paste it to your friends",
      ),
      watch
        ? copyButton(
            "Copy watch link",
            `Watch my Nertz table: ${watch}`,
            watch,
            "Watch link copied",
          )
        : null,
    ),
    h("div", { class: "qr-slot" }),
    watch
      ? h(
          "p",
          { class: "watch-line" },
          "To watch without a seat: ",
          h("code", { class: "watch-link", text: watch }),
        )
      : null,
  );
  if (!dialog.open) dialog.showModal();
  const qr = await qrCode(shared.qr);
  const slot = dialog.querySelector(".qr-slot");
  if (slot) slot.replaceWith(qr); // unless the dialog moved on meanwhile
}
