// Shows every <time datetime> in the viewer's time zone (but those marked
// data-utc, on pages whose filters take UTC), in the format the
// server writes in UTC ("23 Nov 2026, 17:09:35 UTC"), so the two never
// differ but for the zone. The title keeps the UTC text for hovering.
// Content htmx swaps in is converted too. Without script, UTC stays.
(function () {
  "use strict";

  var format;
  try {
    format = new Intl.DateTimeFormat("en-GB", {
      day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", second: "2-digit",
      hourCycle: "h23", timeZoneName: "short",
    });
  } catch (e) {
    return; // no Intl: the UTC text stays
  }

  function text(date) {
    var p = {};
    format.formatToParts(date).forEach(function (part) {
      p[part.type] = part.value;
    });
    return p.day + " " + p.month + " " + p.year + ", " + p.hour + ":" + p.minute + ":" + p.second + " " + p.timeZoneName;
  }

  function localise(root) {
    if (!root || !root.querySelectorAll) {
      return;
    }
    var times = root.querySelectorAll("time[datetime]:not([data-utc])");
    if (root.matches && root.matches("time[datetime]:not([data-utc])")) {
      times = [root].concat(Array.prototype.slice.call(times));
    }
    Array.prototype.forEach.call(times, function (el) {
      if (el.dataset.localised === el.getAttribute("datetime")) {
        return;
      }
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date.getTime())) {
        return;
      }
      if (!el.title) {
        el.title = el.textContent;
      }
      el.textContent = text(date);
      el.dataset.localised = el.getAttribute("datetime");
    });
  }

  localise(document.body);
  document.addEventListener("htmx:load", function (event) {
    localise(event.target);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    localise(event.detail.target);
  });
})();
