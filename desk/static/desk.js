// The desk's own few lines: keyboard shortcuts and short polling. No
// library; the pages work without it (plain links and forms).
"use strict";
(function () {
  const go = (href) => { window.location.href = href; };
  // On keyup: a key that moves the focus into a field has then typed
  // nothing into it.
  document.addEventListener("keyup", (e) => {
    const t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
      if (e.key === "Escape") t.blur();
      return;
    }
    const reload = document.getElementById("reload") || document.getElementById("reload-banner");
    switch (e.key) {
      case "g": go("/"); break;
      case "h": go("/log"); break;
      case "b": go("/branches"); break;
      case "m": {
        const d = document.getElementById("decision");
        if (d) { e.preventDefault(); d.focus(); }
        break;
      }
      case "r":
        if (reload) go(reload.getAttribute("href")); else window.location.reload();
        break;
      default: return;
    }
  });
  // The workspace list, live: its rows again every two seconds.
  const rows = document.getElementById("workspaces");
  if (rows && rows.dataset.poll) {
    setInterval(() => {
      fetch(rows.dataset.poll, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.text() : null))
        .then((html) => { if (html !== null && html !== rows.innerHTML) rows.innerHTML = html; })
        .catch(() => {});
    }, 2000);
  }
  // A workspace page says when what it shows went stale.
  const meta = document.getElementById("ws-meta");
  const banner = document.getElementById("stale-banner");
  if (meta && banner) {
    setInterval(() => {
      fetch("/ws/" + encodeURIComponent(meta.dataset.workspace) + "/digest", { credentials: "same-origin" })
        .then((r) => r.text())
        .then((d) => { if (d !== meta.dataset.digest) banner.hidden = false; })
        .catch(() => {});
    }, 2000);
  }
})();
