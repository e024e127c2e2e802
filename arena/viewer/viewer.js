// The replay viewer (arena.viewer): draws a stored game from frames computed once on the
// server (arena.replay.frames), so a step, Back, autoplay and a change of view never ask
// the server again. It decides nothing about what a seat may see: each perspective's
// frames were made by the observer, and it draws exactly those. Bot text (player names,
// fault details, step stories) only ever goes through textContent (setText below).
(function () {
  "use strict";

  var SUIT_SYMBOLS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  var ORDER = "SHCD"; // alternating colours, as players sort a hand
  var RANKS = "23456789TJQKA";
  var KEYS = ["a", "0", "1", "2"];

  var data = JSON.parse(document.getElementById("frames").textContent);
  var options = JSON.parse(document.getElementById("options").textContent);
  var steps = data.steps;
  var last = steps.length - 1;

  // Whole frames from each perspective's list of changes: done once, so a step is a lookup.
  // A seat's change names under "=" the keys that hold the all-cards frame's values.
  var views = {};
  KEYS.forEach(function (key) {
    var current = {};
    views[key] = data.views[key].map(function (change, index) {
      current = Object.assign({}, current);
      if (change["="]) {
        change["="].split(",").forEach(function (name) { current[name] = views.a[index][name]; });
      }
      Object.keys(change).forEach(function (name) {
        if (name !== "=") current[name] = change[name];
      });
      return current;
    });
  });
  var handStarts = {};
  steps.forEach(function (step, index) {
    if (!(step[0] in handStarts)) handStarts[step[0]] = index;
  });
  var hands = Object.keys(handStarts).map(Number).sort(function (a, b) { return a - b; });

  var state = { index: 0, view: "a", timer: null };

  function $(id) { return document.getElementById(id); }

  function setText(el, text) {
    el.textContent = text;
  }

  function make(tag, className, text) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined && text !== null) setText(el, String(text));
    return el;
  }

  function cardsOf(text) {
    var out = [];
    if (!text) return out;
    for (var i = 0; i + 1 < text.length; i += 2) out.push(text.slice(i, i + 2));
    return out;
  }

  function sorted(cards, trump) {
    var order = ORDER;
    if (trump && trump !== "NT") order = trump + ORDER.replace(trump, "");
    return cards.slice().sort(function (a, b) {
      var bySuit = order.indexOf(a[1]) - order.indexOf(b[1]);
      return bySuit !== 0 ? bySuit : RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]);
    });
  }

  function card(id, trump, extra) {
    var suit = id[1];
    var el = make("span", "card " + suit + (trump === suit ? " trump" : "") + (extra ? " " + extra : ""));
    el.setAttribute("data-card", id);
    el.title = id;
    el.appendChild(make("span", "", id[0] === "T" ? "10" : id[0]));
    el.appendChild(make("span", "suit", SUIT_SYMBOLS[suit]));
    return el;
  }

  function cardRow(text, trump, sort) {
    var row = document.createDocumentFragment();
    var cards = cardsOf(text);
    if (!cards.length) {
      row.appendChild(make("span", "hidden", "none"));
      return row;
    }
    (sort ? sorted(cards, trump) : cards).forEach(function (id) { row.appendChild(card(id, trump)); });
    return row;
  }

  function backs(count) {
    var row = document.createDocumentFragment();
    if (count <= 0) {
      row.appendChild(make("span", "hidden", "no cards left"));
      return row;
    }
    for (var i = 0; i < count; i++) row.appendChild(make("span", "card back small"));
    var note = make("span", "hidden", count + " hidden");
    note.style.marginLeft = "0.7em";
    row.appendChild(note);
    return row;
  }

  function hidden(text) { return make("span", "hidden", text); }

  function seatLabel(seat) { return "Seat " + seat + " (" + data.players[seat] + ")"; }

  function stepText(step, key) {
    var own = step[6];
    return Object.prototype.hasOwnProperty.call(own, key) ? own[key] : step[5];
  }

  // ------------------------------------------------------------------ the table

  function seatPanel(frame, seat, area, perspective) {
    var panel = frame["p" + seat];
    var box = make("div", "seat" + (frame.a === seat ? " acting" : ""));
    box.style.gridArea = area;
    box.setAttribute("data-seat", String(seat));
    var head = make("div", "head");
    head.appendChild(make("b", "", "Seat " + seat));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(make("span", "player", data.players[seat]));
    head.appendChild(make("span", "badge", "contract " + frame.c[seat]));
    head.appendChild(make("span", "badge", "tricks " + panel[2]));
    if (frame.d === seat) head.appendChild(make("span", "badge dealer", "dealer"));
    if (frame.a === seat) head.appendChild(make("span", "badge act", "to act"));
    if (perspective === seat) head.appendChild(make("span", "badge view", "this view"));
    box.appendChild(head);
    var cards = make("div", "cards");
    cards.appendChild(panel[0] === null ? backs(panel[1]) : cardRow(panel[0], frame.tr, true));
    box.appendChild(cards);
    return box;
  }

  function trickArea(frame, areas) {
    var box = make("div", "trick");
    var trick = frame.tk;
    var bySeat = {};
    var title;
    var winner = null;
    if (trick === null) {
      title = make("div", "title", "Hand " + frame.h + ": no card played yet");
    } else {
      cardsOf(trick[2]).forEach(function (id, i) { bySeat[(trick[1] + i) % 3] = id; });
      winner = trick[3];
      title = make("div", "title", "Trick " + trick[0] + ", led by seat " + trick[1]);
      if (winner !== null) {
        title.appendChild(document.createTextNode(": "));
        title.appendChild(make("b", "", "seat " + winner + " wins"));
      }
    }
    box.appendChild(title);
    var slots = { left: [2, 1], right: [2, 3], bottom: [3, 2] };
    Object.keys(areas).forEach(function (seat) {
      var where = slots[areas[seat]];
      var slot = make("div", "slot");
      slot.style.gridRow = String(where[0]);
      slot.style.gridColumn = String(where[1]);
      var id = bySeat[seat];
      slot.appendChild(id ? card(id, frame.tr, Number(seat) === winner ? "win" : "") : make("span", "card empty"));
      slot.appendChild(make("div", "", "seat " + seat));
      box.appendChild(slot);
    });
    return box;
  }

  // ------------------------------------------------------------------ the side panel

  function row(body, label, content) {
    var tr = make("tr");
    tr.appendChild(make("td", "", label));
    var td = make("td");
    (Array.isArray(content) ? content : [content]).forEach(function (part, i) {
      if (i) td.appendChild(make("br"));
      td.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    tr.appendChild(td);
    body.appendChild(tr);
  }

  function trumpText(trump) {
    if (trump === null || trump === undefined) return hidden("not called yet");
    if (trump === "NT") return make("b", "", "no trump");
    var box = document.createDocumentFragment();
    var symbol = make("b", trump, SUIT_SYMBOLS[trump]);
    symbol.style.fontSize = "1.3em";
    box.appendChild(symbol);
    box.appendChild(document.createTextNode(" " + SUIT_NAMES[trump]));
    return box;
  }

  function signed(values) {
    return values.map(function (v) { return (v >= 0 ? "+" : "") + v; }).join(" / ");
  }

  function info(frame, body) {
    row(body, "Hand", frame.h + ", dealer seat " + frame.d);
    row(body, "Contracts", frame.c.map(function (c, s) { return "seat " + s + ": " + c; }).join(" / "));
    row(body, frame.sm ? "Scores" : "Scores before", signed(frame.s));
    row(body, "Trump", trumpText(frame.tr));
    if (frame.k !== null) {
      row(body, "Kitty", [cardRow(frame.k, frame.tr, true), frame.kt ? "(taken by the dealer)" : "(face down)"]);
    } else {
      row(body, "Kitty", frame.kt ? hidden("taken by the dealer, unseen") : backs(4));
    }
    if (frame.ds !== null) row(body, "Discards", cardRow(frame.ds, frame.tr, false));
    else if (frame.dd) row(body, "Discards", hidden("4 cards, face down"));
    frame.x.forEach(function (leg) {
      var given = leg[4] !== null ? cardRow(leg[4], frame.tr, false)
        : hidden(leg[3] !== "planned" ? "hidden" : "not yet");
      var back = leg[5] !== null ? cardRow(leg[5], frame.tr, false)
        : hidden(leg[3] === "done" ? "hidden" : "not yet");
      var givenLine = document.createDocumentFragment();
      givenLine.appendChild(document.createTextNode("given: "));
      givenLine.appendChild(given);
      var backLine = document.createDocumentFragment();
      backLine.appendChild(document.createTextNode("returned: "));
      backLine.appendChild(back);
      row(body, "Seat " + leg[0] + " \u2192 seat " + leg[1], [leg[2] + " card(s), " + leg[3], givenLine, backLine]);
    });
    frame.sh.forEach(function (show) {
      row(body, "Shown to seat " + show[0], cardRow(show[1], frame.tr, true));
    });
    if (frame.sm) {
      row(body, "Hand result", ["tricks " + frame.sm[0].join(" / "), "deltas " + signed(frame.sm[1])]);
    }
    if (frame.r) {
      row(body, "Game over", frame.r[0].map(function (w) { return "seat " + w; }).join(", ") + " (" + frame.r[1] + ")");
    }
  }

  // ------------------------------------------------------------------ drawing a step

  function bounds(hand) {
    var first = handStarts[hand];
    var pos = hands.indexOf(hand);
    var next = pos + 1 < hands.length ? handStarts[hands[pos + 1]] : last + 1;
    return [first, next - 1];
  }

  // The steps of the hand so far: one line more after Next, rebuilt after any other move.
  var logged = { first: -1, index: -1, key: "" };

  function logLine(i, first, key) {
    return make("div", "", (i - first + 1) + ". " + stepText(steps[i], key) + (steps[i][4].length ? "  [fault]" : ""));
  }

  function drawLog(first, index, key) {
    var log = $("log");
    if (logged.first === first && logged.key === key && logged.index === index - 1) {
      if (log.lastChild) log.lastChild.className = "";
      log.appendChild(logLine(index, first, key));
    } else {
      log.replaceChildren();
      for (var i = first; i <= index; i++) log.appendChild(logLine(i, first, key));
    }
    log.lastChild.className = "now";
    logged = { first: first, index: index, key: key };
    requestAnimationFrame(function () { log.scrollTop = log.scrollHeight; });
  }

  function render() {
    var index = state.index;
    var key = state.view;
    var perspective = key === "a" ? null : Number(key);
    var frame = views[key][index];
    var step = steps[index];
    var span = bounds(step[0]);

    setText($("where"), "Step " + (index - span[0] + 1) + " of " + (span[1] - span[0] + 1) + " (hand " + step[0] + "):");
    setText($("story"), stepText(step, key));
    var marks = $("marks");
    marks.replaceChildren();
    if (step[3]) {
      marks.appendChild(make("div", "mark autopilot", "Seat " + step[2] + " is played by the referee's autopilot after a fault."));
    }
    step[4].forEach(function (fault) {
      marks.appendChild(make("div", "mark fault", "Fault: seat " + fault.seat + " (" + fault.kind + ") at its " + fault.decision + " decision: " + fault.detail));
    });

    var bottom = perspective === null ? 0 : perspective;
    var areas = {};
    areas[bottom] = "bottom";
    areas[(bottom + 1) % 3] = "left";
    areas[(bottom + 2) % 3] = "right";
    var table = $("table");
    table.replaceChildren();
    Object.keys(areas).forEach(function (seat) {
      table.appendChild(seatPanel(frame, Number(seat), areas[seat], perspective));
    });
    table.appendChild(trickArea(frame, areas));

    var body = $("info");
    body.replaceChildren();
    info(frame, body);

    drawLog(span[0], index, key);

    $("hand").value = String(step[0]);
    $("slider").value = String(index);
    $("start").disabled = index === span[0];
    $("back").disabled = index === 0;
    $("next").disabled = index === last;
    $("end").disabled = index === span[1];
    KEYS.forEach(function (k) {
      var button = $("view-" + k);
      button.className = k === key ? "on" : "";
      button.setAttribute("aria-checked", k === key ? "true" : "false");
    });
    document.body.setAttribute("data-step", String(index));
    document.body.setAttribute("data-view", key);
  }

  function remember() {
    // The dashboard keeps the step in its page's URL (?step=), so a link opens it here.
    if (!options.sync_parent_url || window.parent === window) return;
    try {
      var url = new URL(window.parent.location.href);
      url.searchParams.set("step", String(state.index));
      window.parent.history.replaceState(window.parent.history.state, "", url.toString());
    } catch (e) {
      // Another origin's page (an exported file opened in a frame): nothing to keep.
    }
  }

  function go(index) {
    state.index = Math.min(Math.max(0, index), last);
    render();
    remember();
  }

  function stop() {
    if (state.timer !== null) clearInterval(state.timer);
    state.timer = null;
    setText($("play"), "\u25B6 Play");
  }

  function play() {
    if (state.timer !== null) { stop(); return; }
    if (state.index === last) go(0);
    setText($("play"), "Pause");
    state.timer = setInterval(function () {
      if (state.index >= last) { stop(); return; }
      go(state.index + 1);
    }, Number($("speed").value));
  }

  // ------------------------------------------------------------------ controls

  setText($("title"), options.title);
  var handSelect = $("hand");
  hands.forEach(function (hand) {
    var option = make("option", "", "Hand " + hand);
    option.value = String(hand);
    handSelect.appendChild(option);
  });
  handSelect.addEventListener("change", function () { go(handStarts[Number(handSelect.value)]); });
  var viewBox = $("views");
  KEYS.forEach(function (key) {
    var button = make("button", "", key === "a" ? "All cards" : seatLabel(Number(key)));
    button.id = "view-" + key;
    button.setAttribute("role", "radio");
    button.addEventListener("click", function () { state.view = key; render(); });
    viewBox.appendChild(button);
  });
  $("start").addEventListener("click", function () { go(bounds(steps[state.index][0])[0]); });
  $("back").addEventListener("click", function () { go(state.index - 1); });
  $("next").addEventListener("click", function () { go(state.index + 1); });
  $("end").addEventListener("click", function () { go(bounds(steps[state.index][0])[1]); });
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", function () {
    if (state.timer !== null) { stop(); play(); }
  });
  var slider = $("slider");
  slider.max = String(last);
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  document.addEventListener("keydown", function (event) {
    if (event.target && event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") go(state.index + 1);
    else if (event.key === "ArrowLeft") go(state.index - 1);
    else if (event.key === "Home") go(bounds(steps[state.index][0])[0]);
    else if (event.key === "End") go(bounds(steps[state.index][0])[1]);
    else if (event.key === " ") play();
    else return;
    event.preventDefault();
  });

  state.index = Math.min(Math.max(0, Number(options.start_step) || 0), last);
  render();
})();
