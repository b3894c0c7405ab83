// Passkeys (WebAuthn): a form marked data-passkey-ceremony ("create" to
// add a passkey, "get" to sign in with one) first fetches its options
// from data-passkey-options, asks the browser for the credential, puts
// the answer in the form's "credential" field and posts the form. The
// options and the answer are JSON with binary fields in base64url; the
// browser's API wants and gives ArrayBuffers. Without WebAuthn in the
// browser the form's note says so and its button is disabled.
(function () {
  "use strict";

  function toBuffer(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }

  function toBase64url(buf) {
    var bytes = new Uint8Array(buf);
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decodeList(list) {
    (list || []).forEach(function (c) {
      c.id = toBuffer(c.id);
    });
  }

  function publicKeyOptions(options, ceremony) {
    var pk = options.publicKey;
    pk.challenge = toBuffer(pk.challenge);
    if (ceremony === "create") {
      pk.user.id = toBuffer(pk.user.id);
      decodeList(pk.excludeCredentials);
    } else {
      decodeList(pk.allowCredentials);
    }
    return pk;
  }

  function credentialJSON(cred) {
    var r = cred.response;
    var out = {
      id: cred.id,
      rawId: toBase64url(cred.rawId),
      type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: toBase64url(r.clientDataJSON) },
    };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = toBase64url(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = toBase64url(r.authenticatorData);
      out.response.signature = toBase64url(r.signature);
      if (r.userHandle) out.response.userHandle = toBase64url(r.userHandle);
    }
    return JSON.stringify(out);
  }

  function supported() {
    return !!(window.PublicKeyCredential && navigator.credentials);
  }

  // say shows a message above the form, in place of the last one.
  function say(form, text) {
    var p = form.previousElementSibling;
    if (!p || !p.hasAttribute("data-passkey-message")) {
      p = document.createElement("p");
      p.className = "form-message";
      p.setAttribute("role", "alert");
      p.setAttribute("data-passkey-message", "");
      form.parentNode.insertBefore(p, form);
    }
    p.textContent = text;
  }

  function markUnsupported() {
    if (supported()) return;
    document.querySelectorAll("[data-passkey-unsupported]").forEach(function (el) {
      el.hidden = false;
    });
    document.querySelectorAll("form[data-passkey-ceremony] button[type=submit]").forEach(function (b) {
      b.disabled = true;
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var ceremony = form.getAttribute && form.getAttribute("data-passkey-ceremony");
    if (!ceremony) return;
    event.preventDefault();
    if (!supported()) {
      say(form, "This browser does not support passkeys.");
      return;
    }
    var name = form.elements.namedItem("name");
    if (name && !name.value.trim()) {
      form.submit(); // the server says the name is required
      return;
    }
    var body = new URLSearchParams();
    body.set("csrf_token", form.elements.namedItem("csrf_token").value);
    fetch(form.getAttribute("data-passkey-options"), {
      method: "POST",
      body: body,
      // No Accept: application/json: the dashboard answers a client that
      // accepts only JSON as a misdirected API client.
      credentials: "same-origin",
    })
      .then(function (res) {
        if (res.redirected) {
          // The server asks first (it answered with a redirect, which
          // fetch followed): "Confirm it's you" for a sensitive action.
          window.location.href = res.url;
          return new Promise(function () {});
        }
        if (!res.ok) throw new Error("the server could not start (status " + res.status + ")");
        return res.json();
      })
      .then(function (options) {
        var pk = publicKeyOptions(options, ceremony);
        return ceremony === "create" ? navigator.credentials.create({ publicKey: pk }) : navigator.credentials.get({ publicKey: pk });
      })
      .then(function (cred) {
        form.elements.namedItem("credential").value = credentialJSON(cred);
        form.submit();
      })
      .catch(function (err) {
        if (err && err.name === "NotAllowedError") {
          say(form, "The passkey request was cancelled or timed out.");
        } else if (err && err.name === "InvalidStateError") {
          say(form, "This authenticator already holds a passkey for your user.");
        } else {
          say(form, "The passkey did not work: " + (err && err.message ? err.message : err));
        }
      });
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", markUnsupported);
  } else {
    markUnsupported();
  }
  document.addEventListener("htmx:afterSettle", markUnsupported);
})();
