// An account that follows the player (server/accounts_api.py): made and signed in to
// with a passkey, never a password. /account is its page: signed out, sign in, make an
// account, or use the recovery code; signed in, the name (rename), the passkeys (add,
// remove), a new recovery code and sign-out. The session is an HttpOnly cookie the
// page never sees; fetch sends it (same origin).
import { api, h, toast } from "./api.js";
import { deviceHeaders, hasDevice } from "./device.js";
import { creationOptions, credentialJSON, requestOptions } from "./passkey.js";
import { saveName } from "./storage.js";

const when = (seconds) => (seconds ? new Date(seconds * 1000).toLocaleString() : "never");

/** The headers of an account request: the device's, when this browser has one, so
 *  its games so far become the account's. */
function headers() {
  return hasDevice() ? deviceHeaders() : {};
}

/** The signed-in account (``{id, name, passkeys, sessions}``), or null. */
export async function currentAccount() {
  const { account } = await api("GET", "/api/account");
  return account;
}

function passkeyError(error) {
  // The browser's own refusals (the person closed the dialog, no authenticator...)
  // say what happened in their name and message.
  if (error && error.name === "NotAllowedError") {
    return new Error("the passkey request was cancelled or timed out; try again");
  }
  if (error && error.name === "SecurityError") {
    return new Error(
      `this browser refuses passkeys for ${location.host}: open the site by its name (localhost, not an address)`,
    );
  }
  return error;
}

async function created(options) {
  try {
    return await navigator.credentials.create({ publicKey: creationOptions(options) });
  } catch (error) {
    throw passkeyError(error);
  }
}

/** Make an account holding ``name`` with a new passkey: ``{account, recovery_code}``. */
export async function createAccount(name) {
  const begun = await api("POST", "/api/account/new", { name }, headers());
  const credential = await created(begun.publicKey);
  return api(
    "POST",
    "/api/account",
    { ceremony: begun.ceremony, credential: credentialJSON(credential) },
    headers(),
  );
}

/** Sign in with a passkey this device (or a phone nearby) holds: ``{account}``. */
export async function signIn() {
  const begun = await api("POST", "/api/account/signin/begin", {}, headers());
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: requestOptions(begun.publicKey) });
  } catch (error) {
    throw passkeyError(error);
  }
  try {
    return await api(
      "POST",
      "/api/account/signin",
      { ceremony: begun.ceremony, credential: credentialJSON(credential) },
      headers(),
    );
  } catch (error) {
    // A passkey of no account here (removed): the browser may forget it, where it can.
    if (error.code === "unknown_passkey" && PublicKeyCredential.signalUnknownCredential) {
      PublicKeyCredential.signalUnknownCredential({
        rpId: begun.publicKey.rpId,
        credentialId: credentialJSON(credential).rawId,
      }).catch(() => {});
    }
    throw error;
  }
}

/** Add a passkey to the signed-in account. */
export async function addPasskey() {
  const begun = await api("POST", "/api/account/passkeys/begin", {});
  const credential = await created(begun.publicKey);
  return api("POST", "/api/account/passkeys", {
    ceremony: begun.ceremony,
    credential: credentialJSON(credential),
  });
}

function page(app, title, ...content) {
  document.title = `Nertz — ${title}`;
  app.replaceChildren(
    h(
      "div",
      { class: "page account" },
      h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
      ...content,
    ),
  );
}

/** The recovery code, shown this once, until the person says they kept it. */
function showCode(app, code, then) {
  page(
    app,
    "Your recovery code",
    h("h1", { text: "Your recovery code" }),
    h("p", {
      text: "Keep this code somewhere safe: it signs in to your account if you lose your passkeys. It is shown only now, and works once (you get a new one when you use it).",
    }),
    h("p", { class: "recovery-code", text: code }),
    h(
      "p",
      {},
      h("button", {
        type: "button",
        class: "primary kept-code",
        onclick: then,
        text: "I have kept it",
      }),
    ),
  );
}

function errorLine() {
  return h("p", { class: "error", role: "alert", hidden: true });
}

function failWith(line, error) {
  line.hidden = false;
  line.textContent = error.message;
}

