package browser

// findJS is evaluated before every expression: small helpers that find
// elements the way a person does, by the text of their label or their
// accessible name, and hand back a selector chromedp can click or type
// into (an attribute data-e2e marks the element).
const findJS = `
const norm = s => (s || "").replace(/\s+/g, " ").trim();
const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" &&
  !el.closest("[aria-hidden=true]");
// textOf is an element's text as assistive technology reads it: parts
// marked aria-hidden (decorative icons, "+" signs) left out.
function textOf(el) {
  if (el.nodeType === Node.TEXT_NODE) return el.textContent;
  if (el.nodeType !== Node.ELEMENT_NODE || el.getAttribute("aria-hidden") === "true") return "";
  return Array.from(el.childNodes).map(textOf).join("");
}
function nameOf(el) {
  const aria = el.getAttribute("aria-label");
  if (aria) return norm(aria);
  const by = el.getAttribute("aria-labelledby");
  if (by) return norm(by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent).join(" "));
  if (el.labels && el.labels.length) return norm(Array.from(el.labels).map(textOf).join(" "));
  if (el.tagName === "INPUT" && /^(submit|button)$/.test(el.type)) return norm(el.value);
  return norm(textOf(el)) || norm(el.getAttribute("title"));
}
const kinds = {
  control: "input:not([type=hidden]):not([type=submit]):not([type=button]),select,textarea",
  // What a person may click: buttons, and links (styled as buttons or not).
  clickable: "button,input[type=submit],input[type=button],[role=button],a[href]",
};
function mark(el) {
  if (!el.dataset.e2e) {
    window.__e2eSeq = (window.__e2eSeq || 0) + 1;
    el.dataset.e2e = String(window.__e2eSeq);
  }
  return '[data-e2e="' + el.dataset.e2e + '"]';
}
function all(scope, kind, pattern) {
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return [];
  const re = new RegExp(pattern, "i");
  return Array.from(root.querySelectorAll(kinds[kind] || kind)).filter(el => shown(el) && re.test(nameOf(el)));
}
function find(scope, kind, pattern) {
  const hits = all(scope, kind, pattern);
  return hits.length ? mark(hits[0]) : "";
}
function findAll(scope, kind, pattern) {
  return all(scope, kind, pattern).map(mark);
}
function linkTo(scope, pattern) {
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return "";
  const re = new RegExp(pattern, "i");
  const target = el => el.getAttribute("href") || el.getAttribute("hx-get") || el.getAttribute("formaction") || "";
  const el = Array.from(root.querySelectorAll("a[href],[hx-get],button[formaction]")).find(el => shown(el) && re.test(target(el)));
  return el ? mark(el) : "";
}
function formOf(sel) {
  const el = document.querySelector(sel);
  const form = el && (el.form || el.closest("form"));
  return form ? mark(form) : "";
}
function rowOf(sel, pattern) {
  const re = new RegExp(pattern, "i");
  const count = n => Array.from(n.querySelectorAll(kinds.control)).filter(c => re.test(nameOf(c))).length;
  let row = document.querySelector(sel);
  if (!row) return "";
  while (row.parentElement && !/^(FORM|MAIN|BODY)$/.test(row.parentElement.tagName) && count(row.parentElement) === 1) {
    row = row.parentElement;
  }
  return mark(row);
}
function textMatches(scope, pattern) {
  const root = scope ? document.querySelector(scope) : document.body;
  return !!root && new RegExp(pattern, "i").test(norm(root.innerText));
}
function rowWith(pattern) {
  const re = new RegExp(pattern, "i");
  const rows = Array.from(document.querySelectorAll("main tbody tr, main li"));
  const row = rows.find(r => shown(r) && re.test(norm(r.innerText)));
  return row ? mark(row) : "";
}
function chooseTarget(scope, label, pattern) {
  const re = new RegExp(pattern, "i");
  const control = all(scope, "control", label).find(el => el.type !== "radio" && el.type !== "checkbox");
  if (control && control.tagName !== "SELECT") return {kind: "text", sel: mark(control)};
  if (control) {
    const opt = Array.from(control.options).find(o => !o.disabled && (re.test(o.value) || re.test(norm(o.textContent))));
    return opt ? {kind: "select", sel: mark(control), value: opt.value} : null;
  }
  const root = scope ? document.querySelector(scope) : document;
  const labelRe = new RegExp(label, "i");
  const group = root && Array.from(root.querySelectorAll("fieldset, [role=radiogroup]")).find(g => shown(g) &&
    labelRe.test(norm((g.querySelector("legend") || {}).textContent) || nameOf(g)));
  if (!group) return null;
  const radio = Array.from(group.querySelectorAll("input[type=radio]")).find(r => !r.disabled &&
    (re.test(r.value) || re.test(nameOf(r))));
  return radio ? {kind: "radio", sel: mark(radio.labels && radio.labels[0] || radio)} : null;
}
function selectValue(sel, value) {
  const el = document.querySelector(sel);
  el.value = value;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return true;
}
function fieldError(scope, pattern) {
  return all(scope, "control", pattern).map(el => {
    if (el.getAttribute("aria-invalid") !== "true") return "";
    const ids = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
    return norm(ids.map(id => (document.getElementById(id) || {}).textContent).join(" ")) || "(no message)";
  }).find(Boolean) || "";
}
`
