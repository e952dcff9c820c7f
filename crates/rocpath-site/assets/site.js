// rocpath evidence site: language switch (remembered) and offline search. No external resources.
(function () {
  "use strict";
  var KEY = "rocpath.lang";
  var root = document.documentElement;
  function stored() {
    try { return window.localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function store(lang) {
    try { window.localStorage.setItem(KEY, lang); } catch (e) { /* storage disabled: the switch still works on this page */ }
  }
  function apply(lang) {
    if (lang !== "ja" && lang !== "en") { return; }
    root.setAttribute("data-lang", lang);
    root.setAttribute("lang", lang);
    var t = root.getAttribute("data-title-" + lang);
    if (t) { document.title = t; }
    var buttons = document.querySelectorAll("[data-set-lang]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", buttons[i].getAttribute("data-set-lang") === lang ? "true" : "false");
    }
  }
  var initial = stored();
  if (initial !== "ja" && initial !== "en") {
    var nav = (navigator.language || "").toLowerCase();
    initial = nav.indexOf("ja") === 0 ? "ja" : "en";
  }
  apply(initial);

  function search() {
    var input = document.querySelector("[data-search-input]");
    var list = document.querySelector("[data-search-results]");
    var count = document.querySelector("[data-search-count]");
    var index = window.ROCPATH_SEARCH;
    if (!input || !list || !index) { return; }
    var prefix = root.getAttribute("data-root") || "";
    function run() {
      var q = input.value.trim().toLowerCase();
      while (list.firstChild) { list.removeChild(list.firstChild); }
      if (!q) { count.textContent = ""; return; }
      var terms = q.split(/\s+/);
      var hits = [];
      for (var i = 0; i < index.length; i++) {
        var e = index[i];
        var hay = e.h;
        var ok = true;
        for (var j = 0; j < terms.length; j++) { if (hay.indexOf(terms[j]) < 0) { ok = false; break; } }
        if (ok) { hits.push(e); }
      }
      count.textContent = hits.length + (root.getAttribute("data-lang") === "ja" ? " 件" : " results");
      for (var k = 0; k < hits.length && k < 200; k++) {
        var h = hits[k];
        var li = document.createElement("li");
        var badge = document.createElement("span");
        badge.className = "badge badge-" + (h.c || "none");
        badge.textContent = h.c || h.t;
        var a = document.createElement("a");
        a.href = prefix + h.u;
        var ja = document.createElement("span");
        ja.className = "ja"; ja.lang = "ja"; ja.textContent = h.ja;
        var en = document.createElement("span");
        en.className = "en"; en.lang = "en"; en.textContent = h.en;
        a.appendChild(ja); a.appendChild(en);
        var meta = document.createElement("span");
        meta.className = "sub";
        meta.textContent = " " + h.t + " " + h.id + (h.w ? " · " + h.w : "");
        li.appendChild(badge); li.appendChild(document.createTextNode(" ")); li.appendChild(a); li.appendChild(meta);
        list.appendChild(li);
      }
    }
    input.addEventListener("input", run);
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) { input.value = params.get("q"); }
    run();
  }

  document.addEventListener("DOMContentLoaded", function () {
    apply(root.getAttribute("data-lang"));
    var buttons = document.querySelectorAll("[data-set-lang]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function (ev) {
        var lang = ev.currentTarget.getAttribute("data-set-lang");
        apply(lang);
        store(lang);
      });
    }
    search();
  });
}());
