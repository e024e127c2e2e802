// The Play page's table (arena.viewer.play, docs/play.md): a Streamlit v2 component. It draws
// the person's seat from `data.view` (their own observation only) and `data.pending` (the
// decision asked now, with its legal options), and sends the choice back as the trigger
// value `choice`: {no, text}. Only legal cards are buttons; every other card is plain text.
// Bot names are hostile: every text is set with textContent.
export default function draw(component) {
  const { data, setTriggerValue, parentElement } = component;
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const view = data && data.view;
  const pending = data && data.pending;
  const names = (view && view.players) || ["seat 0", "seat 1", "seat 2"];
  const state = parentElement.__a952 || (parentElement.__a952 = { no: null, legs: [], leg: 0 });
  if (!pending || state.no !== pending.no) {
    state.no = pending ? pending.no : null;
    state.legs = pending && pending.kind === "give" ? pending.give_legs.map(() => []) : [[]];
    state.leg = 0;
  }
  let root = parentElement.querySelector(".a952play");
  if (!root) {
    root = document.createElement("div");
    root.className = "a952 a952play";
    parentElement.appendChild(root);
  }
  root.replaceChildren();
  if (!view) {
    root.dataset.no = "";
    root.appendChild(make("p", "hint", "Waiting for the deal..."));
    return;
  }
  root.dataset.hand = String(view.hand_number);
  root.dataset.no = pending ? String(pending.no) : "";
  root.dataset.kind = pending ? pending.kind : "";
  const me = view.seat;
  const trumpSuit = view.trump && view.trump !== "NT" ? view.trump : null;

  function make(tag, cls, text) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  }
  function face(el, id) {
    el.dataset.card = id;
    el.appendChild(make("span", "rank", id[0] === "T" ? "10" : id[0]));
    el.appendChild(make("span", "suit", SUITS[id[1]]));
    el.title = id;
    return el;
  }
  function card(id, extra) {
    const cls = "card " + id[1] + (id[1] === trumpSuit ? " trump" : "") + (extra ? " " + extra : "");
    return face(make("span", cls), id);
  }
  function button(id, chosen, onClick) {
    const cls = "card pick " + id[1] + (id[1] === trumpSuit ? " trump" : "") + (chosen ? " chosen" : "");
    const el = face(make("button", cls), id);
    el.type = "button";
    el.addEventListener("click", () => onClick(el.dataset.card));
    return el;
  }
  function send(text) {
    setTriggerValue("choice", { no: pending.no, text: text });
  }
  function seatName(seat) {
    return seat === me ? "you" : names[seat] + " (seat " + seat + ")";
  }

  // The facts everyone knows, in one line.
  const facts = make("div", "facts");
  const contracts = view.contracts.map((c, s) => seatName(s) + " " + c).join(", ");
  facts.textContent =
    "Hand " + view.hand_number + " \u00b7 dealer " + seatName(view.dealer) +
    " \u00b7 contracts: " + contracts + " \u00b7 trump " + (view.trump || "not yet called") +
    " \u00b7 scores " + view.scores.join("/");
  root.appendChild(facts);

  const table = make("div", "table");
  for (const seat of [0, 1, 2]) {
    if (seat === me) continue;
    const box = make("div", "seat" + (view.to_act === seat ? " acting" : ""));
    const head = make("div", "head", seatName(seat));
    if (view.dealer === seat) head.appendChild(make("span", "badge dealer", "dealer"));
    head.appendChild(make("span", "badge", "tricks " + view.tricks_won[seat] + " of " + view.contracts[seat]));
    box.appendChild(head);
    box.appendChild(make("div", "hidden", "cards hidden"));
    table.appendChild(box);
  }
  const trick = make("div", "trick");
  const current = view.current_trick;
  trick.appendChild(make("div", "title", current ? "Trick " + (view.tricks.length + 1) : "No trick in play"));
  if (current) {
    current.cards.forEach((id, i) => {
      const slot = make("div", "slot", seatName((current.leader + i) % 3));
      slot.appendChild(document.createElement("br"));
      slot.appendChild(card(id));
      trick.appendChild(slot);
    });
  }
  table.appendChild(trick);
  root.appendChild(table);

  const last = view.last_trick;
  if (last) {
    root.appendChild(
      make("div", "won", "Trick " + last.number + " of hand " + last.hand + " won by " + seatName(last.winner) + ".")
    );
  }

  // The person's own cards: buttons for what the decision allows, text for the rest.
  const mine = make("div", "seat mine" + (pending ? " acting" : ""));
  const head = make("div", "head", "You (" + names[me] + ")");
  if (view.dealer === me) head.appendChild(make("span", "badge dealer", "dealer"));
  head.appendChild(make("span", "badge", "tricks " + view.tricks_won[me] + " of " + view.contracts[me]));
  mine.appendChild(head);
  const row = make("div", "cards");
  const legal = new Set(pending ? pending.cards : []);
  const selecting = pending && (pending.kind === "give" || pending.kind === "discard");
  const taken = new Set(state.legs.flat());
  const hand = pending && pending.kind === "discard" ? pending.cards : view.hand;
  for (const id of hand) {
    if (pending && pending.kind === "play" && legal.has(id)) {
      row.appendChild(button(id, false, (c) => send("play " + c)));
    } else if (selecting && legal.has(id) && (!taken.has(id) || state.legs[state.leg].includes(id))) {
      row.appendChild(
        button(id, state.legs[state.leg].includes(id), (c) => {
          const leg = state.legs[state.leg];
          const at = leg.indexOf(c);
          if (at >= 0) leg.splice(at, 1);
          else leg.push(c);
          draw(component);
        })
      );
    } else {
      row.appendChild(card(id, selecting && taken.has(id) ? "chosen" : ""));
    }
  }
  mine.appendChild(row);
  root.appendChild(mine);

  if (pending) {
    const ask = make("div", "ask");
    ask.appendChild(make("p", "explain", pending.explain));
    if (pending.kind === "trump") {
      for (const t of pending.trump_options) {
        const b = make("button", "choice", t === "NT" ? "No trump" : SUITS[t] + " " + t);
        b.type = "button";
        b.dataset.trump = t;
        b.addEventListener("click", () => send("trump " + b.dataset.trump));
        ask.appendChild(b);
      }
    } else if (selecting) {
      const want = pending.kind === "discard" ? pending.discard_count : pending.give_legs[state.leg][1];
      const picked = state.legs[state.leg].length;
      const lastLeg = pending.kind === "discard" || state.leg === pending.give_legs.length - 1;
      const what = pending.kind === "discard" ? "Discard" : "Give to " + names[pending.give_legs[state.leg][0]];
      const b = make("button", "choice", what + " (" + picked + " of " + want + " chosen)");
      b.type = "button";
      b.disabled = picked !== want;
      b.addEventListener("click", () => {
        if (!lastLeg) {
          state.leg += 1;
          draw(component);
          return;
        }
        const verb = pending.kind === "discard" ? "discard " : "give ";
        send(verb + state.legs.map((leg) => leg.join(" ")).join(" | "));
      });
      ask.appendChild(b);
    }
    const left = Math.max(0, Math.round(pending.deadline - Date.now() / 1000));
    ask.appendChild(make("p", "clock", "Time left for this decision: about " + Math.floor(left / 60) + " min " + (left % 60) + " s."));
    root.appendChild(ask);
  } else if (!view.result) {
    root.appendChild(make("p", "hint", "Waiting for " + (view.to_act === null ? "the next hand" : seatName(view.to_act)) + "..."));
  }
  if (data.refused) root.appendChild(make("p", "refused", data.refused));
}