function signedOut(app, reload) {
  const nameInput = h("input", {
    id: "account-name",
    maxlength: 24,
    autocomplete: "nickname",
    placeholder: "Your name",
  });
  const recoverName = h("input", { id: "recover-name", maxlength: 24, autocomplete: "nickname" });
  const recoverCode = h("input", {
    id: "recover-code",
    maxlength: 40,
    size: 28,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "XXXX-XXXX-XXXX-XXXX-XXXX",
  });
  const signInError = errorLine();
  const createError = errorLine();
  const recoverError = errorLine();
  const done = (answer) => {
    saveName(answer.account.name);
    if (answer.recovery_code) showCode(app, answer.recovery_code, reload);
    else reload();
  };
  page(
    app,
    "Account",
    h("h1", { text: "Your account" }),
    h("p", {
      class: "note",
      text: "Play without one as before. An account keeps your name and your games on every device you sign in on, with a passkey (no password).",
    }),
    h(
      "section",
      { class: "sign-in" },
      h("h2", { text: "Sign in" }),
      h("button", {
        type: "button",
        class: "primary sign-in-passkey",
        text: "Sign in with a passkey",
        onclick: () => signIn().then(done, (e) => failWith(signInError, e)),
      }),
      signInError,
    ),
    h(
      "form",
      {
        class: "create-account",
        onsubmit: (event) => {
          event.preventDefault();
          createAccount(nameInput.value.trim()).then(done, (e) => failWith(createError, e));
        },
      },
      h("h2", { text: "Make an account" }),
      h("label", { for: "account-name" }, "Name "),
      nameInput,
      " ",
      h("button", { type: "submit", text: "Make it with a passkey" }),
      createError,
    ),
    h(
      "form",
      {
        class: "recover",
        onsubmit: (event) => {
          event.preventDefault();
          api(
            "POST",
            "/api/account/recover",
            { name: recoverName.value.trim(), code: recoverCode.value.trim() },
            headers(),
          ).then(done, (e) => failWith(recoverError, e));
        },
      },
      h("h2", { text: "Lost your passkeys?" }),
      h("label", { for: "recover-name" }, "Account name "),
      recoverName,
      " ",
      h("label", { for: "recover-code" }, "Recovery code "),
      recoverCode,
      " ",
      h("button", { type: "submit", text: "Sign in with the code" }),
      recoverError,
    ),
  );
}

function signedInPage(app, account, reload) {
  const nameInput = h("input", {
    id: "rename",
    maxlength: 24,
    value: account.name,
    autocomplete: "nickname",
  });
  const nameError = errorLine();
  const keyError = errorLine();
  const codeError = errorLine();
  const only = account.passkeys.length === 1;
  const keys = account.passkeys.map((key, i) =>
    h(
      "li",
      { class: "passkey", "data-passkey": key.id },
      `Passkey ${i + 1}: added ${when(key.created)}, last used ${when(key.used)} `,
      h("button", {
        type: "button",
        class: "remove-passkey",
        disabled: only,
        title: only ? "your only passkey: add another first" : null,
        text: "Remove",
        onclick: () =>
          api("DELETE", `/api/account/passkeys/${key.id}`).then(reload, (e) =>
            failWith(keyError, e),
          ),
      }),
    ),
  );
  page(
    app,
    "Account",
    h("h1", { text: `Your account — ${account.name}` }),
    h("p", {}, h("a", { href: "/me", text: "My games" }), " (from every device you played on)"),
    h(
      "form",
      {
        class: "rename",
        onsubmit: (event) => {
          event.preventDefault();
          api("PUT", "/api/account/name", { name: nameInput.value.trim() }).then(
            (answer) => {
              saveName(answer.account.name);
              toast(`You are ${answer.account.name} now`);
              reload();
            },
            (e) => failWith(nameError, e),
          );
        },
      },
      h("h2", { text: "Name" }),
      h("label", { for: "rename" }, "Your name "),
      nameInput,
      " ",
      h("button", { type: "submit", text: "Rename" }),
      nameError,
    ),
    h(
      "section",
      { class: "passkeys" },
      h("h2", { text: "Passkeys" }),
      h("ul", { class: "passkey-list" }, keys),
      h("button", {
        type: "button",
        class: "add-passkey",
        text: "Add a passkey",
        onclick: () =>
          addPasskey().then(
            () => {
              toast("Passkey added");
              reload();
            },
            (e) => failWith(keyError, e),
          ),
      }),
      keyError,
    ),
    h(
      "section",
      { class: "recovery" },
      h("h2", { text: "Recovery code" }),
      h("p", {
        text: "Lost the old one, or think someone saw it? A new code replaces it (the old one stops working).",
      }),
      h("button", {
        type: "button",
        class: "new-code",
        text: "Make a new recovery code",
        onclick: () =>
          api("POST", "/api/account/recovery", {}).then(
            (answer) => showCode(app, answer.recovery_code, reload),
            (e) => failWith(codeError, e),
          ),
      }),
      codeError,
    ),
    h(
      "section",
      { class: "session" },
      h("p", {
        class: "note",
        text: `Signed in on ${account.sessions} ${account.sessions === 1 ? "device" : "devices"}.`,
      }),
      h("button", {
        type: "button",
        class: "sign-out",
        text: "Sign out",
        onclick: () => api("POST", "/api/account/signout", {}).then(reload),
      }),
    ),
  );
}

/** The /account page. */
export async function showAccount(app) {
  const reload = () => showAccount(app);
  let account;
  try {
    account = await currentAccount();
  } catch (error) {
    page(
      app,
      "Account",
      h("h1", { text: "Your account" }),
      h("p", { class: "error", text: error.message }),
    );
    return;
  }
  if (account) signedInPage(app, account, reload);
  else signedOut(app, reload);
}
