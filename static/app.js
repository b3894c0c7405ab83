// The dashboard's only script: it configures htmx and adds the few
// touches that need script (confirm dialogs, copy buttons). Every page
// and form works without it. No inline script exists anywhere, so the
// Content-Security-Policy can forbid it.
(function () {
  "use strict";

  var config = htmx.config;
  // The CSP allows no inline <style> and no eval; app.css styles the
  // request indicators instead.
  config.includeIndicatorStyles = false;
  config.allowEval = false;
  config.allowScriptTags = false;
  config.selfRequestsOnly = true;
  // Pages may hold an API key secret shown once: never keep a copy in
  // sessionStorage. Back and forward reload the page from the server.
  config.historyCacheSize = 0;
  config.refreshOnHistoryMiss = true;
  config.historyRestoreAsHxRequest = false;
  // Validation errors (422), throttling (429) and error pages are
  // complete fragments meant to be read, so they are swapped like 200s.
  config.responseHandling = [
    { code: "204", swap: false },
    { code: "[2345]..", swap: true },
  ];

  // Every htmx request carries the session's CSRF token.
  document.addEventListener("htmx:configRequest", function (event) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) {
      event.detail.headers["X-CSRF-Token"] = meta.content;
    }
  });

  // A request that never reached the server would otherwise fail silently.
  document.addEventListener("htmx:sendError", function () {
    var region = document.getElementById("flash");
    if (!region) {
      return;
    }
    var box = document.createElement("div");
    box.className = "flash flash-danger";
    box.setAttribute("role", "alert");
    var text = document.createElement("p");
    text.textContent = "The server could not be reached. Check your connection and try again.";
    box.appendChild(text);
    region.replaceChildren(box);
  });

  function dialog() {
    return document.getElementById("dialog");
  }

  // A confirmation loaded into the dialog opens it; anything swapped
  // elsewhere (an error page, a new page) closes it.
  document.addEventListener("htmx:afterSwap", function (event) {
    var d = dialog();
    if (!d) {
      return;
    }
    if (event.detail.target === d) {
      if (!d.open) {
        d.showModal();
      }
    } else if (d.open) {
      d.close();
    }
  });

  document.addEventListener("click", function (event) {
    var closer = event.target.closest("[data-dialog-close]");
    if (closer) {
      var d = closer.closest("dialog");
      if (d) {
        d.close();
      }
      return;
    }
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      copyText(copy);
    }
  });

  // copyText copies the text of the element named by the button's
  // data-copy and says so in the button's status element.
  function copyText(button) {
    var source = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copy + "-status");
    if (!source) {
      return;
    }
    var text = source.textContent.trim();
    var done = function () {
      if (status) {
        status.textContent = "Copied to the clipboard.";
      }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {
        selectText(source);
      });
    } else {
      // Plain HTTP on another host has no clipboard API: select the
      // text so one keystroke copies it.
      selectText(source);
      if (status) {
        status.textContent = "Selected: press Ctrl+C or ⌘C to copy.";
      }
    }
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // Controls that only work with script are rendered hidden and shown here.
  htmx.onLoad(function (root) {
    var hidden = root.querySelectorAll("[data-needs-script]");
    for (var i = 0; i < hidden.length; i++) {
      hidden[i].hidden = false;
    }
  });
})();

// Fields shown only for one choice of another field: the new ticket's
// severity, only for incidents. A hidden field is disabled too, so the
// form does not send it. Without script every field shows, and the domain
// says which one does not belong.
(function () {
  "use strict";

  function sync(root) {
    var parts = root.querySelectorAll("[data-shown-for]");
    for (var i = 0; i < parts.length; i++) {
      var rule = parts[i].dataset.shownFor.split("=");
      var form = parts[i].closest("form");
      var chosen = form && form.querySelector('[name="' + rule[0] + '"]:checked');
      var show = !chosen || chosen.value === rule[1];
      parts[i].hidden = !show;
      var controls = parts[i].querySelectorAll("input, select, textarea");
      for (var j = 0; j < controls.length; j++) {
        controls[j].disabled = !show;
      }
    }
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest("form");
    if (form && form.querySelector("[data-shown-for]")) {
      sync(form);
    }
  });
  htmx.onLoad(sync);
})();
