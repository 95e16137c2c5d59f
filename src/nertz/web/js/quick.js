// Quick match on the home page (issue 26, point 3; server/http/quick_api.py): one
// button enters the rated queue with a mode and a table size range, a waiting panel
// shows the wait and the countdown until bots fill the empty seats (``bots_in``), Leave
// takes you out, and once paired the table page opens with your seat.
import { api, h, toast } from "./api.js";
import { deviceHeaders } from "./device.js";
import { openSeated } from "./seating.js";

const POLL_MS = 1000;

function seconds(s) {
  return `${Math.max(0, Math.ceil(s))} s`;
}

/** The "Quick match" section. ``account`` (a promise of the signed-in account or
 * null) decides between the button and the way to sign in. */
export function quickMatch(account) {
  const mode = h(
    "select",
    { name: "quick-mode", id: "quick-mode" },
    h("option", { value: "solo", text: "solo" }),
    h("option", { value: "partners", text: "partners" }),
  );
  const sizes = [2, 3, 4, 5, 6, 7, 8];
  const low = h(
    "select",
    { name: "quick-low", id: "quick-low", "aria-label": "fewest players" },
    sizes.map((n) => h("option", { value: n, text: n })),
  );
  const high = h(
    "select",
    { name: "quick-high", id: "quick-high", "aria-label": "most players" },
    sizes.map((n) => h("option", { value: n, text: n })),
  );
  low.value = "2";
  high.value = "4";
  const rating = h("span", { class: "quick-rating", id: "quick-rating" });
  const go = h("button", {
    type: "button",
    class: "primary",
    id: "quick-match",
    text: "Quick match",
  });
  const choose = h(
    "div",
    { class: "quick-choose" },
    go,
    " ",
    h("label", {}, "Mode ", mode),
    " ",
    h("label", {}, "Players ", low, " to ", high),
    " ",
    rating,
  );
  const waited = h("span", { class: "quick-waited", id: "quick-waited" });
  const botsIn = h("span", { class: "quick-bots-in", id: "quick-bots-in" });
  const leave = h("button", { type: "button", id: "quick-leave", text: "Leave" });
  const panel = h(
    "div",
    { class: "quick-waiting", id: "quick-waiting", hidden: true, role: "status" },
    h("p", {}, "Looking for players… waited ", waited, ". ", botsIn),
    leave,
  );
  const signIn = h(
    "p",
    { class: "quick-sign-in", hidden: true },
    "Quick match is rated: ",
    h("a", { href: "/account", text: "sign in or make an account" }),
    " to play strangers at your level.",
  );
  let timer = null;

  function showRatings(ratings) {
    if (ratings) rating.textContent = `Your rating: ${ratings[mode.value]} (${mode.value})`;
  }
  mode.addEventListener("change", () => {
    showRatings(rating.ratings);
    // Partnerships are two seats of two at least (R40): four people.
    if (mode.value === "partners" && Number(low.value) < 4) low.value = "4";
    if (Number(high.value) < Number(low.value)) high.value = low.value;
  });

  function show(state) {
    if (state.ratings) {
      rating.ratings = state.ratings;
      showRatings(state.ratings);
    }
    if (state.state === "seated") {
      stop();
      openSeated(state);
      return;
    }
    if (state.state === "refused") toast(state.reason, "error", 8000);
    const waiting = state.state === "waiting";
    panel.hidden = !waiting;
    choose.hidden = waiting;
    if (!waiting) return stop();
    waited.textContent = seconds(state.waited_s);
    botsIn.textContent =
      state.bots_in > 0
        ? `Bots fill the empty seats in ${seconds(state.bots_in)}.`
        : "Bots are taking the empty seats…";
    if (timer === null) timer = setInterval(poll, POLL_MS);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  async function poll() {
    try {
      show(await api("GET", "/api/quick", undefined, deviceHeaders()));
    } catch (error) {
      stop();
      panel.hidden = true;
      choose.hidden = false;
      toast(error.message, "error", 6000);
    }
  }

  go.addEventListener("click", async () => {
    if (Number(low.value) > Number(high.value)) {
      return toast("The fewest players must not be more than the most.", "error");
    }
    go.disabled = true;
    try {
      const body = { mode: mode.value, low: Number(low.value), high: Number(high.value) };
      show(await api("POST", "/api/quick", body, deviceHeaders()));
    } catch (error) {
      toast(error.message, "error", 6000);
    } finally {
      go.disabled = false;
    }
  });
  leave.addEventListener("click", async () => {
    stop();
    try {
      show(await api("DELETE", "/api/quick"));
    } catch (error) {
      toast(error.message, "error", 6000);
    }
  });

  const section = h(
    "section",
    { class: "quick-home" },
    h("h2", { text: "Quick match" }),
    h("p", {
      text: "A rated match with players near your rating; bots fill the seats nobody takes after a short wait.",
    }),
    choose,
    panel,
    signIn,
  );
  account.then(
    (found) => {
      if (!found) {
        choose.hidden = true;
        signIn.hidden = false;
        return;
      }
      poll(); // back on the home page while waiting (another tab): the same state
    },
    () => {},
  );
  return section;
}
