// Drafts: what someone types into a form marked data-draft="<key>" is
// kept in this tab's sessionStorage until the form is answered with
// success, so that a session that ended meanwhile (sign-in, then back to
// the page) or a page left by mistake does not lose it. Coming back to
// the page refills the empty fields and says "Draft restored".
//
// Only textareas and text inputs are kept: never passwords, one-time
// codes, CSRF tokens, hidden or file inputs, nor a field whose name
// speaks of a secret or that is marked data-draft-skip.
//
// Whether a send succeeded is read from the page that answers it, whether
// htmx swapped it in or the browser loaded it: a form sent is "pending";
// the next page decides. The sign-in page or an error page means the
// send was interrupted (kept, to refill later); the form shown again with
// its values means it was refused (kept, the server refilled it); the
// form shown empty, or another page, means it was answered (dropped).
(function () {
  "use strict";

  var prefix = "cloudplane.draft:";
  var store;
  try {
    store = window.sessionStorage;
    store.setItem(prefix + "probe", "1");
    store.removeItem(prefix + "probe");
  } catch (e) {
    return; // storage off: the forms work as before
  }

  var secretName = /csrf|token|secret|password|passphrase|otp|private/i;

  function kept(el) {
    if (el.disabled || el.readOnly || el.hasAttribute("data-draft-skip") || !el.name || secretName.test(el.name)) {
      return false;
    }
    var ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    if (ac.indexOf("password") >= 0 || ac.indexOf("one-time-code") >= 0) {
      return false;
    }
    if (el.tagName === "TEXTAREA") {
      return true;
    }
    if (el.tagName !== "INPUT") {
      return false;
    }
    var type = (el.getAttribute("type") || "text").toLowerCase();
    return type === "text" || type === "search" || type === "email" || type === "url" || type === "tel";
  }

  function fields(form) {
    return Array.prototype.filter.call(form.querySelectorAll("textarea, input"), kept);
  }

  function load(key) {
    try {
      var d = JSON.parse(store.getItem(prefix + key) || "null");
      return d && typeof d.values === "object" ? d : null;
    } catch (e) {
      return null;
    }
  }

  function save(key, d) {
    try {
      store.setItem(prefix + key, JSON.stringify(d));
    } catch (e) {
      // full or refused: the form still works
    }
  }

  function drop(key) {
    store.removeItem(prefix + key);
  }

  function keys() {
    var out = [];
    for (var i = 0; i < store.length; i++) {
      var k = store.key(i);
      if (k && k.indexOf(prefix) === 0) {
        out.push(k.slice(prefix.length));
      }
    }
    return out;
  }

  function formFor(key) {
    var forms = document.querySelectorAll("form[data-draft]");
    for (var i = 0; i < forms.length; i++) {
      if (forms[i].getAttribute("data-draft") === key) {
        return forms[i];
      }
    }
    return null;
  }

  // remember keeps form's values, or drops the draft once all are empty.
  function remember(form, pending) {
    var key = form.getAttribute("data-draft");
    var values = {};
    var any = false;
    fields(form).forEach(function (el) {
      values[el.name] = el.value;
      if (el.value.trim() !== "") {
        any = true;
      }
    });
    if (!any) {
      drop(key);
      return;
    }
    save(key, { values: values, pending: !!pending, path: location.pathname });
  }

  function hasValues(form) {
    return fields(form).some(function (el) {
      return el.value.trim() !== "";
    });
  }

  function note(form) {
    if (form.querySelector(".draft-note")) {
      return;
    }
    var p = document.createElement("p");
    p.className = "draft-note";
    p.setAttribute("role", "status");
    p.appendChild(document.createTextNode("Draft restored: what you typed before is back. "));
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "button button-quiet button-small";
    discard.setAttribute("data-draft-discard", "");
    discard.textContent = "Discard draft";
    p.appendChild(discard);
    form.insertBefore(p, form.firstChild);
  }

  function restore(form, d) {
    var filled = false;
    fields(form).forEach(function (el) {
      var v = d.values[el.name];
      if (typeof v === "string" && v !== "" && el.value === "") {
        el.value = v;
        filled = true;
      }
    });
    if (filled) {
      note(form);
    }
  }

  // shown runs whenever a page, or a part of one, is shown.
  function shown() {
    var signIn = /^\/sign-in(\/|$)/.test(location.pathname);
    var errorPage = !!document.querySelector(".error-page");
    keys().forEach(function (key) {
      var d = load(key);
      if (!d) {
        drop(key);
        return;
      }
      var form = formFor(key);
      if (d.pending) {
        if (signIn || errorPage) {
          d.pending = false; // interrupted: kept for when the page is back
          save(key, d);
        } else if (form && hasValues(form)) {
          d.pending = false; // refused: the form came back with its values
          save(key, d);
        } else {
          drop(key); // answered
        }
        return;
      }
      if (form && !signIn) {
        restore(form, d);
      }
    });
  }

  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("form[data-draft]");
    if (form && kept(event.target)) {
      remember(form, false);
    }
  });

  // Capture, so that the draft is marked before htmx sends the form.
  document.addEventListener(
    "submit",
    function (event) {
      var form = event.target.closest && event.target.closest("form[data-draft]");
      if (form) {
        remember(form, true);
      }
    },
    true
  );

  document.addEventListener("click", function (event) {
    var discard = event.target.closest && event.target.closest("[data-draft-discard]");
    if (!discard) {
      return;
    }
    var form = discard.closest("form[data-draft]");
    if (form) {
      fields(form).forEach(function (el) {
        el.value = "";
      });
      drop(form.getAttribute("data-draft"));
      var first = fields(form)[0];
      if (first) {
        first.focus();
      }
    }
    discard.closest(".draft-note").remove();
  });

  // A send that never reached the server answered nothing.
  document.addEventListener("htmx:sendError", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form[data-draft]");
    if (form) {
      remember(form, false);
    }
  });

  // A page swapped in whole (a boosted form's answer) is a page shown; a
  // table refreshing itself is not.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && (target.id === "main" || target === document.body)) {
      shown();
    }
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", shown);
  } else {
    shown();
  }
})();
