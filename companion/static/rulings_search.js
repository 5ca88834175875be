/* Searching a game's rulings with no network.
 *
 * The offline copy (sw.js) stores, with the rulings pages, a search index: for each search page,
 * every entry's address, title, note, summary, edition, names (both languages, folded and joined
 * by the server: SearchTerms.as_row in companion/rulings) and exact forms, plus the words of the
 * stored page itself (its language only). When a search finds no network, the service worker
 * answers with the stored search page; this script then sees a query the page was not rendered
 * for, searches the index the way companion/rulings searches (same scores: exact form 1000, the
 * whole query in a name 500, a name word 100, a text word 10 (for Rebel Princess plus 5 per time
 * it is in the summary, 4 at most), 50 per word matched; a prefix counts 0.9, two
 * neighbouring letters swapped 0.8, a near miss difflib's ratio x 0.85) and
 * shows the results under a note saying they come from this phone. Unlike the server it reads
 * the text and summary in the page's language only. A test runs this file in Node against the
 * server's search.
 */
(function () {
  "use strict";

  function fold(text) {
    // Python's casefold(), for the letters these games use: lower case, and ß as "ss".
    return String(text).toLowerCase().replace(/ß/g, "ss").normalize("NFKD").replace(/\p{M}/gu, "");
  }

  function words(text) {
    return fold(text).match(/[0-9a-z]+/g) || [];
  }

  /* The matching characters difflib.SequenceMatcher finds (no junk: words are short). */
  function matching(a, b, alo, ahi, blo, bhi) {
    var besti = alo, bestj = blo, size = 0;
    for (var i = alo; i < ahi; i++) {
      for (var j = blo; j < bhi; j++) {
        var k = 0;
        while (i + k < ahi && j + k < bhi && a[i + k] === b[j + k]) k++;
        if (k > size) { besti = i; bestj = j; size = k; }
      }
    }
    if (!size) return 0;
    return size + matching(a, b, alo, besti, blo, bestj)
      + matching(a, b, besti + size, ahi, bestj + size, bhi);
  }

  function ratio(a, b) {
    return (2 * matching(a, b, 0, a.length, 0, b.length)) / (a.length + b.length);
  }

  /* Two neighbouring letters typed the wrong way round ("frgo" for "frog"). */
  function swapped(token, word) {
    if (token.length !== word.length || token === word) return false;
    var diff = [];
    for (var i = 0; i < token.length; i++) if (token[i] !== word[i]) diff.push(i);
    return diff.length === 2 && diff[1] === diff[0] + 1
      && token[diff[0]] === word[diff[1]] && token[diff[1]] === word[diff[0]];
  }

  function wordScore(token, known) {
    if (known.has(token)) return 1;
    var best = 0;
    known.forEach(function (word) {
      if (token.length >= 3 && word.startsWith(token)) best = Math.max(best, 0.9);
      else if (token.length >= 3 && swapped(token, word)) best = Math.max(best, 0.8);
      else if (token.length >= 4 && Math.abs(word.length - token.length) <= 2) {
        var r = ratio(token, word);
        if (r >= 0.8) best = Math.max(best, r * 0.85);
      }
    });
    return best;
  }

  function nameMatch(tokens, joined) {
    var spaced = tokens.join(" "), together = tokens.join("");
    if (spaced.length >= 3 && joined.indexOf(spaced) >= 0) return "phrase";
    if (together.length >= 4 && joined.replace(/ /g, "").indexOf(together) >= 0) return "squeezed";
    return null;
  }

  /* rows: [address, title, note, summary, edition, joined names, exact forms "a|b", page text]. */
  function search(rows, query, stop, edition, weighSummary) {
    var all = words(query);
    if (!all.length) return [];
    var tokens = all.filter(function (t) { return !stop.has(t); });
    if (!tokens.length) tokens = all;
    var forms = [fold(query).trim(), all.join(" ")];
    var scored = [];
    rows.forEach(function (row, order) {
      if (edition && row[4] && row[4] !== edition) return;
      var names = new Set(words(row[5])), text = new Set(words(row[7] || ""));
      var summary = words(row[3]);  // this language's summary (the server counts both)
      var exact = row[6].split("|");
      var score = forms.some(function (f) { return exact.indexOf(f) >= 0; }) ? 1000 : 0;
      var whole = nameMatch(all, row[5]);
      if (whole) score += 500;
      var matched = whole === "squeezed" ? 1 : 0;
      tokens.forEach(function (token) {
        var nameHit = wordScore(token, names), textHit = wordScore(token, text);
        score += 100 * nameHit + 10 * textHit;
        if (textHit && weighSummary) {
          score += 5 * Math.min(summary.filter(function (w) { return w === token; }).length, 4);
        }
        if (nameHit || textHit) matched += 1;
      });
      if (!matched && score < 1000) return;
      scored.push({score: score + 50 * matched, order: order, row: row});
    });
    scored.sort(function (x, y) { return y.score - x.score || x.order - y.order; });
    return scored.map(function (s) { return s.row; });
  }

  if (typeof module === "object" && module.exports) {
    module.exports = {fold: fold, words: words, ratio: ratio, search: search};
    return;
  }

  var form = document.querySelector("form[data-offline-search]");
  var list = document.querySelector("[data-rulings-list]");
  if (!form || !list || !window.caches) return;
  var params = new URLSearchParams(location.search);
  var query = (params.get("q") || "").trim().slice(0, 80);
  if (!query || form.dataset.query === query) return;  // the server answered this search

  function truncate(text) {
    if (text.length <= 90) return text;
    var cut = text.slice(0, 87), space = cut.lastIndexOf(" ");
    return (space > 0 ? cut.slice(0, space) : cut) + "...";
  }

  function element(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }

  function show(found) {
    form.querySelector("input[name=q]").value = query;
    var edition = params.get("edition") || "";
    var choice = form.querySelector("input[name=edition][value='" + edition.replace(/\W/g, "") + "']");
    if (choice) choice.checked = true;
    list.textContent = "";
    list.appendChild(element("p", {"class": "panel", "data-offline-results": String(found.length)},
                             form.dataset.offlineNote));
    list.appendChild(element("h2", {}, form.dataset.offlineFound
      .replace("{num}", found.length).replace("{query}", query)));
    if (!found.length) {
      list.appendChild(element("p", {"class": "panel"}, form.dataset.nothing));
      return;
    }
    var ul = element("ul", {"class": "games"});
    found.slice(0, 30).forEach(function (row) {
      var a = element("a", {href: row[0], "data-result": row[0].split("/").pop()});
      a.appendChild(element("b", {}, row[1]));
      if (row[2]) a.appendChild(element("span", {"class": "muted"}, " · " + row[2]));
      a.appendChild(element("br"));
      a.appendChild(element("span", {"class": "muted"}, truncate(row[3])));
      var li = element("li");
      li.appendChild(a);
      ul.appendChild(li);
    });
    list.appendChild(ul);
  }

  caches.match("/offline/search.json?stored").then(function (response) {
    return response ? response.json() : null;
  }).then(function (stored) {
    var page = new URL(form.action).pathname;
    var rows = stored && stored.index[page];
    show(rows ? search(rows, query, new Set(stored.stop.split(" ")), params.get("edition"),
                       stored.weighSummary.indexOf(page) >= 0) : []);
  }).catch(function () { show([]); });
})();
