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

  // A confirmation loaded into the dialog opens it; a new page or an
  // error page swapped into #main closes it. Smaller swaps (a table
  // refreshing itself) leave it open.
  document.addEventListener("htmx:afterSwap", function (event) {
    var d = dialog();
    if (!d) {
      return;
    }
    if (event.detail.target === d) {
      if (!d.open) {
        d.showModal();
      }
    } else if (d.open && event.detail.target.id === "main") {
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
    var download = event.target.closest("[data-download]");
    if (download) {
      downloadText(download);
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
    var say = function (msg) {
      if (status) {
        status.textContent = msg;
      }
    };
    // Plain HTTP on another host has no clipboard API, and a browser may
    // refuse it: then the text is selected so one keystroke copies it.
    var selectInstead = function () {
      selectText(source);
      say("Selected: press Ctrl+C or ⌘C to copy.");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        say("Copied to the clipboard.");
      }, selectInstead);
    } else {
      selectInstead();
    }
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // downloadText saves the value of the field named by the button's
  // data-download as a file named by its data-filename. The file is made
  // in the browser from the page itself, so the server never has to keep
  // what it holds (a private key) to serve it a second time.
  function downloadText(button) {
    var source = document.getElementById(button.dataset.download);
    var status = document.getElementById(button.dataset.download + "-status");
    if (!source) {
      return;
    }
    var name = button.dataset.filename || "download.txt";
    var url = URL.createObjectURL(new Blob([source.value], { type: "application/octet-stream" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 1000);
    if (status) {
      status.textContent = "Downloaded as " + name + ".";
    }
  }

  // The launch form narrows its choices with script: a chosen instance
  // type allows only the regions where it has capacity, and a chosen
  // region only the images it offers and the filesystems and rulesets
  // that live there. The server
  // checks the same again; without script every choice is offered.
  function narrowLaunch(form) {
    var type = form.querySelector('input[name="instance_type_name"]:checked');
    var region = form.querySelector('select[name="region_name"]');
    if (!region) {
      return;
    }
    if (type) {
      var regions = (type.dataset.regions || "").split(" ");
      for (var i = 0; i < region.options.length; i++) {
        var option = region.options[i];
        option.disabled = option.value !== "" && regions.indexOf(option.value) < 0;
      }
      if (region.selectedOptions.length && region.selectedOptions[0].disabled) {
        region.value = "";
      }
    }
    // Images: only the ones the chosen region offers.
    var images = form.querySelectorAll("option[data-regions]");
    for (var k = 0; k < images.length; k++) {
      var offered = (images[k].dataset.regions || "").split(" ");
      images[k].disabled = region.value !== "" && offered.indexOf(region.value) < 0;
      if (images[k].disabled && images[k].selected) {
        images[k].parentNode.parentNode.value = "";
      }
    }
    var items = form.querySelectorAll("[data-region]");
    for (var j = 0; j < items.length; j++) {
      var elsewhere = region.value !== "" && items[j].dataset.region !== region.value;
      var box = items[j].querySelector("input");
      items[j].classList.toggle("choice-elsewhere", elsewhere);
      if (box) {
        box.disabled = elsewhere;
        if (elsewhere) {
          box.checked = false;
        }
      }
    }
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest("[data-launch-form]");
    if (form) {
      narrowLaunch(form);
    }
  });

  // Controls that only work with script are rendered hidden and shown here.
  htmx.onLoad(function (root) {
    var hidden = root.querySelectorAll("[data-needs-script]");
    for (var i = 0; i < hidden.length; i++) {
      hidden[i].hidden = false;
    }
    var launch = root.closest("[data-launch-form]") || root.querySelector("[data-launch-form]");
    if (launch) {
      narrowLaunch(launch);
    }
  });

  // Rules editors (data-rules). Without script "Add rule" and "Remove"
  // submit the form and the server answers with the rows changed; here
  // they change the rows in place. Rows are renumbered after each change
  // so that field names, ids and labels follow the order on screen. An
  // ICMP rule has no ports, so its port range is switched off.
  var ruleAttrs = ["name", "id", "for", "aria-describedby"];

  document.addEventListener("click", function (event) {
    var add = event.target.closest("[data-rule-add]");
    var remove = event.target.closest("[data-rule-remove]");
    var editor = event.target.closest("[data-rules]");
    if ((!add && !remove) || !editor) {
      return;
    }
    event.preventDefault();
    if (add) {
      addRule(editor);
    } else {
      removeRule(editor, remove.closest("[data-rule-row]"));
    }
  });

  document.addEventListener("change", function (event) {
    var row = event.target.closest("[data-rules] [data-rule-row]");
    if (row && event.target.matches('select[name$=".protocol"]')) {
      syncPorts(row, false);
    }
  });

  htmx.onLoad(function (root) {
    var rows = root.querySelectorAll("[data-rules] [data-rule-row]");
    for (var i = 0; i < rows.length; i++) {
      syncPorts(rows[i], true);
    }
  });

  function addRule(editor) {
    var template = editor.querySelector("template[data-rule-template]");
    var row = template.content.firstElementChild.cloneNode(true);
    editor.querySelector("[data-rules-body]").appendChild(row);
    renumberRules(editor);
    row.querySelector("select, input").focus();
  }

  function removeRule(editor, row) {
    var next = row.nextElementSibling || row.previousElementSibling;
    row.remove();
    renumberRules(editor);
    (next ? next.querySelector("select, input") : editor.querySelector("[data-rule-add]")).focus();
  }

  function renumberRules(editor) {
    var rows = editor.querySelectorAll("[data-rules-body] [data-rule-row]");
    for (var i = 0; i < rows.length; i++) {
      var fields = rows[i].querySelectorAll("[name], [id], [for], [aria-describedby]");
      for (var j = 0; j < fields.length; j++) {
        for (var k = 0; k < ruleAttrs.length; k++) {
          var value = fields[j].getAttribute(ruleAttrs[k]);
          if (value) {
            fields[j].setAttribute(ruleAttrs[k], value.replace(/rules\.(\d+|__i__)\./g, "rules." + i + "."));
          }
        }
      }
      rows[i].querySelector("[data-rule-remove]").value = String(i);
      rows[i].querySelector("[data-rule-number]").textContent = " rule " + (i + 1);
    }
    editor.querySelector("[data-rules-table]").hidden = rows.length === 0;
    editor.querySelector("[data-rules-empty]").hidden = rows.length > 0;
  }

  // syncPorts switches the port range off for ICMP and back on for other
  // protocols. On load a range typed for ICMP stays, beside its error.
  function syncPorts(row, onLoad) {
    var protocol = row.querySelector('select[name$=".protocol"]');
    var ports = row.querySelector('input[name$=".port_range"]');
    if (!protocol || !ports) {
      return;
    }
    var icmp = protocol.value === "icmp";
    if (icmp && onLoad && ports.value !== "") {
      return;
    }
    if (icmp && !ports.disabled) {
      ports.dataset.typed = ports.value;
      ports.value = "";
    } else if (!icmp && ports.disabled) {
      ports.value = ports.dataset.typed || "";
    }
    ports.disabled = icmp;
    ports.placeholder = icmp ? "None for ICMP" : "22 or 8000-8080";
  }
})();

// Fields shown only for one choice of another field (a radio group or a
// select): the new ticket's severity, only for incidents; an API key's
// expiry date, only for "On a date". A hidden field is disabled too, so
// the form does not send it. Without script every field shows, and the
// server says which one does not belong, or ignores it.
(function () {
  "use strict";

  // chosenValue is the value chosen in the form's field name, or null
  // while nothing is.
  function chosenValue(form, name) {
    var select = form.querySelector('select[name="' + name + '"]');
    if (select) {
      return select.value;
    }
    var chosen = form.querySelector('[name="' + name + '"]:checked');
    return chosen ? chosen.value : null;
  }

  function sync(root) {
    var parts = root.querySelectorAll("[data-shown-for]");
    for (var i = 0; i < parts.length; i++) {
      var rule = parts[i].dataset.shownFor.split("=");
      var form = parts[i].closest("form");
      var value = form ? chosenValue(form, rule[0]) : null;
      var show = value === null || value === rule[1];
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

  // A form whose answer takes over 2 s (a busy database waits up to 10 s
  // for its lock) says so, rather than leave a dimmed button to wonder
  // at; the note goes when the answer comes.
  var stillWorkingAfter = 2000;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    if (!form || form.stillWorking) {
      return;
    }
    form.stillWorking = setTimeout(function () {
      var p = document.createElement("p");
      p.className = "still-working";
      p.setAttribute("role", "status");
      p.textContent = "Still working… Please wait; what you entered is kept.";
      form.appendChild(p);
    }, stillWorkingAfter);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    if (!form || !form.stillWorking) {
      return;
    }
    clearTimeout(form.stillWorking);
    form.stillWorking = null;
    var notes = form.querySelectorAll(".still-working");
    for (var i = 0; i < notes.length; i++) {
      notes[i].remove();
    }
  });
})();
