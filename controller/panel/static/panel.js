// jantaku panel: the table display and the staff view.
// The state arrives over the WebSocket /ws ({"type": "state", "version", "seq", "state"});
// when the daemon goes away the page keeps the last state and reconnects on its own.
"use strict";

const JantakuPanel = (() => {
  const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };
  const ROUND_WINDS = { E: "East", S: "South", W: "West", N: "North" };
  const live = { state: null, version: 0, seq: 0, connected: false, messages: 0, connects: 0, listeners: [] };
  window.__jantaku = live;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function tileImg(tile) {
    const ok = /^[0-9][mpsz]$|^[1-8]f$/.test(tile);
    return el("img", { src: `/static/tiles/${ok ? tile : "unknown"}.png`, alt: tile, title: tile });
  }

  function setTiles(node, tiles) {
    node.replaceChildren(...(tiles || []).map(tileImg));
  }

  function roundName(round) {
    if (!round) return "–";
    const wind = ROUND_WINDS[round[0]];
    return wind ? `${wind} ${round.slice(1)}` : round;
  }

  function connect(onState) {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    let delay = 250;
    const open = () => {
      const ws = new WebSocket(`${proto}://${location.host}/ws`);
      ws.onopen = () => {
        delay = 250; live.connected = true; live.connects += 1; setConn(true);
      };
      ws.onmessage = (msg) => {
        const data = JSON.parse(msg.data);
        if (data.type !== "state") return;
        live.state = data.state; live.version = data.version; live.seq = data.seq; live.messages += 1;
        live.lastMessageAt = performance.now();
        onState(data.state, data);
        for (const fn of live.listeners) fn(data);
      };
      ws.onclose = () => {
        live.connected = false; setConn(false);
        setTimeout(open, delay); delay = Math.min(delay * 2, 2000);
      };
      ws.onerror = () => ws.close();
    };
    open();
  }

  function setConn(ok) {
    const node = document.getElementById("conn");
    if (!node) return;
    node.dataset.connected = ok ? "true" : "false";
    node.textContent = ok ? "live" : "reconnecting…";
  }

  function renderMachine(state) {
    const m = state.machine || {};
    const node = document.getElementById("machine");
    node.dataset.state = m.state || "idle";
    node.textContent = `machine: ${m.state || "idle"}${m.reason ? " — " + m.reason : ""}`;
  }

  function renderSeats(state) {
    const players = state.players || [];
    const n = (state.seats || []).length;
    document.querySelectorAll(".seat").forEach((box) => {      // a three-player game leaves one place empty
      const empty = Number(box.dataset.seat) >= n;
      box.hidden = empty;
      if (empty) box.replaceChildren();
    });
    const shown = state.pending_result || state.last_result;
    const tenpai = (shown && shown.tenpai) || null;
    const showTenpai = shown && shown.outcome === "exhaustive_draw" && tenpai;
    (state.seats || []).forEach((seat, i) => {
      const box = document.querySelector(`.seat[data-seat="${i}"]`);
      if (!box) return;
      box.classList.toggle("dealer", state.dealer === i);
      const badges = el("div", { class: "badges" });
      if (state.dealer === i) badges.append(el("span", { class: "badge-dealer" }, "dealer"));
      if (seat.riichi) badges.append(el("span", { class: "badge-riichi" }, "riichi"));
      const isTenpai = seat.tenpai !== undefined && seat.tenpai !== null ? seat.tenpai : (showTenpai ? tenpai[i] : null);
      if (showTenpai || (seat.tenpai !== undefined && seat.tenpai !== null)) {
        badges.append(isTenpai ? el("span", { class: "badge-tenpai" }, "tenpai") : el("span", { class: "badge-noten" }, "noten"));
      }
      const river = el("div", { class: "river tiles" }, ...(seat.river || []).map(tileImg));
      const melds = el("div", { class: "melds tiles" }, ...(seat.melds || []).map((m) =>
        el("span", { class: "meld" }, ...m.tiles.map(tileImg))),
        ...(seat.flowers && seat.flowers.length ? [el("span", { class: "meld flowers" }, ...seat.flowers.map(tileImg))] : []));
      box.replaceChildren(
        el("div", { class: "wind" }, WIND_NAMES[seat.wind] || seat.wind),
        el("div", { class: "name" }, seat.name || players[i] || `seat ${i + 1}`),
        el("div", { class: "score", id: `score-${i}` }, Number(seat.score).toLocaleString("en-US")),
        badges, melds, river,
      );
    });
  }

  function renderResult(state) {
    const box = document.getElementById("result");
    const r = state.pending_result || state.last_result;
    if (state.result_problem && !state.pending_result) {   // the hands as seen give no result (yet)
      box.hidden = false;
      box.dataset.pending = "true";
      box.replaceChildren(el("h2", {}, `Hand ${Number(state.hand_index) + 1}: no result yet`),
        el("div", { class: "problem" }, state.result_problem));
      return;
    }
    if (!r) { box.hidden = true; return; }
    box.hidden = false;
    box.dataset.pending = state.pending_result ? "true" : "false";
    const who = (i) => (state.seats && state.seats[i] && state.seats[i].name) || `seat ${i + 1}`;
    const head = r.outcome === "win" ? "Win" : r.outcome === "exhaustive_draw" ? "Exhaustive draw" : "Abortive draw";
    const parts = [el("h2", {}, `${head} — ${roundName(r.round)}, hand ${Number(r.hand) + 1}`
      + (state.pending_result ? " (to confirm)" : ""))];
    for (const w of r.wins || []) {
      const how = w.from === w.seat ? "tsumo" : `ron from ${who(w.from)}`;
      const limit = w.fan !== undefined ? `${w.fan} fan${w.pattern ? " (" + w.pattern + ")" : ""}`
        : w.yakuman ? `${w.yakuman}× yakuman` : `${w.han} han ${w.fu} fu`;
      parts.push(el("div", { class: "win" }, `${who(w.seat)}: ${how}, ${limit}, ${w.points} points`));
      parts.push(el("div", { class: "yaku" }, (w.yaku || []).map(([name, han]) => `${name} ${han}`).join(" · ")));
    }
    if (r.deltas) {
      const row = el("tr");
      // a three-player result keeps the rules engine's empty fourth place: only the seats played
      r.deltas.slice(0, (state.seats || r.deltas).length).forEach((d, i) => row.append(
        el("td", { class: d > 0 ? "delta-plus" : d < 0 ? "delta-minus" : "" }, `${who(i)} ${d > 0 ? "+" : ""}${d}`)));
      parts.push(el("table", { id: "payments" }, row));
    }
    box.replaceChildren(...parts);
  }

  function renderAlerts(state) {
    const box = document.getElementById("alerts");
    const alerts = (state.alerts || []).filter((a) => a.is_public !== false);
    if (!alerts.length) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren(el("h2", {}, "Alerts"), el("ul", {}, ...alerts.slice(-6).map((a) =>
      el("li", {}, `hand ${a.hand_index + 1}: ${a.rule}` + (a.seat !== null && a.seat !== undefined ? `, seat ${a.seat + 1}` : "")
        + (a.tile ? `, tile ${a.tile}` : "") + (a.message ? ` — ${a.message}` : "")))));
  }

  const OUTCOMES = { win: "win", exhaustive_draw: "draw", abortive_draw: "abortive draw", void: "void" };

  // The score sheet: one row per hand ended (state.hands), every seat's score after it.
  function renderSheet(state) {
    const box = document.getElementById("sheet");
    const rows = state.hands || [];
    if (!rows.length) { box.hidden = true; return; }
    box.hidden = false;
    const who = (i) => (state.seats && state.seats[i] && state.seats[i].name) || `seat ${i + 1}`;
    const head = el("tr", {}, el("th", {}, "hand"), el("th", {}, "round"), el("th", {}, ""),
      ...(state.seats || []).map((_, i) => el("th", {}, who(i))));
    const body = rows.map((r) => el("tr", { "data-hand": r.hand },
      el("td", {}, Number(r.hand) + 1), el("td", {}, `${r.round}-${r.honba}`),
      el("td", {}, OUTCOMES[r.outcome] || r.outcome),
      ...r.scores.map((s, i) => el("td", { class: "sheet-score", title: `${r.deltas[i] > 0 ? "+" : ""}${r.deltas[i]}` },
        Number(s).toLocaleString("en-US")))));
    box.replaceChildren(el("h2", {}, "Score sheet"), el("table", {}, el("thead", {}, head), el("tbody", {}, ...body)));
  }

  function renderDisplay(state) {
    document.getElementById("table-name").textContent = `table ${state.table}`;
    document.getElementById("ruleset").textContent = state.ruleset || "";
    document.getElementById("round").textContent = roundName(state.round);
    document.getElementById("honba").textContent = state.honba;
    document.getElementById("sticks").textContent = state.riichi_sticks;
    document.getElementById("live-wall").textContent = state.live_wall === null ? "–" : state.live_wall;
    document.getElementById("hand-index").textContent = Number(state.hand_index) + 1;
    setTiles(document.getElementById("dora-indicators"), state.dora_indicators);
    setTiles(document.getElementById("dora"), state.dora);
    // no indicator turned yet, or none in these rules (Hong Kong, Chinese): no empty labels
    document.querySelector(".centre .dora").hidden = !(state.dora_indicators || []).length;
    const finished = document.getElementById("finished");
    finished.hidden = !state.finished;
    if (state.finished) {
      const points = state.settlement || [];
      finished.textContent = "game over" + (points.length ? " — " + (state.seats || []).map((s, i) =>
        `${s.name || "seat " + (i + 1)} ${points[i] > 0 ? "+" : ""}${Number(points[i]).toFixed(1)}`).join(" · ") : "");
    }
    renderMachine(state);
    renderSeats(state);
    renderResult(state);
    renderAlerts(state);
    renderSheet(state);
  }

  return {
    startDisplay() { connect(renderDisplay); },
    connect, el, tileImg, roundName,
  };
})();
