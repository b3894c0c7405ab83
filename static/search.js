// The header's search field: "/" (outside a field) or Ctrl-K / ⌘K focuses
// it; Enter opens the first object found (asking the server first when
// the suggestions below the field are not for what it holds); ArrowDown
// moves into the suggestions, Escape clears them. Without script the
// field is a plain form for the /search page.
(function () {
  "use strict";

  function field() {
    return document.getElementById("site-search");
  }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  document.addEventListener("keydown", function (event) {
    var input = field();
    if (!input) {
      return;
    }
    var k = (event.key || "").toLowerCase();
    if ((k === "k" && (event.ctrlKey || event.metaKey) && !event.altKey) ||
        (event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !typing(event.target))) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });

  function firstHit(root) {
    return root ? root.querySelector("a.search-hit") : null;
  }

  document.addEventListener("keydown", function (event) {
    var input = field();
    if (!input || event.target !== input) {
      return;
    }
    var suggest = document.getElementById("search-suggest");
    if (event.key === "Escape" && suggest) {
      suggest.replaceChildren();
      return;
    }
    if (event.key === "ArrowDown") {
      var first = firstHit(suggest);
      if (first) {
        event.preventDefault();
        first.focus();
      }
      return;
    }
    if (event.key !== "Enter" || input.value.trim() === "") {
      return;
    }
    event.preventDefault();
    var q = input.value;
    var shown = suggest && suggest.querySelector("[data-search-results]");
    if (shown && shown.dataset.query === q.trim() && firstHit(shown)) {
      window.location.assign(firstHit(shown).getAttribute("href"));
      return;
    }
    var url = "/search?q=" + encodeURIComponent(q);
    fetch(url, { headers: { "HX-Request": "true", "HX-Target": "search-suggest" }, credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var hit = firstHit(doc);
        window.location.assign(hit ? hit.getAttribute("href") : url);
      }, function () {
        window.location.assign(url);
      });
  });

  // ArrowUp/ArrowDown move between the suggestions; ArrowUp from the first
  // returns to the field.
  document.addEventListener("keydown", function (event) {
    var hit = event.target.closest && event.target.closest("#search-suggest a.search-hit");
    if (!hit || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) {
      return;
    }
    event.preventDefault();
    var hits = Array.prototype.slice.call(document.querySelectorAll("#search-suggest a.search-hit"));
    var i = hits.indexOf(hit) + (event.key === "ArrowDown" ? 1 : -1);
    if (i < 0) {
      field().focus();
    } else if (i < hits.length) {
      hits[i].focus();
    }
  });
})();
