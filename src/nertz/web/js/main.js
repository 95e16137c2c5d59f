// The router: one page, the path names the screen.
import { showAccount } from "./account.js";
import { showDaily } from "./daily.js";
import { showHome } from "./home.js";
import { showLearn } from "./learn.js";
import { watchOffline } from "./offline.js";
import { showMatch, showMe } from "./me.js";
import { showPlayer, showRatings } from "./ratings.js";
import { showReplay } from "./replay/page.js";
import { showRules } from "./rules.js";
import { showSheet } from "./sheet.js";
import { displaySettings } from "./storage.js";
import { showTable } from "./table.js";

const app = document.getElementById("app");
const settings = displaySettings();
document.body.classList.toggle("four-colour", !!settings.fourColour);
document.body.classList.toggle("large", !!settings.large);

watchOffline();

const path = location.pathname;
const table = path.match(/^\/t\/([A-Za-z0-9]+)\/?$/);
const match = path.match(/^\/matches\/([A-Za-z0-9]+)\/(\d+)\/?$/);
const sheet = path.match(/^\/sheet(?:\/([A-Za-z0-9_-]+))?\/?$/);
const replay = path.match(/^\/replay(?:\/([A-Za-z0-9]+))?\/?$/);
const daily = path.match(/^\/daily(?:\/(\d{4}-\d{2}-\d{2}))?\/?$/);
const player = path.match(/^\/p\/([^/]+)\/?$/);
if (table) {
  showTable(app, table[1].toUpperCase());
} else if (path === "/me" || path === "/me/") {
  showMe(app);
} else if (path === "/account" || path === "/account/") {
  showAccount(app);
} else if (match) {
  showMatch(app, match[1], Number(match[2]));
} else if (path === "/learn" || path === "/learn/") {
  showLearn(app);
} else if (path === "/rules" || path === "/rules/") {
  showRules(app);
} else if (replay) {
  showReplay(app, replay[1] || null);
} else if (sheet) {
  showSheet(app, sheet[1] || null);
} else if (daily) {
  showDaily(app, daily[1] || null);
} else if (path === "/ratings" || path === "/ratings/") {
  showRatings(app);
} else if (player) {
  showPlayer(app, decodeURIComponent(player[1]));
} else {
  showHome(app);
}
